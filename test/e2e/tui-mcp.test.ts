// The TUI tells the user when a remote MCP server wants an OAuth login (the re-login prompt),
// with the real binary in tmux and the SDK-built authorization server of test/mcp/fixtures.
import { spawn, type ChildProcess } from "node:child_process"
import path from "node:path"
import { afterAll, beforeAll, expect, test as vitestTest } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = vitestTest.skipIf(requires("tmux"))

let llm: LLMServer
let authServer: ChildProcess
let base = ""
const panes: Tmux[] = []
beforeAll(async () => {
  llm = await startLLMServer({ strict: false })
  authServer = spawn(process.execPath, [path.join(import.meta.dirname, "../mcp/fixtures/oauth-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] })
  base = await new Promise<string>((resolve) => authServer.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())))
}, 60_000)
afterAll(async () => {
  for (const p of panes) p.kill()
  authServer?.kill()
  await llm.close()
})

test("tui - a remote MCP server that needs a login shows the re-login prompt", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), mcp: { locked: { type: "remote", url: `${base}/mcp` } } })
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  const screen = await pane.waitFor("Server locked requires authentication. Run: wright mcp auth locked", { timeoutMs: 60_000 })
  // Once, not for the status check and the event both.
  expect(screen.split("requires authentication").length - 1).toBe(1)
}, 120_000)

test("tui - @server:name mentions an MCP resource, which is read into the prompt", async () => {
  const { createRequire } = await import("node:module")
  const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), mcp: { everything: { type: "local", command: [process.execPath, everything, "stdio"] } } })
  llm.script({ text: ["Summarised."] })
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await pane.waitFor("tab agents", { timeoutMs: 60_000 })
  // The resources are listed once the server is up; the completion popup asks again. Typed
  // until the popup offers the resource (fixed pauses were too short for a slow server start).
  const offered = /^\s+@everything:features\.md\s*$/m
  for (const deadline = Date.now() + 60_000; ; ) {
    pane.type("summarise @everything:features.md")
    const shown = await pane.waitFor(offered, { timeoutMs: 5000 }).catch(() => undefined)
    if (shown) break
    if (Date.now() > deadline) throw new Error(`the popup never offered @everything:features.md:\n${pane.screen()}`)
    pane.keys("C-u")
    await pane.waitFor((s) => !s.includes("summarise @"))
  }
  pane.keys("Escape")
  // Escape and Enter read in one go are Alt+Enter (ESC CR), a newline: Enter waits for the popup to close.
  await pane.waitFor((s) => !offered.test(s))
  pane.keys("Enter")
  await pane.waitFor("Summarised.", { timeoutMs: 60_000 })
  const sent = llm.requests.map((r) => JSON.stringify(r.body)).join("\n")
  expect(sent).toContain("Reading MCP resource: features.md (demo://resource/static/document/features.md) from everything")
}, 120_000)
