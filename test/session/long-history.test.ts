// A long session loaded by a fresh process leaves cleared tool outputs on disk. The model
// must still get exactly the history it got before (cleared results as the placeholder, kept
// ones verbatim), clients must still get every output, and updates to old parts must land.
import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { seedLongSession } from "../../bench/session/long"
import { databasePath, outputOnDisk } from "../../src/storage"
import { CLEARED_TOOL_OUTPUT } from "../../src/session/to-model"
import type { ToolPart } from "../../src/protocol"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"
import { sandbox } from "../lib/e2e"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

interface Row {
  role: string
  text?: string
  callID?: string
  input?: unknown
  output?: string
  compacted?: number
}

/** The session as the database holds it, read with plain SQL, one row per text or tool part: the oracle for what the model must see. */
function rawHistory(file: string, sessionID: string): Row[][] {
  const db = new Database(file, { readonly: true })
  const rows = db
    .prepare(`SELECT m.id, m.data AS message, p.data AS part, p.output, p.compacted FROM message m JOIN part p ON p.message_id = m.id WHERE m.session_id = ? ORDER BY m.id, p.id`)
    .all(sessionID) as { id: string; message: string; part: string; output: string | null; compacted: number | null }[]
  db.close()
  const byMessage = new Map<string, Row[]>()
  for (const r of rows) {
    const part = JSON.parse(r.part)
    const role = JSON.parse(r.message).role
    if (!byMessage.has(r.id)) byMessage.set(r.id, [])
    if (part.type === "tool") byMessage.get(r.id)!.push({ role, callID: part.callID, input: part.state.input, output: r.output!, compacted: r.compacted ?? undefined })
    else if (part.type === "text") byMessage.get(r.id)!.push({ role, text: part.text })
  }
  return [...byMessage.values()].filter((m) => m.length)
}

/** OpenAI Chat messages the stored messages must become (each of ours has one text or one tool part). */
function expectedChat(messages: Row[][]) {
  const out: unknown[] = []
  for (const [r] of messages as [Row][]) {
    if (r.role === "user") out.push({ role: "user", content: r.text })
    else if (r.callID) {
      out.push({ role: "assistant", content: null, tool_calls: [{ id: r.callID, type: "function", function: { name: "read", arguments: JSON.stringify(r.input) } }] })
      out.push({ role: "tool", tool_call_id: r.callID, content: r.compacted ? CLEARED_TOOL_OUTPUT : r.output })
    } else out.push({ role: "assistant", content: r.text })
  }
  return out
}

const chat = (body: { messages: { role: string }[] }) => body.messages.filter((m) => m.role !== "system")

test("long history - a fresh process sends the model the same history, cleared outputs as the placeholder, kept ones verbatim", async () => {
  const box = sandbox()
  const file = databasePath(box.env)
  // 300 messages: 100 reads of ~6 KB, past the 40K tokens pruning keeps.
  seedLongSession(box, 300)
  const sessionID = (new Database(file, { readonly: true }).prepare("SELECT id FROM session").get() as { id: string }).id

  // First process: one turn; pruning clears the old outputs after it.
  const first = await testCore({ llm, box, dbFile: file })
  llm.script(text("First answer."))
  await first.client.session.prompt(sessionID, prompt("first question"))
  // What pruning cleared is no longer held in memory, yet clients still get it.
  const pruned = first.app.history.messages(sessionID).flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === "tool" && p.state.status === "completed" && !!p.state.time.compacted)
  expect(pruned.length).toBeGreaterThan(50)
  expect(pruned.every(outputOnDisk)).toBe(true)
  const listed = (await first.client.session.messages(sessionID)).flatMap((m) => m.parts).find((p) => p.id === pruned[0]!.id) as ToolPart
  expect(listed.state.status === "completed" && listed.state.output).toMatch(/^ {4}1: export function step1_0/)
  await first.close()
  llm.reset()
  const before = rawHistory(file, sessionID)
  const tools = before.flat().filter((r) => r.callID)
  expect(tools.filter((r) => r.compacted).length).toBeGreaterThan(50)
  expect(tools.filter((r) => !r.compacted).length).toBeGreaterThan(3)

  // Second process: the cleared outputs stay on disk, and the request is what the rows say.
  const core = await testCore({ llm, box, dbFile: file })
  llm.script(text("Second answer."), text("Third answer."))
  await core.client.session.prompt(sessionID, prompt("second question"))
  const second = chat(llm.requests[0]!.body)
  expect(second).toEqual([...expectedChat(before), { role: "user", content: "second question" }])
  const live = core.app.history.messages(sessionID).flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === "tool")
  expect(live.filter(outputOnDisk).length).toBe(tools.filter((r) => r.compacted).length)

  // The next step in the same process (its conversions cached) repeats that prefix exactly.
  await core.client.session.prompt(sessionID, prompt("third question"))
  const third = chat(llm.requests[1]!.body)
  expect(third.slice(0, second.length)).toEqual(second)
  expect(third.slice(second.length)).toEqual([
    { role: "assistant", content: "Second answer." },
    { role: "user", content: "third question" },
  ])
  await core.close()
}, 120_000)

