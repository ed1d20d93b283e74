// The TUI's own port (`wright --port`) is the same guarded listener as `wright serve`: the
// built binary in a terminal (tmux), attacked over real TCP on 127.0.0.1.
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { basicAuth, createClient } from "../../src/sdk"
import { BIN, providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { Tmux } from "../tui/tmux"
import { attacks, GUARDED, send } from "./serve-helpers"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = base.skipIf(requires("tmux"))

vi.setConfig({ testTimeout: 120_000 })

let llm: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  llm = await startLLMServer({ strict: false })
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  llm.reset()
})
afterAll(() => llm.close())

function open(box: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) {
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, ...args], { cwd: box.project, env: { ...box.env, ...env } })
  return pane
}

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  return box
}

async function urlOf(pane: Tmux): Promise<string> {
  const screen = await pane.waitFor(/Server listening on http:\/\/\S+:\d+/)
  return /Server listening on (http:\/\/\S+:\d+)/.exec(screen)![1]!
}

const basic = (password: string) => ({ authorization: basicAuth({ password }) })

test("guard tui - --port refuses what serve refuses, and nothing the attacks asked for happens", async () => {
  const box = project()
  const url = await urlOf(open(box, ["--port", "0"]))
  expect(await attacks(url, { home: box.home })).toEqual(GUARDED)
  expect(await createClient({ baseUrl: url, directory: box.project }).session.list()).toEqual([])
  const forged = await send(url, "GET", "/session", { headers: { host: "evil.test:1234" } })
  expect(forged.json().data.message).toBe('Host "evil.test:1234" is not this server\'s address; start wright with --allow-host evil.test to accept it')
})

test("guard tui - --port honours WRIGHT_SERVER_PASSWORD and --password-file; the guard holds behind the password too", async () => {
  const box = project()
  const url = await urlOf(open(box, ["--port", "0"], { WRIGHT_SERVER_PASSWORD: "tui secret" }))
  expect((await send(url, "GET", "/session")).status).toBe(401)
  expect((await send(url, "GET", "/session", { headers: basic("wrong") })).status).toBe(401)
  expect((await send(url, "GET", "/session", { headers: basic("tui secret") })).status).toBe(200)
  expect(await attacks(url, { home: box.home, headers: basic("tui secret") })).toEqual(GUARDED)

  const file = path.join(box.home, "pw")
  writeFileSync(file, "from file\n", { mode: 0o600 })
  const other = await urlOf(open(box, ["--port", "0", "--password-file", file]))
  expect((await send(other, "GET", "/session")).status).toBe(401)
  expect((await send(other, "GET", "/session", { headers: basic("from file") })).status).toBe(200)
})

test("guard tui - --hostname 0.0.0.0 without a password is refused before the UI, naming --insecure; with a password it listens", async () => {
  const box = project()
  const refused = open(box, ["--port", "0", "--hostname", "0.0.0.0"])
  const screen = await refused.waitFor("[exited 1]")
  expect(screen).toContain("Refusing to listen on 0.0.0.0 without a password")
  expect(screen).toContain("--insecure")
  expect(screen).not.toContain("tab agents")

  const url = await urlOf(open(box, ["--port", "0", "--hostname", "0.0.0.0"], { WRIGHT_SERVER_PASSWORD: "pw" }))
  const port = new URL(url).port
  expect((await send(`http://127.0.0.1:${port}`, "GET", "/session", { headers: basic("pw") })).status).toBe(200)
  expect((await send(`http://127.0.0.1:${port}`, "GET", "/session", { headers: { ...basic("pw"), host: `evil.test:${port}` } })).status).toBe(403)
})

test("guard tui - --allow-host, --cors and --allow-dir work on the TUI's port as on serve", async () => {
  const box = project()
  const extra = path.join(box.home, "extra")
  mkdirSync(extra)
  const url = await urlOf(open(box, ["--port", "0", "--allow-host", "wright.example", "--cors", "https://ide.example", "--allow-dir", extra]))
  const port = new URL(url).port
  expect((await send(url, "GET", "/session", { headers: { host: `wright.example:${port}` } })).status).toBe(200)
  expect((await send(url, "GET", "/session", { headers: { origin: "https://ide.example" } })).status).toBe(200)
  expect((await send(url, "GET", `/session?directory=${encodeURIComponent(extra)}`)).status).toBe(200)
  expect((await send(url, "GET", `/session?directory=${encodeURIComponent(box.home)}`)).status).toBe(403)
})

test("guard tui - --password-prompt on a terminal reads the password without echoing it", async () => {
  const box = project()
  const pane = open(box, ["serve", "--port", "0", "--password-prompt"])
  await pane.waitFor("Server password:")
  pane.type("hidden pw")
  pane.keys("Enter")
  const screen = await pane.waitFor(/listening on http:\/\/\S+:\d+/)
  expect(screen).not.toContain("hidden pw")
  const url = /listening on (http:\/\/\S+:\d+)/.exec(screen)![1]!
  expect((await send(url, "GET", "/session")).status).toBe(401)
  expect((await send(url, "GET", "/session", { headers: basic("hidden pw") })).status).toBe(200)
  pane.keys("C-c")
  await pane.waitFor("[exited 0]")

  // The TUI asks before it draws, then its --port takes that password.
  const tui = open(box, ["--port", "0", "--password-prompt"])
  await tui.waitFor("Server password:")
  tui.type("tui pw")
  tui.keys("Enter")
  const tuiUrl = await urlOf(tui)
  await tui.waitFor("tab agents")
  expect(tui.screen()).not.toContain("tui pw")
  expect((await send(tuiUrl, "GET", "/session", { headers: basic("tui pw") })).status).toBe(200)
  tui.type("typing still works")
  await tui.waitFor("typing still works")
})
