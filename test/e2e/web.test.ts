// `wright web` end to end: the BUILT binary serves the UI, a real headless Chromium (Debian's
// `chromium`, driven by playwright-core as test/e2e/browser.test.ts does) pairs with it and
// uses it against the scripted model. Pairing: a link works once and only for 5 minutes (the
// tests shorten that with WRIGHT_PAIR_TTL_MS), a browser without the cookie gets nothing, and a
// cookie cannot be used across origins or to mint more links.
import { readFileSync, statSync, writeFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { providerConfig, sandbox, spawnWright, waitForOutput, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { chromiumPath, requires } from "../lib/requires"
import { send, stopServe, type Served } from "./serve-helpers"

const noChromium = requires("chromium")
const test = base.skipIf(noChromium)
vi.setConfig({ testTimeout: 60_000 })

let llm: LLMServer
let browser: Browser
const cleanup: (() => Promise<unknown>)[] = []

beforeAll(async () => {
  if (noChromium) return
  llm = await startLLMServer({ strict: false })
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, chromiumSandbox: false })
}, 60_000)
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close().catch(() => {})
  llm?.reset()
})
afterAll(async () => {
  await browser?.close()
  await llm?.close()
})

type Web = Served & { link: string }

function project(config: Record<string, unknown> = {}): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), ...config })
  return box
}

/** `wright web` on a free loopback port; its URL and first pairing link. */
async function startWeb(box: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Web> {
  const child = spawnWright(["web", "--port", "0", ...args], { cwd: box.project, env: { ...box.env, ...env } })
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`web exited (${code}): ${child.output.stderr}`))))
  await Promise.race([waitForOutput(child, (o) => /Pairing link[^:]*: (http:\/\/\S+)\n/.test(o.stdout)), exited])
  const url = /listening on (http:\/\/\S+)\n/.exec(child.output.stdout)![1]!
  const link = /Pairing link[^:]*: (http:\/\/\S+)\n/.exec(child.output.stdout)![1]!
  const web = Object.assign(child, { url, link })
  cleanup.push(() => stopServe(web))
  return web
}

async function context(opts: Parameters<Browser["newContext"]>[0] = {}): Promise<BrowserContext> {
  const c = await browser.newContext(opts)
  cleanup.push(() => c.close())
  return c
}

/** A browser that opened the pairing link: the app with its session list. */
async function paired(web: Web, opts: Parameters<Browser["newContext"]>[0] = {}): Promise<Page> {
  const page = await (await context(opts)).newPage()
  await page.goto(web.link)
  // Attached, not visible: on a phone the list is a closed drawer.
  await page.locator('nav[aria-label="Sessions"]').waitFor({ state: "attached" })
  return page
}

const cookieOf = async (page: Page) => (await page.context().cookies()).find((c) => c.name.startsWith("wright_"))!

test("web - a pairing link works once and expires; an unpaired browser, a used or expired link get nothing", async () => {
  const box = project()
  const web = await startWeb(box, [], { WRIGHT_PAIR_TTL_MS: "3000" })
  const port = new URL(web.url).port

  // Unpaired: the page says how to pair, and the API answers 401.
  const stranger = await (await context()).newPage()
  const first = await stranger.goto(web.url)
  expect(first!.status()).toBe(401)
  expect(await stranger.textContent("body")).toContain("not paired")
  const unpaired = (p: Page) => p.context().cookies().then((c) => c.map((x) => `${x.name}=${x.value}`).join("; "))
  const statusWith = async (p: Page, pathname: string) => (await send(web.url, "GET", pathname, { headers: { cookie: await unpaired(p) } })).status
  expect(await statusWith(stranger, "/session")).toBe(401)
  expect(await statusWith(stranger, "/web/assets/app.js")).toBe(401)

  // The link pairs one browser: an HttpOnly, SameSite=Strict cookie for this port.
  const page = await paired(web)
  const cookie = await cookieOf(page)
  expect(cookie).toMatchObject({ name: `wright_${port}`, httpOnly: true, sameSite: "Strict" })
  expect(await page.evaluate(() => document.cookie)).toBe("")

  // The same link again, in another browser: refused, and that browser stays unpaired.
  const again = await (await context()).newPage()
  expect((await again.goto(web.link))!.status()).toBe(403)
  expect(await again.textContent("body")).toContain("already used or has expired")
  expect(await again.context().cookies()).toEqual([])
  expect(await statusWith(again, "/session")).toBe(401)

  // A fresh link from `wright web pair`, left past its life: refused.
  const pair = await wright(["web", "pair"], { cwd: box.project, env: box.env })
  expect(pair.code, pair.stderr).toBe(0)
  const late = /http:\/\/\S+\/pair\?code=\S+/.exec(pair.stdout)![0]
  await new Promise((r) => setTimeout(r, 3500))
  const expired = await (await context()).newPage()
  expect((await expired.goto(late))!.status()).toBe(403)
  expect(await expired.context().cookies()).toEqual([])
  expect(await statusWith(expired, "/session")).toBe(401)

  // The state file `wright web pair` read is this user's alone.
  const dir = path.join(box.home, "state", "wright", "web")
  expect(statSync(path.join(dir, readdirSync(dir)[0]!)).mode & 0o777).toBe(0o600)
})

