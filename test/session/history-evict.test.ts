import { expect, test } from "vitest"
import { createBus } from "../../src/bus"
import { createHistory } from "../../src/session/history"
import { openStore } from "../../src/storage"

const model = { providerID: "p", modelID: "m" }

/** A store with `count` idle sessions of one question and one finished answer each. */
function seeded(count: number) {
  const store = openStore(":memory:")
  const writer = createHistory({ store, bus: createBus() })
  for (let s = 0; s < count; s++) {
    const sessionID = `ses_${s}`
    store.sessions.put({ id: sessionID, slug: "s", projectID: "p", directory: "/", title: `t${s}`, version: "v", time: { created: 1, updated: 1 } })
    writer.putMessage({ id: `msg_${s}_1`, sessionID, role: "user", time: { created: 1 }, agent: "build", model })
    writer.putPart({ id: `prt_${s}_1`, sessionID, messageID: `msg_${s}_1`, type: "text", text: `question ${s}` })
    writer.putMessage(answer(sessionID, `msg_${s}_2`, `msg_${s}_1`, true))
    writer.putPart({ id: `prt_${s}_2`, sessionID, messageID: `msg_${s}_2`, type: "text", text: `answer ${s}` })
  }
  return store
}

function answer(sessionID: string, id: string, parentID: string, done: boolean) {
  return {
    id, sessionID, role: "assistant" as const, parentID, mode: "build", agent: "build", modelID: "m", providerID: "p",
    path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    time: done ? { created: 2, completed: 3 } : { created: 2 },
    ...(done ? { finish: "stop" } : {}),
  }
}

const texts = (list: { parts: { type: string; text?: string }[] }[]) => list.flatMap((m) => m.parts.map((p) => p.text))

test("history - browsing many sessions keeps only the recently used idle ones in memory; a dropped one reads back whole", () => {
  const store = seeded(10)
  const history = createHistory({ store, bus: createBus(), keepIdle: 3 })
  for (let s = 0; s < 10; s++) expect(texts(history.messages(`ses_${s}`))).toEqual([`question ${s}`, `answer ${s}`])
  expect(history.loaded().sort()).toEqual(["ses_7", "ses_8", "ses_9"])
  // Using a session again makes it the most recent: ses_7 survives the next load, ses_8 does not.
  history.messages("ses_7")
  history.messages("ses_0")
  expect(history.loaded().sort()).toEqual(["ses_0", "ses_7", "ses_9"])
  expect(texts(history.messages("ses_2"))).toEqual(["question 2", "answer 2"])
  store.close()
})

test("history - a session with a step under way or unwritten streamed text is never dropped, and its text stays whole", () => {
  const store = seeded(6)
  const history = createHistory({ store, bus: createBus(), keepIdle: 2 })
  // ses_0 streams an answer: the step is open and the text is ahead of the disk (deferred).
  history.putMessage({ id: "msg_0_3", sessionID: "ses_0", role: "user", time: { created: 4 }, agent: "build", model })
  history.putMessage(answer("ses_0", "msg_0_4", "msg_0_3", false))
  const part = { id: "prt_0_4", sessionID: "ses_0", messageID: "msg_0_4", type: "text" as const, text: "" }
  history.putPart(part)
  part.text = "streamed so far"
  history.delta(part, "streamed so far")
  for (let s = 1; s < 6; s++) history.messages(`ses_${s}`)
  expect(history.loaded()).toContain("ses_0")
  expect(texts(history.messages("ses_0")).at(-1)).toBe("streamed so far")
  // The step finishes and its text is written: now ses_0 may go, and reads back from disk intact.
  history.putMessage(answer("ses_0", "msg_0_4", "msg_0_3", true))
  history.flush()
  for (let s = 1; s < 6; s++) history.messages(`ses_${s}`)
  expect(history.loaded()).not.toContain("ses_0")
  expect(texts(history.messages("ses_0"))).toEqual(["question 0", "answer 0", "streamed so far"])
  store.close()
})

test("history - settle closes exactly the steps left open as interrupted, however long the session", () => {
  const store = seeded(1)
  const history = createHistory({ store, bus: createBus() })
  history.putMessage({ id: "msg_0_3", sessionID: "ses_0", role: "user", time: { created: 4 }, agent: "build", model })
  history.putMessage(answer("ses_0", "msg_0_4", "msg_0_3", false))
  history.putMessage(answer("ses_0", "msg_0_5", "msg_0_3", false))
  history.putMessage(answer("ses_0", "msg_0_5", "msg_0_3", true))
  history.settle("ses_0")
  const infos = history.messages("ses_0").map((m) => m.info as { id: string; error?: { name: string }; time: { completed?: number } })
  expect(infos.filter((i) => i.error).map((i) => [i.id, i.error!.name])).toEqual([["msg_0_4", "MessageAbortedError"]])
  expect(infos.every((i) => i.id.endsWith("_1") || i.id.endsWith("_3") || i.time.completed)).toBe(true)
  // A fresh process reading the same database sees the same.
  const again = createHistory({ store, bus: createBus() }).messages("ses_0").map((m) => m.info as { error?: unknown })
  expect(again.filter((i) => i.error)).toHaveLength(1)
  store.close()
})
