// Credentials typed on a real terminal (tmux, the built binary): `wright auth login` picks the
// provider from a numbered list and reads the key without echoing it; the TUI's /connect takes
// the key in its hidden field, stores it through the worker's core, and the next prompt sends it.
import { readFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { BIN, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = base.skipIf(requires("tmux"))

vi.setConfig({ testTimeout: 120_000 })

let llm: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  llm.reset()
})
afterAll(() => llm.close())

const KEY = "sk-ant-typed-on-a-tty-0123456789"
const limit = { context: 200_000, output: 8_000 }
const stored = (box: Sandbox) => JSON.parse(readFileSync(path.join(box.env.XDG_DATA_HOME!, "wright", "auth.json"), "utf8"))

function open(box: Sandbox, args: string[]) {
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, ...args], { cwd: box.project, env: box.env })
  return pane
}

test("auth tty - login without a provider lists them by number; the key is typed without echo; the terminal is restored", async () => {
  const box = sandbox()
  const pane = open(box, ["auth", "login"])
  const list = await pane.waitFor("Number or name:")
  expect(list).toMatch(/\d+\. anthropic\s+Anthropic\s+ANTHROPIC_API_KEY/)
  // The websearch tool's backends are typed by name.
  expect(list).toContain("exa or tavily: a key for the websearch tool")
  // A typo is asked again, with the close ids.
  pane.type("anthropik")
  pane.keys("Enter")
  await pane.waitFor('No provider "anthropik"')
  pane.type("anthropic")
  pane.keys("Enter")
  await pane.waitFor("API key for anthropic (hidden):")
  pane.type(KEY)
  pane.keys("Enter")
  const done = await pane.waitFor(/\[exited 0\]\s*\n\s*icanon echo/)
  expect(done).toContain("Stored the anthropic key (…6789)")
  expect(pane.all()).not.toContain(KEY.slice(0, 10))
  expect(stored(box)).toEqual({ anthropic: { type: "api", key: KEY } })
})

test("auth tty - /connect in the TUI stores a pasted key without showing it, and the next prompt sends it", async () => {
  const box = sandbox()
  writeConfig(box.project, {
    model: "anthropic/claude-test",
    provider: { anthropic: { options: { baseURL: `${llm.url}/v1` }, models: { "claude-test": { limit } } } },
  })
  const pane = open(box, [])
  await pane.waitFor("tab agents")
  pane.type("/connect anthropic")
  pane.keys("Enter")
  await pane.waitFor("API key for anthropic")
  pane.paste(KEY)
  await pane.waitFor(`${KEY.length} characters typed`)
  pane.keys("Enter")
  await pane.waitFor("Stored the anthropic key")
  expect(stored(box)).toEqual({ anthropic: { type: "api", key: KEY } })

  llm.script(text("Answered with the connected key."))
  pane.type("hi")
  pane.keys("Enter")
  await pane.waitFor("Answered with the connected key.")
  expect(llm.requests[0]!.headers["x-api-key"]).toBe(KEY)
  expect(pane.all()).not.toContain(KEY.slice(0, 10))
  pane.keys("C-d")
  await pane.waitFor("[exited 0]")
})
