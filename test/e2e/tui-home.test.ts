// The home screen's session list from the keyboard: the built binary in tmux over a seeded
// database. ↑ moves into the list, ↑/↓ move, typing searches (the loaded sessions and the
// server's search), enter opens, ctrl+d asks and deletes through the API, esc goes back.
// Needs a build.
import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import type { AssistantMessage, UserMessage } from "../../src/protocol"
import { openStore } from "../../src/storage"
import { BIN, providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
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

const KEYS = "↑↓ move · enter open · type to search · ctrl+d delete · esc back"

/** Sessions of the project, each with one question and its answer; the first is the newest. */
function seed(box: Sandbox, titles: string[]) {
  const store = openStore(box.dbPath)
  const now = Date.now()
  titles.forEach((title, i) => {
    const id = `ses_seed${i}`
    const word = title.split(" ")[0]!
    const time = now - (i + 1) * 60_000
    store.sessions.put({ id, slug: id, projectID: "global", directory: box.project, title, version: "test", time: { created: time, updated: time } })
    const user: UserMessage = { id: `msg_${id}_a`, sessionID: id, role: "user", time: { created: time }, agent: "build", model: { providerID: "fake", modelID: "chat-model" } }
    const reply: AssistantMessage = {
      id: `msg_${id}_b`, sessionID: id, role: "assistant", time: { created: time + 1, completed: time + 2 }, parentID: user.id, providerID: "fake", modelID: "chat-model",
      mode: "build", agent: "build", path: { cwd: box.project, root: box.project }, cost: 0, finish: "stop",
      tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
    }
    store.messages.put(user)
    store.messages.put(reply)
    store.parts.put({ id: `prt_${id}_a`, sessionID: id, messageID: user.id, type: "text", text: `${word} question` })
    store.parts.put({ id: `prt_${id}_b`, sessionID: id, messageID: reply.id, type: "text", text: `${word} answer` })
  })
  store.close()
}

function open(titles: string[]) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  seed(box, titles)
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  return { box, pane }
}

const titlesIn = (box: Sandbox) => {
  const db = new Database(box.dbPath, { readonly: true })
  const rows = db.prepare("SELECT title FROM session ORDER BY title").all() as { title: string }[]
  db.close()
  return rows.map((r) => r.title)
}

test("tui home - ↑ moves into the list, ↓ moves the selection, enter opens that session", async () => {
  const { pane } = open(["gamma tests", "beta docs", "alpha refactor"])
  await pane.waitFor("(↑ to choose one, /sessions for all)")
  pane.keys("Up")
  await pane.waitFor(KEYS)
  await pane.waitFor("› gamma tests")
  pane.keys("Down")
  await pane.waitFor("› beta docs")
  pane.keys("Enter")
  const screen = await pane.waitFor("beta answer")
  expect(screen).toContain("❯ beta question")
  expect(screen).not.toContain("gamma answer")
  // The prompt has the keys again: what is typed lands there.
  pane.type("next thing")
  await pane.waitFor("next thing")
})

test("tui home - typing searches the list; esc goes back to the prompt, ↓ past the last row too", async () => {
  const { pane } = open(["gamma tests", "beta docs", "alpha refactor"])
  await pane.waitFor("(↑ to choose one, /sessions for all)")
  pane.keys("Up")
  await pane.waitFor(KEYS)
  pane.type("alp")
  const found = await pane.waitFor("search: alp")
  expect(found).toContain("› alpha refactor")
  expect(found).not.toContain("beta docs")
  expect(found).not.toContain("gamma tests")
  pane.type("zzz")
  await pane.waitFor("nothing matches")
  pane.keys("Escape")
  await pane.waitFor((s) => !s.includes(KEYS) && s.includes("(↑ to choose one"))
  pane.type("typed in the prompt")
  await pane.waitFor("typed in the prompt")
  pane.keys("C-u")
  await pane.waitFor((s) => !s.includes("typed in the prompt"))

  pane.keys("Up")
  await pane.waitFor(KEYS)
  pane.type("alpha")
  await pane.waitFor("› alpha refactor")
  pane.keys("Down")
  await pane.waitFor((s) => !s.includes(KEYS))
  pane.keys("Up")
  pane.type("alpha")
  await pane.waitFor("› alpha refactor")
  pane.keys("Enter")
  await pane.waitFor("alpha answer")
})

test("tui home - the search also finds sessions older than the loaded page, through the server", async () => {
  // 55 sessions: the home list loads the newest 50, the oldest five only the server's search finds.
  const titles = Array.from({ length: 55 }, (_, i) => (i === 54 ? "ancient migration" : `session number ${i}`))
  const { pane } = open(titles)
  await pane.waitFor("(↑ to choose one, /sessions for all)")
  pane.keys("Up")
  await pane.waitFor(KEYS)
  pane.type("ancient")
  await pane.waitFor("› ancient migration")
  pane.keys("Enter")
  await pane.waitFor("ancient answer")
})

test("tui home - ctrl+d asks, y deletes the session through the API; any other key keeps it; ctrl+d there does not quit", async () => {
  const { box, pane } = open(["gamma tests", "beta docs", "alpha refactor"])
  await pane.waitFor("(↑ to choose one, /sessions for all)")
  pane.keys("Up")
  await pane.waitFor("› gamma tests")
  pane.keys("C-d")
  await pane.waitFor("Delete “gamma tests”? ctrl+d or y deletes it, any other key keeps it")
  pane.type("n")
  await pane.waitFor(KEYS)
  expect(titlesIn(box)).toContain("gamma tests")

  pane.keys("C-d")
  await pane.waitFor("Delete “gamma tests”?")
  pane.type("y")
  await pane.waitFor("Deleted “gamma tests”")
  const after = await pane.waitFor("› beta docs")
  expect(after).not.toContain("gamma tests  ")
  expect(titlesIn(box)).toEqual(["alpha refactor", "beta docs"])

  // ctrl+d twice deletes too; wright is still running afterwards.
  pane.keys("Down")
  await pane.waitFor("› alpha refactor")
  pane.keys("C-d")
  await pane.waitFor("Delete “alpha refactor”?")
  pane.keys("C-d")
  await pane.waitFor("Deleted “alpha refactor”")
  expect(titlesIn(box)).toEqual(["beta docs"])
  expect(pane.screen()).not.toContain("[exited")
})
