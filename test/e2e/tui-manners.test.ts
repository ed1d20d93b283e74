// The TUI in a terminal (tmux) with the scripted model: a failed command shows ✗ and its exit
// code; an invalid config is reported as run reports it; with no model it says /connect.
import { afterAll, afterEach, beforeAll, expect, test as vitestTest, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = vitestTest.skipIf(requires("tmux"))

vi.setConfig({ testTimeout: 120_000 })

let server: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  server = await startLLMServer({ strict: false })
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  server.reset()
})
afterAll(() => server.close())

function open(box: Sandbox, args: string[] = []) {
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, ...args], { cwd: box.project, env: box.env })
  return pane
}

const PROMPT_READY = "tab agents"

test("tui manners - a command that exits non-zero shows ✗ and its exit code; one that succeeds ✓", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  server.script(
    toolCall("bash", { command: "echo fine", description: "Succeed" }),
    toolCall("bash", { command: "echo broken && exit 3", description: "Fail" }),
    text("All done here."),
  )
  const pane = open(box)
  await pane.waitFor(PROMPT_READY)
  pane.type("run the tests")
  pane.keys("Enter")
  const screen = await pane.waitFor("All done here.")
  expect(screen).toMatch(/✓ \$ echo fine/)
  expect(screen).toMatch(/✗ \$ echo broken && exit 3 exit 3/)
})

test("tui manners - an invalid config is reported as run reports it: the file and the key, no stack trace, exit 1", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), agent: { build: { temperature: "hot" } } })
  const pane = open(box)
  const screen = await pane.waitFor(/\[exited \d+\]/)
  expect(screen).toContain("Error: Invalid config in")
  expect(screen.replace(/\n/g, "")).toContain("agent.build.temperature")
  expect(screen).not.toMatch(/^\s+at /m)
  expect(screen).toContain("[exited 1]")
})

test("tui manners - with no model the prompt says to type /connect, the status line says so too, and no empty session is left", async () => {
  const box = sandbox()
  const pane = open(box)
  await pane.waitFor(PROMPT_READY)
  const start = await pane.waitFor("no model: type /connect")
  expect(start).not.toContain("default model")
  pane.type("hello there")
  pane.keys("Enter")
  const screen = await pane.waitFor("No model yet: type /connect")
  expect(screen).not.toContain("OPENAI_API_KEY")
  pane.keys("C-d")
  await pane.waitFor(/\[exited 0\]/)
  const list = await wright(["session", "list", "--format", "json"], { cwd: box.project, env: box.env })
  expect(JSON.parse(list.stdout)).toEqual([])
})

test("tui manners - the status line names the model a prompt would go to, though the config names none", async () => {
  const box = sandbox()
  const { model: _model, ...config } = providerConfig(server, "openai-chat")
  writeConfig(box.project, config)
  const pane = open(box)
  const screen = await pane.waitFor("fake/chat-model")
  expect(screen).not.toContain("default model")
})
