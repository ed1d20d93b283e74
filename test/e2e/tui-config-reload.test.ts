// The TUI follows its config files: the built binary in tmux, the config rewritten while it
// runs. A good edit applies (the default model changes, the next prompt goes to it); a bad
// one is reported naming the file and the running config stays. Needs a build.
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { BIN, providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = base.skipIf(requires("tmux"))

vi.setConfig({ testTimeout: 180_000 })

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

function config(model: string, extra: Record<string, unknown> = {}) {
  const base = providerConfig(server, "openai-chat")
  const fake = base.provider.fake!
  return { ...base, model, provider: { fake: { ...fake, models: { ...fake.models, "other-model": fake.models["chat-model"] } } }, ...extra }
}

/** The agent the status line shows. */
const agentOf = (screen: string) => [...screen.matchAll(/(\S+) · fake\/chat-model/g)].at(-1)?.[1]

/**
 * Presses Tab until `agent` is the one shown, each time waiting for the shown agent to change
 * (a fixed pause skipped past it when the redraw came late); the screen then, or after a full
 * cycle without it.
 */
async function tabTo(pane: Tmux, agent: string): Promise<string> {
  const seen = new Set<string>()
  let screen = pane.screen()
  while (agentOf(screen) !== agent) {
    const shown = agentOf(screen) ?? ""
    if (seen.has(shown)) break
    seen.add(shown)
    pane.keys("Tab")
    screen = await pane.waitFor((s) => agentOf(s) !== shown, { timeoutMs: 30_000 })
  }
  return screen
}

function open(box: Sandbox) {
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  return pane
}

async function ask(pane: Tmux, prompt: string, answer: string) {
  const before = server.requests.length
  server.script(text(answer))
  pane.type(prompt)
  pane.keys("Enter")
  await pane.waitFor(answer)
  await pane.waitFor("tab agents")
  return server.requests.slice(before).map((r) => (r.body as { model?: string }).model)
}

test("tui config reload - an edited wright.json applies while the TUI runs; a bad edit names the file and keeps the config", async () => {
  const box = sandbox()
  writeConfig(box.project, config("fake/chat-model"))
  const pane = open(box)
  await pane.waitFor("build · fake/chat-model")

  writeConfig(box.project, config("fake/other-model"))
  await pane.waitFor("Config reloaded: wright.json")
  await pane.waitFor("build · fake/other-model")
  expect(await ask(pane, "which model?", "the other one")).toContain("other-model")

  // Not JSON any more: the error names the file; the model in use stays.
  writeFileSync(path.join(box.project, "wright.json"), '{ "model": "fake/chat-model", ')
  const bad = await pane.waitFor("The previous config stays in use.", { all: true })
  expect(bad).toContain(path.join(box.project, "wright.json"))
  expect(pane.screen()).toContain("build · fake/other-model")
  // A value of the wrong type: the field is named.
  writeConfig(box.project, { ...config("fake/chat-model"), agent: { build: { steps: "many" } } })
  const typed = await pane.waitFor(/agent\.build\.steps[^\n]*\n?[^\n]*/, { all: true })
  expect(typed).toContain(path.join(box.project, "wright.json"))
  expect(await ask(pane, "still there?", "still the other one")).toContain("other-model")

  // Fixed again: it applies (a new session shows the configured model; this one shows the model that answered).
  writeConfig(box.project, config("fake/chat-model"))
  await pane.waitFor("Config reloaded: wright.json")
  pane.type("/new")
  pane.keys("Enter")
  await pane.waitFor("build · fake/chat-model")
  expect(await ask(pane, "and now?", "the first one again")).toContain("chat-model")
})

test("tui config reload - the global config and a new .wright/agent file apply too", async () => {
  const box = sandbox()
  writeConfig(box.project, config("fake/chat-model"))
  const global = path.join(box.home, "config", "wright")
  mkdirSync(global, { recursive: true })
  const pane = open(box)
  await pane.waitFor("build · fake/chat-model")

  writeConfig(global, { agent: { reviewer: { mode: "primary", description: "reviews" } } })
  await pane.waitFor("Config reloaded: ~/config/wright/wright.json")
  // Tab cycles the primary agents: the new one is among them.
  expect(await tabTo(pane, "reviewer")).toContain("reviewer · fake/chat-model")

  mkdirSync(path.join(box.project, ".wright", "agent"), { recursive: true })
  writeFileSync(path.join(box.project, ".wright", "agent", "tester.md"), "---\nmode: primary\ndescription: tests\n---\nYou test.\n")
  await pane.waitFor("Config reloaded: .wright/agent/tester.md")
  expect(await tabTo(pane, "tester")).toContain("tester · fake/chat-model")
})