test("long history - clients page back to the oldest messages and get every cleared output in full; an update to an old part keeps its output", async () => {
  const box = sandbox()
  const file = databasePath(box.env)
  seedLongSession(box, 300)
  const sessionID = (new Database(file, { readonly: true }).prepare("SELECT id FROM session").get() as { id: string }).id
  const first = await testCore({ llm, box, dbFile: file })
  llm.script(text("First answer."))
  await first.client.session.prompt(sessionID, prompt("first question"))
  await first.close()
  const rows = rawHistory(file, sessionID)
  const oldest = rows.flat().find((r) => r.callID && r.compacted)!

  const core = await testCore({ llm, box, dbFile: file })
  // The TUI's way: the newest page, then older pages until the start.
  let page = await core.client.session.messages(sessionID, { limit: 50 })
  const seen = [...page]
  while (page.length === 50) {
    page = await core.client.session.messages(sessionID, { limit: 50, before: seen[0]!.info.id })
    seen.unshift(...page)
  }
  expect(seen.length).toBe(302)
  // Pages were read from disk: the session is not held in memory for it.
  expect(core.app.history.loaded()).not.toContain(sessionID)
  const shown = seen.flatMap((m) => m.parts).find((p): p is ToolPart => p.type === "tool" && p.callID === oldest.callID)!
  expect(shown.state.status === "completed" && shown.state.output).toBe(oldest.output)
  expect(shown.state.status === "completed" && shown.state.time.compacted).toBe(oldest.compacted)

  // An old, cleared part changes (as a revert or a plugin would): the change lands, the output stays.
  const part = core.app.history.messages(sessionID).flatMap((m) => m.parts).find((p): p is ToolPart => p.type === "tool" && p.callID === oldest.callID)!
  expect(outputOnDisk(part)).toBe(true)
  core.app.history.putPart({ ...part, metadata: { note: "touched" } })
  await core.close()
  const after = new Database(file, { readonly: true }).prepare("SELECT data, output, compacted FROM part WHERE id = ?").get(part.id) as { data: string; output: string; compacted: number }
  expect(JSON.parse(after.data).metadata).toEqual({ note: "touched" })
  expect(after.output).toBe(oldest.output)
  expect(after.compacted).toBe(oldest.compacted)
}, 120_000)

test("long history - the newest page of a session a dead process left mid-step shows that step closed as interrupted", async () => {
  const box = sandbox()
  const file = databasePath(box.env)
  seedLongSession(box, 30)
  const raw = new Database(file)
  const sessionID = (raw.prepare("SELECT id FROM session").get() as { id: string }).id
  const last = raw.prepare("SELECT id, data FROM message WHERE session_id = ? ORDER BY id DESC LIMIT 1").get(sessionID) as { id: string; data: string }
  const info = JSON.parse(last.data)
  delete info.time.completed
  delete info.finish
  raw.prepare("UPDATE message SET data = ? WHERE id = ?").run(JSON.stringify(info), last.id)
  raw.close()

  const core = await testCore({ llm, box, dbFile: file })
  const page = await core.client.session.messages(sessionID, { limit: 5 })
  expect(page.length).toBe(5)
  const tail = page[page.length - 1]!.info
  expect(tail.id).toBe(last.id)
  expect(tail.role === "assistant" && tail.time.completed).toBeGreaterThan(0)
  expect(tail.role === "assistant" && tail.error?.name).toBe("MessageAbortedError")
  await core.close()
}, 120_000)

test("long history - a fresh process answers a session's diff from its patch parts without loading the session", async () => {
  const box = sandbox()
  const file = databasePath(box.env)
  const first = await testCore({ llm, box, dbFile: file, files: { "a.txt": "one\n" } })
  const session = await first.client.session.create()
  llm.script(toolCall("write", { filePath: "a.txt", content: "two\n" }), text("Wrote it."))
  await first.client.session.prompt(session.id, prompt("change a.txt"))
  const before = await first.client.session.diff(session.id)
  await first.close()
  expect(before.map((d) => d.file)).toEqual(["a.txt"])

  const core = await testCore({ llm, box, dbFile: file })
  expect(await core.client.session.diff(session.id)).toEqual(before)
  expect(core.app.history.loaded()).not.toContain(session.id)
  await core.close()
}, 120_000)
