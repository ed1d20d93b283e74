// Variants in the TUI: --variant, ctrl+t cycling, and the status line's cache figures, with the
// built binary in tmux against the scripted Anthropic wire. Needs a build.
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { BIN, sandbox, writeConfig } from "../lib/e2e"
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

function open(model: string, args: string[] = []) {
  const box = sandbox()
  writeConfig(box.project, {
    model,
    provider: {
      fa: {
        npm: "@ai-sdk/anthropic",
        options: { baseURL: `${server.url}/v1`, apiKey: "k" },
        models: {
          "claude-think": { reasoning: true, limit: { context: 200_000, output: 64_000 } },
          "claude-plain": { limit: { context: 200_000, output: 8_000 } },
        },
      },
    },
  })
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, ...args], { cwd: box.project, env: box.env })
  return pane
}

async function ask(pane: Tmux, prompt: string, answer: string) {
  const before = server.requests.length
  pane.type(prompt)
  pane.keys("Enter")
  await pane.waitFor(answer)
  await pane.waitFor("tab agents")
  return server.requests[before]!.body
}

test("tui variant - --variant starts with it, ctrl+t cycles through the model's variants and back to default, each reaching Anthropic", async () => {
  const pane = open("fa/claude-think", ["--variant", "high"])
  await pane.waitFor(/fa\/claude-think high/)
  server.script(text("first answer", { usage: { input: 6_000, output: 10, cacheWrite: 5_000 } }))
  expect((await ask(pane, "one", "first answer")).thinking).toEqual({ type: "enabled", budget_tokens: 16_000 })
  // The step's cache figures are on the status line.
  await pane.waitFor("cache 0 read 5.0K write")

  pane.keys("C-t")
  await pane.waitFor("Variant: max")
  await pane.waitFor(/fa\/claude-think max/)
  server.script(text("second answer", { usage: { input: 6_500, output: 10, cacheRead: 5_000, cacheWrite: 400 } }))
  expect((await ask(pane, "two", "second answer")).thinking).toEqual({ type: "enabled", budget_tokens: 31_999 })
  // This step's figures, then the session's sums.
  await pane.waitFor("cache 5.0K read 400 write (session 5.0K read 5.4K write)")

  pane.keys("C-t")
  await pane.waitFor("Variant: default")
  server.script(text("third answer"))
  expect((await ask(pane, "three", "third answer")).thinking).toBeUndefined()
})

test("tui variant - ctrl+t on a model without variants says so", async () => {
  const pane = open("fa/claude-plain")
  await pane.waitFor("tab agents")
  pane.keys("C-t")
  await pane.waitFor("fa/claude-plain has no variants")
})