test("web - a pairing cookie changes nothing from another origin or without one, and cannot mint links; devices are listed and revoked", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  const port = Number(new URL(web.url).port)
  const cookie = `${(await cookieOf(page)).name}=${(await cookieOf(page)).value}`
  const json = { cookie, "content-type": "application/json" }

  expect((await send(web.url, "GET", "/session", { headers: { cookie } })).status).toBe(200)
  // Another loopback port is another origin, though the browser sends it the same cookie.
  expect((await send(web.url, "POST", "/session", { headers: { ...json, origin: `http://127.0.0.1:${port + 1}` }, body: "{}" })).status).toBe(403)
  expect((await send(web.url, "POST", "/session", { headers: json, body: "{}" })).status).toBe(403)
  expect((await send(web.url, "POST", "/session", { headers: { ...json, origin: `http://127.0.0.1:${port}` }, body: "{}" })).status).toBe(200)
  // A cookie cannot mint pairing links; neither can a wrong admin token.
  expect((await send(web.url, "POST", "/web/pair", { headers: { cookie, origin: `http://127.0.0.1:${port}` } })).status).toBe(403)
  expect((await send(web.url, "POST", "/web/pair", { headers: { "x-wright-admin": "guess" } })).status).toBe(401)

  const listed = await wright(["web", "devices"], { cwd: box.project, env: box.env })
  const id = /^(dev_\S+)/m.exec(listed.stdout)?.[1]
  expect(id, listed.stdout + listed.stderr).toBeDefined()
  const revoked = await wright(["web", "revoke", id!], { cwd: box.project, env: box.env })
  expect(revoked.code, revoked.stderr).toBe(0)
  expect((await send(web.url, "GET", "/session", { headers: { cookie } })).status).toBe(401)
})

test("web - a prompt streams to the page, and the controls carry their names", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  llm.script({ text: ["Streaming ", "answer ", "from ", "the ", "scripted ", "model."], delayMs: 250 })

  await page.getByRole("button", { name: /^New session in project$/ }).click()
  const prompt = page.getByRole("textbox", { name: "Prompt" })
  await prompt.fill("Say something")
  await page.getByRole("button", { name: "Send", exact: true }).click()
  const log = page.getByRole("log", { name: "Conversation" })
  // Part of the answer is on the page before the model has finished sending it.
  await expect.poll(() => log.textContent(), { timeout: 15_000 }).toMatch(/Streaming answer/)
  const partial = await log.textContent()
  await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain("Streaming answer from the scripted model.")
  expect(partial).not.toContain("scripted model.")
  expect(await log.textContent()).toContain("Say something")
  await page.getByRole("button", { name: "Undo", exact: true }).waitFor()
})

