// A real headless Chromium (Debian's `chromium`, driven by playwright-core) attacks the built
// `wright serve` the way a web page would: from another loopback origin, and through DNS
// rebinding (a page on evil.test whose name then resolves to 127.0.0.1, so its same-origin
// requests reach wright with `Host: evil.test:<port>`). Nothing may happen: no session, no
// shell command, no project opened, nothing read. Two positive controls run the same pages
// where they are meant to succeed, so the checks are seen to catch every kind of success.
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import { chromium, type Browser, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { createClient } from "../../src/sdk"
import { providerConfig, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { chromiumPath, requires } from "../lib/requires"
import { attackPage, startCollector, startPageServer, startPermissive, type Collector, type Listener, type PageConfig } from "./browser-fixture"
import { startServe, stopServe, type Served } from "./serve-helpers"

// Without a Chromium (WRIGHT_CHROMIUM or one on PATH) the file is skipped, saying so.
const noChromium = requires("chromium")
const test = base.skipIf(noChromium)
// A page runs several attacks one after another, each with its own 8 s limit.
vi.setConfig({ testTimeout: 60_000 })

let llm: LLMServer
let collector: Collector
let browser: Browser
const cleanup: (() => Promise<unknown>)[] = []

beforeAll(async () => {
  if (noChromium) return
  llm = await startLLMServer()
  collector = await startCollector()
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Chromium's sandbox cannot start as root (CI runs as root): playwright then passes --no-sandbox.
    chromiumSandbox: false,
    args: [
      // evil.test stands for the attacker's domain once it has been rebound to 127.0.0.1.
      "--host-resolver-rules=MAP evil.test 127.0.0.1",
      // Chromium's own Local Network Access checks block a page from a public address (as the
      // rebinding page is) from reaching loopback at all. Firefox, Safari and older Chromiums
      // have no such check, and wright must not lean on one: off, so wright's guards are tested.
      "--disable-features=LocalNetworkAccessChecks",
    ],
  })
}, 60_000)
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close()
  llm?.reset()
})
afterAll(async () => {
  await browser?.close()
  await collector?.close()
  await llm?.close()
})

interface Victim {
  box: Sandbox
  secret: string
  /** The shell attack's target file. */
  marker: string
  /** What the MCP server of `evilProject` would write if that directory were opened. */
  mcpMarker: string
  evilProject: string
}

/**
 * The user's setup: a provider in the global config whose API key comes from `{env:}`, a project
 * to serve, and another project of theirs, trusted, whose MCP server writes a file when it starts.
 */
async function victim(): Promise<Victim> {
  const box = sandbox()
  const secret = `sk-browser-${randomUUID()}`
  const config = providerConfig(llm, "openai-chat")
  config.provider.fake!.options.apiKey = "{env:BROWSER_TEST_SECRET}"
  const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, config)
  box.env.BROWSER_TEST_SECRET = secret
  const evilProject = path.join(box.home, "elsewhere")
  mkdirSync(evilProject)
  const mcpMarker = path.join(box.home, "mcp-ran")
  writeConfig(evilProject, { mcp: { evil: { type: "local", command: ["sh", "-c", `echo pwned > ${mcpMarker}`] } } })
  const trusted = await wright(["trust", evilProject], { cwd: box.project, env: box.env })
  expect(trusted.code, trusted.stderr).toBe(0)
  // Inside the project: the shell sandbox lets a command write there (and only there), so the
  // marker shows whether the page reached the shell, not whether the sandbox stopped the write.
  return { box, secret, marker: path.join(box.project, "shell-ran"), mcpMarker, evilProject }
}

/** `wright serve` in the victim's project, with one session the user made (through the SDK, no Origin). */
async function serve(v: Victim, args: string[] = []): Promise<Served & { session: string }> {
  const served = await startServe(v.box, args)
  cleanup.push(() => stopServe(served))
  const own = await createClient({ baseUrl: served.url, directory: v.box.project }).session.create({ title: OWN })
  return Object.assign(served, { session: own.id })
}

async function listener(start: Promise<Listener>): Promise<Listener> {
  const l = await start
  cleanup.push(() => l.close())
  return l
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext()
  cleanup.push(() => context.close())
  return context.newPage()
}

/** Serves `html` as the top-level document at `url` (the attacker's DNS answer); every other request goes to the network. */
async function rebind(page: Page, url: string, html: string) {
  await page.route((u) => u.href === url, (route) => route.fulfill({ status: 200, contentType: "text/html", body: html }))
}

function pageConfig(v: Victim, served: { session: string }, target: string, label: string): PageConfig {
  return { target, collector: collector.url, marker: v.marker, evilProject: v.evilProject, session: served.session, label }
}

const OWN = "the user's own"

/** Every session in the database whatever its directory, and how many messages there are (read after serve stops). */
function database(box: Sandbox): { sessions: string[]; messages: number } {
  const db = new Database(box.dbPath, { readonly: true })
  try {
    const sessions = (db.prepare("SELECT title FROM session").all() as { title: string }[]).map((s) => s.title)
    const { n } = db.prepare("SELECT count(*) AS n FROM message").get() as { n: number }
    return { sessions, messages: n }
  } finally {
    db.close()
  }
}

