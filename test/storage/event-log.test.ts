import path from "node:path"
import { expect, test } from "vitest"
import type { BusEvent } from "../../src/protocol"
import { openStore, type Replay } from "../../src/storage"
import { tempDir } from "../lib/tool-context"

const DIR = "/project"
const delta = (sessionID: string, partID: string, d: string) =>
  ({ type: "message.part.delta", properties: { sessionID, messageID: "msg_1", partID, field: "text", delta: d } }) as BusEvent
const idle = (sessionID: string) => ({ type: "session.idle", properties: { sessionID } }) as BusEvent
const compacted = (sessionID: string) => ({ type: "session.compacted", properties: { sessionID } }) as BusEvent
const events = (r: Replay) => (r.resync ? [] : r.events.map((e) => ({ seq: e.seq, ...JSON.parse(e.json) })))

test("event log - deltas of one part written in one flush are one row; a replay from inside it returns exactly the later deltas, each with its seq", () => {
  const store = openStore(path.join(tempDir(), "w.db"))
  const log = store.events
  const published = ["a", "bb", "ccc", "dddd"].map((d) => delta("ses_1", "prt_1", d))
  const tickets = published.map((e) => log.append(DIR, e))
  log.append(DIR, delta("ses_1", "prt_2", "other"))
  log.flush()
  expect(store.db.prepare(`SELECT n FROM event ORDER BY seq`).pluck().all()).toEqual([4, 1])
  expect(tickets.map((t) => log.seqOfTicket(t))).toEqual([1, 2, 3, 4])
  expect(events(log.replay(2)).map((e) => [e.seq, e.properties.delta])).toEqual([
    [3, "ccc"],
    [4, "dddd"],
    [5, "other"],
  ])
  // A replay's JSON is the live event's, byte for byte.
  expect((log.replay(2) as { events: { json: string }[] }).events[0]!.json).toBe(JSON.stringify(published[2]))
  store.close()
})

test("event log - a compaction drops the session's earlier events (a replay from before them resyncs), a deletion all but itself", () => {
  const store = openStore(path.join(tempDir(), "w.db"))
  const log = store.events
  for (let i = 0; i < 5; i++) log.append(DIR, idle("ses_a")), log.flush()
  log.append(DIR, idle("ses_b"))
  log.flush()
  log.append(DIR, compacted("ses_a"))
  log.append(DIR, idle("ses_a"))
  log.flush()
  expect(log.replay(2, { sessionID: "ses_a" })).toMatchObject({ resync: true, reason: "trimmed", sessions: ["ses_a"] })
  expect(log.replay(2, { directory: DIR })).toMatchObject({ resync: true, sessions: ["ses_a"] })
  // A client that had seen everything the compaction dropped resumes normally.
  expect(events(log.replay(5, { sessionID: "ses_a" })).map((e) => e.type)).toEqual(["session.compacted", "session.idle"])
  expect(events(log.replay(5, { sessionID: "ses_b" })).map((e) => e.seq)).toEqual([6])

  log.append(DIR, { type: "session.deleted", properties: { sessionID: "ses_a", info: {} } } as BusEvent)
  log.flush()
  expect(store.db.prepare(`SELECT count(*) FROM event WHERE session_id = 'ses_a'`).pluck().get()).toBe(1)
  expect(events(log.replay(8, { directory: DIR })).map((e) => e.type)).toEqual(["session.deleted"])
  store.close()
})

test("event log - seqs keep growing after a trim, across reopening, and events without a session are not logged", () => {
  const file = path.join(tempDir(), "w.db")
  let store = openStore(file, { events: { maxEvents: 8 } })
  for (let i = 0; i < 40; i++) store.events.append(DIR, idle("ses_1")), store.events.flush()
  store.events.append(DIR, { type: "file.edited", properties: { file: "/x" } } as BusEvent)
  store.close()
  store = openStore(file, { events: { maxEvents: 8 } })
  expect(store.events.head()).toBe(40)
  expect(store.db.prepare(`SELECT count(*) FROM event`).pluck().get()).toBeLessThanOrEqual(9)
  store.events.append(DIR, idle("ses_1"))
  store.events.flush()
  expect(store.events.head()).toBe(41)
  expect(store.events.replay(41)).toEqual({ resync: false, head: 41, events: [] })
  expect(store.events.replay(42)).toMatchObject({ resync: true, reason: "unknown-id" })
  store.close()
})

test("event log - each event's seq follows its batch: across flushes, after a batch whose write failed (no seq, the next batch numbered on)", () => {
  const store = openStore(path.join(tempDir(), "w.db"))
  const log = store.events
  const first = ["a", "b"].map((d) => delta("ses_1", "prt_1", d))
  const second = ["c", "d", "e"].map((d) => delta("ses_1", "prt_1", d))
  const tickets = first.map((e) => log.append(DIR, e))
  log.flush()
  tickets.push(...second.map((e) => log.append(DIR, e)))
  expect(log.seqOfTicket(tickets[2])).toBeUndefined() // queued: no seq yet
  log.flush()
  expect(tickets.map((t) => log.seqOfTicket(t))).toEqual([1, 2, 3, 4, 5])
  // The table gone for one flush: that batch is lost from the log and its events have no seq.
  store.db.exec(`ALTER TABLE event RENAME TO event_away`)
  const lost = idle("ses_1")
  log.append(DIR, lost)
  log.flush()
  store.db.exec(`ALTER TABLE event_away RENAME TO event`)
  const after = [idle("ses_1"), delta("ses_1", "prt_2", "f")]
  for (const e of after) log.append(DIR, e)
  log.flush()
  expect(log.seqOf(lost)).toBeUndefined()
  expect(after.map((e) => log.seqOf(e))).toEqual([6, 7])
  expect(events(log.replay(4)).map((e) => [e.seq, e.type])).toEqual([
    [5, "message.part.delta"],
    [6, "session.idle"],
    [7, "message.part.delta"],
  ])
  store.close()
})
