// `wright -c` on a long session in a real terminal: the newest messages are drawn without
// loading the session, and /history pages back through older ones (read from disk), cleared
// tool outputs included. Needs a build (`node scripts/build.mjs`).
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { seedLongSession } from "../../bench/session/long"
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

test("tui long session - -c draws the newest messages, and /history brings back older ones", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  // 300 messages; a page is 50, so question 222 is three pages back from the end.
  seedLongSession(box, 300)
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, "-c"], { cwd: box.project, env: box.env })
  await pane.waitFor((s) => s.includes("tab agents") && s.includes("Answer 299."), { timeoutMs: 60_000 })
  expect(pane.all()).not.toContain("Question 222:")
  // Each /history brings back an older page: wait for it before asking for the next (a fixed
  // pause let a slow page be asked for again, or the loop end before the third one came).
  const oldest = (s: string) => Math.min(...[...s.matchAll(/Question (\d+):/g)].map((m) => Number(m[1])))
  for (let i = 0; i < 5 && !pane.all().includes("Question 222:"); i++) {
    const before = oldest(pane.all())
    pane.type("/history")
    pane.keys("Enter")
    await pane.waitFor((s) => oldest(s) < before, { timeoutMs: 30_000, all: true })
  }
  await pane.waitFor((s) => s.includes("Question 222:"), { timeoutMs: 30_000, all: true })
  // The model was never called: opening and paging read the database only.
  expect(server.requests).toHaveLength(0)
})
