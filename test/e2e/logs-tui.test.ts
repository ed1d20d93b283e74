// The TUI's side of the log and the config warnings: the real binary under tmux, its core in
// the worker thread. `npm run build` first.
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = base.skipIf(requires("tmux"))

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

test("logs tui - a config's unknown key is a notice in the UI (an agent's variant, acted on, is none); the worker's core writes the log file", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), keybinds: {}, agent: { build: { variant: "high" } } })
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  const screen = await pane.waitFor('unknown key "keybinds" ignored')
  expect(screen).not.toContain('"agent.build.variant" ignored')
  expect(screen).toContain("Warning:")
  pane.keys("C-d")
  await pane.waitFor(/\[exited 0\]/)
  const dir = path.join(box.home, "state", "wright", "log")
  const [file] = readdirSync(dir)
  expect(readFileSync(path.join(dir, file!), "utf8")).toMatch(/^INFO  .* service=core wright started .*trusted=true startup=esm$/m)
})