test("web - a permission answered from the page lets the edit change the file; Stop shows while it waits", async () => {
  const box = project({ permission: { edit: "ask" } })
  writeFileSync(path.join(box.project, "hello.txt"), "hello world\n")
  const web = await startWeb(box)
  const page = await paired(web)
  llm.script(toolCall("edit", { filePath: "hello.txt", oldString: "hello world", newString: "hello web" }), text("Edited."))

  await page.getByRole("button", { name: /^New session in project$/ }).click()
  await page.getByRole("textbox", { name: "Prompt" }).fill("Edit @hello.txt")
  await page.keyboard.press("Escape")
  await page.getByRole("button", { name: "Send", exact: true }).click()
  const allow = page.getByRole("button", { name: "Allow once", exact: true })
  await allow.waitFor({ timeout: 15_000 })
  await page.getByRole("button", { name: "Allow always", exact: true }).waitFor()
  await page.getByRole("button", { name: "Reject", exact: true }).waitFor()
  await page.getByRole("button", { name: "Stop", exact: true }).waitFor()
  // The ask shows the edit's diff.
  expect(await page.locator(".permission .diff").textContent()).toContain("+hello web")
  expect(readFileSync(path.join(box.project, "hello.txt"), "utf8")).toBe("hello world\n")

  await allow.click()
  await expect.poll(() => readFileSync(path.join(box.project, "hello.txt"), "utf8"), { timeout: 15_000 }).toBe("hello web\n")
  const log = page.getByRole("log", { name: "Conversation" })
  await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain("Edited.")
  // The call as its tool summarises it, with its diff; the review panel lists the file.
  expect(await log.textContent()).toMatch(/hello\.txt/)
  expect(await page.locator(".tool .diff").first().textContent()).toContain("+hello web")
  await page.getByRole("button", { name: /^Changes/ }).click()
  await expect.poll(() => page.getByRole("complementary", { name: "Changes" }).textContent(), { timeout: 10_000 }).toContain("hello.txt")
})

test("web - a session started by wright run appears in the list while the page is open", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  const nav = page.getByRole("navigation", { name: "Sessions" })
  llm.script(text("Answer from run.", { delayMs: 200 }))
  const run = await wright(["run", "--title", "started by run", "hi"], { cwd: box.project, env: box.env })
  expect(run.code, run.stderr).toBe(0)
  await expect.poll(() => nav.textContent(), { timeout: 15_000 }).toContain("started by run")
})

test("web - phone layout (390x844): the prompt box and Send are on screen, nothing overflows sideways", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 })
  // The session list is a drawer on a phone: open it, start a session, it closes.
  await page.getByRole("button", { name: "Sessions list" }).click()
  await page.getByRole("navigation", { name: "Sessions" }).waitFor()
  await page.getByRole("button", { name: /^New session in project$/ }).click()
  const prompt = page.getByRole("textbox", { name: "Prompt" })
  await prompt.waitFor()
  await page.screenshot({ path: path.join(box.home, "phone.png") })
  const layout = await page.evaluate(() => {
    const box = (sel: string) => document.querySelector(sel)!.getBoundingClientRect().toJSON()
    return {
      scrollWidth: document.documentElement.scrollWidth,
      bodyScrollWidth: document.body.scrollWidth,
      prompt: box("textarea"),
      send: Array.from(document.querySelectorAll("button")).find((b) => b.textContent === "Send")!.getBoundingClientRect().toJSON(),
      innerHeight,
      innerWidth,
    }
  })
  expect(layout.innerWidth).toBe(390)
  expect(layout.scrollWidth).toBeLessThanOrEqual(390)
  expect(layout.bodyScrollWidth).toBeLessThanOrEqual(390)
  for (const r of [layout.prompt, layout.send]) {
    expect(r.top).toBeGreaterThanOrEqual(0)
    expect(r.bottom).toBeLessThanOrEqual(layout.innerHeight)
    expect(r.left).toBeGreaterThanOrEqual(0)
    expect(r.right).toBeLessThanOrEqual(390)
  }
  // The prompt sits in the bottom half, where a thumb reaches it.
  expect(layout.prompt.top).toBeGreaterThan(layout.innerHeight / 2)
  expect(statSync(path.join(box.home, "phone.png")).size).toBeGreaterThan(1000)
})
