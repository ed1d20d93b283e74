// The web UI's budget (issue 31, part 6), on the built binary and a headless Chromium:
// - the JavaScript bundle, gzipped (target ≤ 250 KB);
// - the session list drawn after opening the page on loopback, 300 sessions over 3 projects
//   (target ≤ 1 s; median of 5 fresh browsers, each paired through a fresh link);
// - a 2,000-message session: rows in the DOM and frame times while scrolling it end to end;
// - the server's RSS with the UI open against plain `serve` on the same database, after an API
//   client listed the sessions the same way (target within 10%; interleaved, median of 3).
import { spawn, type ChildProcess } from "node:child_process"
import { mkdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { chromium, type Browser } from "playwright-core"
// @ts-expect-error: a plain .mjs helper shared with the foundation bench
import { sandbox } from "../foundation/measure.mjs"
import { seedLongSession } from "../session/long"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const PASSWORD = "bench-password"
const AUTH = `Basic ${Buffer.from(`wright:${PASSWORD}`).toString("base64")}`

type Box = { home: string; project: string; env: NodeJS.ProcessEnv; dbPath: string; remove(): void }
type Server = { child: ChildProcess; url: string; stdout: string }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function start(box: Box, command: "serve" | "web"): Promise<Server> {
  const child = spawn(path.join(ROOT, "bin/wright"), [command, "--port", "0"], {
    cwd: box.project,
    env: { ...box.env, WRIGHT_SERVER_PASSWORD: PASSWORD, WRIGHT_NODE: process.execPath },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  child.stdout!.on("data", (d) => (stdout += d))
  const want = command === "web" ? /Pairing link/ : /listening on/
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${command} did not start: ${stdout}`)), 30_000)
    child.stdout!.on("data", () => want.test(stdout) && (clearTimeout(t), resolve()))
    child.once("exit", (code) => reject(new Error(`${command} exited ${code}`)))
  })
  return { child, url: /listening on (http:\/\/\S+)/.exec(stdout)![1]!, stdout }
}

async function stop(s: Server) {
  const done = new Promise((r) => s.child.once("exit", r))
  s.child.kill("SIGTERM")
  await done
}

const rss = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

async function api(url: string, method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${url}${pathname}`, { method, headers: { authorization: AUTH, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** 100 sessions in each of three projects (the start directory and two inside it). */
async function seed(box: Box) {
  const s = await start(box, "serve")
  for (const sub of ["", "api", "docs"]) {
    const dir = path.join(box.project, sub)
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 100; i++) await api(s.url, "POST", `/session?directory=${encodeURIComponent(dir)}`, { title: `${sub || "main"} session ${i}` })
  }
  await stop(s)
}

async function pairLink(url: string): Promise<string> {
  return ((await api(url, "POST", "/web/pair")) as { url: string }).url
}

export async function runWebBench() {
  const js = readFileSync(path.join(ROOT, "dist/web/app.js"))
  const css = readFileSync(path.join(ROOT, "dist/web/app.css"))
  const bundle = { jsKB: js.length / 1024, jsGzipKB: gzipSync(js, { level: 9 }).length / 1024, cssGzipKB: gzipSync(css, { level: 9 }).length / 1024 }

  const box: Box = sandbox()
  const browser: Browser = await chromium.launch({ executablePath: process.env.WRIGHT_CHROMIUM || "/usr/bin/chromium", headless: true, chromiumSandbox: false })
  try {
    await seed(box)
    const longCount = 2000
    seedLongSession(box, longCount)

    // The list: from the navigation's start to 300 sessions drawn.
    const web = await start(box, "web")
    const listMs: number[] = []
    for (let i = 0; i < 5; i++) {
      const ctx = await browser.newContext()
      const page = await ctx.newPage()
      await page.goto(await pairLink(web.url))
      await page.waitForFunction(() => document.querySelectorAll('nav[aria-label="Sessions"] a').length >= 300, undefined, { timeout: 30_000, polling: "raf" })
      listMs.push(await page.evaluate(() => performance.now()))
      await ctx.close()
    }

    // The long session: rows in the DOM, and frames while scrolling from top to bottom.
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await ctx.newPage()
    await page.goto(await pairLink(web.url))
    await page.getByRole("link", { name: "Long session" }).click()
    await page.waitForFunction(() => document.querySelectorAll(".conversation .row").length > 0, undefined, { timeout: 30_000 })
    const scroll = await page.evaluate(async () => {
      const el = document.querySelector(".conversation") as HTMLElement
      el.scrollTop = 0
      await new Promise((r) => setTimeout(r, 300))
      const frames: number[] = []
      let last = performance.now()
      let rowsMax = 0
      for (let i = 0; i < 240; i++) {
        el.scrollTop += el.scrollHeight / 240
        await new Promise((r) => requestAnimationFrame(r))
        const now = performance.now()
        frames.push(now - last)
        last = now
        rowsMax = Math.max(rowsMax, document.querySelectorAll(".conversation .row").length)
      }
      frames.sort((a, b) => a - b)
      return { frames: frames.length, p50: frames[Math.floor(frames.length / 2)]!, p95: frames[Math.floor(frames.length * 0.95)]!, rowsMax }
    })

    // Memory: the UI open (list loaded, the long session open) against plain serve listed by an API client.
    const withUi: number[] = []
    const plain: number[] = []
    await ctx.close()
    await stop(web)
    for (let i = 0; i < 3; i++) {
      for (const kind of i % 2 ? (["serve", "web"] as const) : (["web", "serve"] as const)) {
        const s = await start(box, kind)
        if (kind === "web") {
          const c = await browser.newContext()
          const p = await c.newPage()
          await p.goto(await pairLink(s.url))
          await p.waitForFunction(() => document.querySelectorAll('nav[aria-label="Sessions"] a').length >= 300, undefined, { timeout: 30_000 })
          await p.getByRole("link", { name: "Long session" }).click()
          await p.waitForFunction(() => document.querySelectorAll(".conversation .row").length > 0, undefined, { timeout: 30_000 })
          await new Promise((r) => setTimeout(r, 2000))
          withUi.push(rss(s.child.pid!))
          await c.close()
        } else {
          // What any client does: the projects, their sessions, the long session's messages, the event stream.
          const events = await fetch(`${s.url}/global/event`, { headers: { authorization: AUTH } })
          for (const sub of ["", "api", "docs"]) await api(s.url, "GET", `/session?roots=true&limit=100&directory=${encodeURIComponent(path.join(box.project, sub))}`)
          const long = ((await api(s.url, "GET", "/session?search=Long")) as { id: string }[])[0]!
          await api(s.url, "GET", `/session/${long.id}/message`)
          await new Promise((r) => setTimeout(r, 2000))
          plain.push(rss(s.child.pid!))
          await events.body?.cancel()
        }
        await stop(s)
      }
    }
    const memory = { withUiMB: median(withUi), serveMB: median(plain), ratio: median(withUi) / median(plain) }
    return { bundle, listMs: median(listMs), listRuns: listMs, longSession: { messages: longCount, ...scroll }, memory }
  } finally {
    await browser.close()
    box.remove()
  }
}
