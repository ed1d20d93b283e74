// A long-lived process builds each step's prompt from what it converted before; a fresh
// process builds it from scratch. Through pruning, an edited old part, a revert and a
// compaction, every request the long-lived process sends must be the very bytes a fresh
// process sends for the same history and the same prompt. The cache alone is checked against a
// fresh conversion too, past what the history's change log remembers.
import Database from "better-sqlite3"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { seedLongSession } from "../../bench/session/long"
import { databasePath } from "../../src/storage"
import type { MessageWithParts, TextPart } from "../../src/protocol"
import { versionOf } from "../../src/session/history"
import { createModelMessageCache, toModelMessages } from "../../src/session/to-model"
import { Id } from "../../src/util"
import { startLLMServer, text, toolCalls, type LLMServer, type Reply } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"
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

/** The first request (and message) where two runs' bodies differ, or undefined when they are byte for byte the same. */
function firstDifference(got: unknown[], want: unknown[]) {
  if (got.length !== want.length) return { requests: { got: got.length, want: want.length } }
  for (let r = 0; r < got.length; r++) {
    if (JSON.stringify(got[r]) === JSON.stringify(want[r])) continue
    const a = (got[r] as { messages: unknown[] }).messages
    const b = (want[r] as { messages: unknown[] }).messages
    const at = a.findIndex((m, i) => JSON.stringify(m) !== JSON.stringify(b[i]))
    return { request: r, message: at, got: JSON.stringify(a[at] ?? null).slice(0, 400), want: JSON.stringify(b[at] ?? null).slice(0, 400), other: at === -1 }
  }
  return undefined
}

test("incremental prompt - through pruning, an edited old part, a revert and a compaction, each request equals what a fresh process sends", async () => {
  const box = sandbox()
  const file = databasePath(box.env)
  // 300 messages: 100 reads of ~6 KB, past what pruning keeps, so the first run's end clears old outputs.
  seedLongSession(box, 300)
  writeFileSync(path.join(box.project, "notes.txt"), "alpha\nbeta\n")
  const sessionID = (new Database(file, { readonly: true }).prepare("SELECT id FROM session").get() as { id: string }).id
  const live = await testCore({ llm, box, dbFile: file })
  const messages = () => live.app.history.messages(sessionID)
  let copies = 0

  /** Runs `act` in the live process and, on a copy of the database as it was before, in a fresh one; compares their requests. */
  async function stage(name: string, script: Reply[], act: (core: TestCore, history: MessageWithParts[]) => Promise<void>) {
    live.app.history.flush()
    const copy = path.join(box.home, `copy-${++copies}.db`)
    const db = new Database(file)
    db.exec(`VACUUM INTO '${copy}'`)
    db.close()
    const before = messages()
    llm.reset()
    llm.script(...script)
    await act(live, before)
    const got = llm.requests.map((r) => r.body)
    expect(got.length, name).toBe(script.length)

    llm.reset()
    llm.script(...script)
    const fresh = await testCore({ llm, box, dbFile: copy })
    await act(fresh, fresh.app.history.messages(sessionID))
    const want = llm.requests.map((r) => r.body)
    await fresh.close()
    expect(firstDifference(got, want), name).toBeUndefined()
  }

  // Call ids fixed, so both processes get the same answers.
  const read = (id: string) => toolCalls([{ id, name: "read", input: { filePath: path.join(box.project, "notes.txt") } }])
  const ask = (question: string) => async (core: TestCore) => void (await core.client.session.prompt(sessionID, prompt(question)))
  await stage("a tool step and an answer", [read("call_first"), text("Notes read.")], ask("read the notes"))
  // The run before ended by clearing old outputs: they go as the placeholder now.
  expect(messages().some((m) => m.parts.some((p) => p.type === "tool" && p.state.status === "completed" && p.state.time.compacted))).toBe(true)
  await stage("after pruning", [read("call_again"), text("Read again.")], ask("read them again"))

  await stage("an old user part edited through the API", [text("Edited.")], async (core, history) => {
    const old = history[30]!
    const part = old.parts.find((p) => p.type === "text")!
    await core.client.session.updatePart(sessionID, old.info.id, { ...part, text: "Question 30, reworded: look at src/m30.ts." } as never)
    await core.client.session.prompt(sessionID, prompt("after the edit"))
  })

  await stage("a revert of the last prompt", [text("Reverted and answered.")], async (core, history) => {
    const lastUser = history.findLast((m) => m.info.role === "user")!
    await core.client.session.revert(sessionID, { messageID: lastUser.info.id })
    await core.client.session.prompt(sessionID, prompt("instead of that"))
  })

  await stage("a compaction and the next step", [text("Summary: we fixed many modules."), text("After the summary.")], async (core) => {
    await core.client.session.summarize(sessionID, { providerID: "fake", modelID: "chat-model" })
    await core.client.session.prompt(sessionID, prompt("what next?"))
  })
  await stage("a step after the compaction", [text("Still fine.")], ask("and then?"))
  await live.close()
}, 180_000)

test("incremental prompt - after more changes than the history remembers, and with messages removed and inserted, the cached conversion is a fresh one's", async () => {
  const core = await testCore({ llm })
  const { history } = core.app
  const session = core.app.sessions.create()
  const model = { providerID: "fake", modelID: "chat-model" }
  const convert = createModelMessageCache({ versionOf, version: history.version, changedSince: history.changedSince })
  const texts: TextPart[] = []
  const put = (i: number) => {
    const id = Id.ascending("msg")
    history.putMessage({ id, sessionID: session.id, role: "user", time: { created: Date.now() }, agent: "build", model })
    const part: TextPart = { id: Id.ascending("prt"), sessionID: session.id, messageID: id, type: "text", text: `message ${i}` }
    history.putPart(part)
    texts.push(part)
  }
  for (let i = 0; i < 50; i++) put(i)
  const same = () => expect(convert(history.messages(session.id), model)).toEqual(toModelMessages(history.messages(session.id), model))
  same()
  // An early message edited, then 1,500 edits of later ones: more than the change log keeps.
  history.putPart({ ...texts[2]!, text: "edited before the others" })
  for (let k = 0; k < 1500; k++) history.putPart({ ...texts[20 + (k % 20)]!, text: `edit ${k}` })
  same()
  history.putPart({ ...texts[3]!, text: "one more edit" })
  same()
  history.removeMessage(session.id, texts[10]!.messageID)
  same()
  put(50)
  history.putPart({ ...texts[0]!, text: "the first one, edited" })
  same()
  expect(convert(history.messages(session.id), model)[0]).toEqual({ role: "user", content: [{ type: "text", text: "the first one, edited" }] })
  await core.close()
})