/** What the attacks achieved: sessions made, files written by the shell and by an MCP server, and what reached the collector. */
async function damage(v: Victim, served: Served, label: string) {
  // An MCP server starts in the background once a project opens: give it time to run.
  await new Promise((r) => setTimeout(r, 1000))
  await stopServe(served)
  const sent = collector.requests.filter((r) => r.body.includes(`"label":"${label}"`)).map((r) => r.body).join("\n")
  const db = database(v.box)
  return {
    sessions: db.sessions.filter((s) => s !== OWN),
    messages: db.messages,
    shellRan: existsSync(v.marker),
    mcpRan: existsSync(v.mcpMarker),
    loot: collector.loot(label).map((l) => l.what),
    secretLeaked: sent.includes(v.secret),
    passwdLeaked: sent.includes("root:x:0:0"),
  }
}

const NOTHING = { sessions: [], messages: 0, shellRan: false, mcpRan: false, loot: [], secretLeaked: false, passwdLeaked: false }

test("browser - a page on another loopback origin gets nothing from wright serve: no session, no shell, no project, nothing read", async () => {
  const v = await victim()
  const served = await serve(v)
  const html = attackPage(pageConfig(v, served, served.url, "cross-origin"))
  const site = await listener(startPageServer(() => html))
  expect(new URL(site.url).origin).not.toBe(new URL(served.url).origin)

  const page = await newPage()
  await page.goto(site.url)
  const report = await collector.done("cross-origin")
  expect(report.origin).toBe(site.url)
  expect(await damage(v, served, "cross-origin"), JSON.stringify(report.results, null, 1)).toEqual(NOTHING)
})

test("browser - DNS rebinding: a page on evil.test:<port> gets nothing from wright serve, though its requests reach it", async () => {
  const v = await victim()
  const served = await serve(v)
  const port = new URL(served.url).port
  const evil = `http://evil.test:${port}/`
  const page = await newPage()
  await rebind(page, evil, attackPage(pageConfig(v, served, "", "rebinding")))
  // Same-origin requests that got an HTTP answer (from wright itself, not from the route above).
  const answered: string[] = []
  page.on("response", (r) => {
    if (r.url() !== evil && r.url().startsWith(`http://evil.test:${port}/`)) answered.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
  })

  await page.goto(evil)
  const report = await collector.done("rebinding")
  expect(report.origin).toBe(`http://evil.test:${port}`)
  expect(answered, "the page's requests went over the network to wright").toContainEqual(expect.stringMatching(/^POST \/session \d+$/))
  expect(answered.filter((a) => / 2\d\d$/.test(a)), JSON.stringify(report.results, null, 1)).toEqual([])
  expect(await damage(v, served, "rebinding"), JSON.stringify(report.results, null, 1)).toEqual(NOTHING)
})

test("browser - positive control: an origin the user allowed with --cors does create a session, run the shell and read /config", async () => {
  const v = await victim()
  let html = ""
  const site = await listener(startPageServer(() => html))
  const served = await serve(v, ["--cors", site.url])
  html = attackPage(pageConfig(v, served, served.url, "allowed"))

  const page = await newPage()
  await page.goto(site.url)
  const report = await collector.done("allowed")
  const d = await damage(v, served, "allowed")
  expect(d.sessions, JSON.stringify(report.results, null, 1)).toContain("attack: fetch json")
  expect(d.messages).toBeGreaterThan(0)
  expect(d.shellRan).toBe(true)
  expect(d.loot).toContain("config")
})

test("browser - positive control: against a server with no defences the same pages deliver every attack, and the loot reaches the collector", async () => {
  const secret = `sk-permissive-${randomUUID()}`
  const open = await listener(startPermissive(secret))
  const cfg = (target: string, label: string): PageConfig => ({
    target,
    collector: collector.url,
    marker: "/tmp/marker",
    evilProject: "/tmp/evil",
    session: "ses_unused",
    label,
  })
  const site = await listener(startPageServer(() => attackPage(cfg(open.url, "control-cross"))))
  const evil = `http://evil.test:${open.port}/`

  const page = await newPage()
  await page.goto(site.url)
  await collector.done("control-cross")
  await rebind(page, evil, attackPage(cfg("", "control-rebind")))
  await page.goto(evil)
  await collector.done("control-rebind")

  for (const [label, host, origin] of [
    ["control-cross", `127.0.0.1:${open.port}`, site.url],
    ["control-rebind", `evil.test:${open.port}`, `http://evil.test:${open.port}`],
  ] as const) {
    const got = open.requests.filter((r) => r.host === host)
    const posts = got.filter((r) => r.method === "POST" && r.path === "/session")
    expect(posts.find((r) => r.contentType === "application/json")?.body, label).toContain("attack: fetch json")
    expect(posts.find((r) => r.body.includes("no-cors text/plain"))?.contentType, label).toMatch(/^text\/plain/)
    expect(posts.find((r) => r.body.includes("attack: form"))?.body, label).toBe('{"title":"attack: form","x":"="}\r\n')
    expect(got.filter((r) => r.method === "POST" && r.path === "/session/ses_permissive/shell").map((r) => JSON.parse(r.body).command), label).toEqual([
      "echo pwned > /tmp/marker",
      "echo pwned > /tmp/marker",
    ])
    expect(got.map((r) => r.path), label).toEqual(expect.arrayContaining(["/session?directory=%2Ftmp%2Fevil", "/config", "/file/content?path=/etc/passwd&directory=/"]))
    // The cross-origin posts carry the attacker's Origin; so do the rebinding page's, as its own.
    expect(posts.find((r) => r.contentType === "application/json")?.origin, label).toBe(origin)
    const loot = collector.loot(label)
    expect(loot.find((l) => l.what === "config")?.text, label).toContain(secret)
    expect(loot.find((l) => l.what === "passwd")?.text, label).toContain("root:x:0:0")
  }
})
