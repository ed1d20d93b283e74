import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { ofSession, readFrames, type Frame } from "../lib/sse-frames"
import { BASE, startServer, type Harness } from "./harness"

let llm: LLMServer
let h: Harness | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  await h?.close()
  h = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const get = (path: string, headers: Record<string, string> = {}) => h!.fetch(new Request(BASE + path, { headers }))
const idle = (sessionID: string) => (f: Frame) => f.type === "session.idle" && f.properties.sessionID === sessionID
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `)
const seqs = (frames: Frame[]) => frames.map((f) => Number(f.id))

test("event log - a client cut off mid-stream and back with Last-Event-ID gets exactly the events it missed", async () => {
  h = await startServer({ llm })
  const s = await h.client.session.create()
  const reference = readFrames(await get("/event"), idle(s.id))
  let deltas = 0
  const cut = readFrames(await get("/event"), (f) => f.type === "message.part.delta" && ++deltas === 10)
  llm.script({ text: words(60), delayMs: 3 })
  await h.client.session.promptAsync(s.id, { parts: [{ type: "text", text: "stream" }] })
  const before = await cut
  const lastId = before.findLast((f) => f.id !== undefined)!.id!
  // Events go on while the client is away.
  await new Promise((r) => setTimeout(r, 40))
  const after = await readFrames(await get("/event", { "last-event-id": lastId }), idle(s.id))

  const all = ofSession(await reference, s.id)
  const resumed = [...ofSession(before, s.id), ...ofSession(after, s.id)]
  expect(all.filter((f) => f.type === "message.part.delta")).toHaveLength(60)
  expect(resumed.map((f) => f.raw)).toEqual(all.map((f) => f.raw))
  expect(resumed.map((f) => f.id)).toEqual(all.map((f) => f.id))
  // Every session event carries its seq, strictly increasing: no gap in what is logged, no duplicate.
  const ids = seqs(all)
  expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true)
  // The resumed stream really replayed (its first events were published while it was away).
  expect(ofSession(after, s.id)[0]!.id).toBe(String(Number(lastId) + 1))
})

test("event log - /global/event and ?after= resume too; a fresh stream's first frame carries the head", async () => {
  h = await startServer({ llm })
  const s = await h.client.session.create()
  llm.script({ text: words(20) })
  const reference = readFrames(await get("/global/event"), idle(s.id))
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "go" }] })
  const all = ofSession(await reference, s.id)
  const mid = all[Math.floor(all.length / 2)]!.id!
  const replayed = await readFrames(await get(`/global/event?after=${mid}`), idle(s.id))
  expect(ofSession(replayed, s.id).map((f) => f.raw)).toEqual(all.filter((f) => Number(f.id) > Number(mid)).map((f) => f.raw))
  const fresh = await readFrames(await get("/event"), () => true)
  expect(fresh[0]).toMatchObject({ type: "server.connected", id: String((await h.app()).store.events.head()) })
  expect(Number(fresh[0]!.id)).toBeGreaterThanOrEqual(Number(all.at(-1)!.id))
})

test("event log - GET /session/:id/event?after= replays that session's events after the seq, then follows new ones", async () => {
  h = await startServer({ llm })
  const s = await h.client.session.create()
  const other = await h.client.session.create()
  llm.script({ text: words(30) })
  const reference = readFrames(await get("/event"), idle(s.id))
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "first" }] })
  const all = ofSession(await reference, s.id)
  // From the middle of the streamed text: the deltas are cut apart again, each with its own id.
  const deltas = all.filter((f) => f.type === "message.part.delta")
  const from = deltas[12]!.id!
  const expected = all.filter((f) => Number(f.id) > Number(from))
  let idles = 0
  const stream = readFrames(await get(`/session/${s.id}/event?after=${from}`), (f) => idle(s.id)(f) && ++idles === 2)
  // Once the replay is through (it ends with the first idle), a second prompt streams live.
  await new Promise((r) => setTimeout(r, 50))
  llm.script({ text: ["more ", "text"] })
  await h.client.session.prompt(other.id, { parts: [{ type: "text", text: "not this one" }] }).catch(() => {})
  llm.script({ text: ["more ", "text"] })
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "second" }] })
  const got = (await stream).filter((f) => f.type !== "server.connected" && f.type !== "server.heartbeat")
  expect(got.slice(0, expected.length).map((f) => f.raw)).toEqual(expected.map((f) => f.raw))
  const live = got.slice(expected.length)
  expect(live.every((f) => f.properties.sessionID === s.id)).toBe(true)
  expect(live.filter((f) => f.type === "message.part.delta").map((f) => f.properties.delta).join("")).toBe("more text")
  const ids = seqs(got)
  expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true)
})

test("event log - past the per-session bound old events are dropped, and a replay from before them answers server.resync", async () => {
  h = await startServer({ llm, events: { maxEvents: 40 } })
  const s = await h.client.session.create()
  llm.script({ text: words(200) })
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "long" }] })
  const db = (await h.app()).store.db
  const kept = db.prepare(`SELECT sum(n) FROM event WHERE session_id = ?`).pluck().get(s.id) as number
  expect(kept).toBeLessThanOrEqual(40 + 40 / 8 + 10)
  const head = String((await h.app()).store.events.head())
  const [, resync] = await readFrames(await get(`/session/${s.id}/event?after=0`), (_f, all) => all.length === 2)
  expect(resync).toMatchObject({ type: "server.resync", id: head, properties: { reason: "trimmed", sessions: [s.id] } })
  // The project's stream says the same for a client that was away as long; one that saw the
  // newest events resumes normally.
  const [, project] = await readFrames(await get("/event", { "last-event-id": "1" }), (_f, all) => all.length === 2)
  expect(project).toMatchObject({ type: "server.resync", properties: { reason: "trimmed" } })
  const recent = await readFrames(await get(`/session/${s.id}/event?after=${Number(head) - 3}`), (_f, all) => all.length === 4)
  expect(recent.slice(1).map((f) => f.id)).toEqual([Number(head) - 2, Number(head) - 1, Number(head)].map(String))
})

test("event log - a deleted session's events go but its deletion; an unknown id asks for a resync; a malformed one is a 400", async () => {
  h = await startServer({ llm })
  const s = await h.client.session.create()
  llm.script({ text: words(5) })
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "x" }] })
  await h.client.session.delete(s.id)
  const app = await h.app()
  app.store.events.flush()
  const rows = app.store.db.prepare(`SELECT data FROM event WHERE session_id = ?`).pluck().all(s.id) as string[]
  expect(rows.map((r) => JSON.parse(r).type)).toEqual(["session.deleted"])

  const [, unknown] = await readFrames(await get("/event", { "last-event-id": "99999" }), (_f, all) => all.length === 2)
  expect(unknown).toMatchObject({ type: "server.resync", properties: { reason: "unknown-id" } })
  const bad = await get("/event", { "last-event-id": "abc" })
  expect(bad.status).toBe(400)
  expect((await bad.json()).data.message).toContain("Last-Event-ID")
  const badAfter = await get(`/global/event?after=-1`)
  expect(badAfter.status).toBe(400)
  expect((await badAfter.json()).data.message).toContain("after")
})

test("event log - many clients at once (plain, coalescing, global, a session's log stream, one resumed mid-way) each get their own stream right: same frames, same ids", async () => {
  h = await startServer({ llm })
  const s = await h.client.session.create()
  const plain = [0, 1, 2].map(async () => readFrames(await get("/event"), idle(s.id)))
  const merged = readFrames(await get("/event?coalesce=true"), idle(s.id))
  const global = readFrames(await get("/global/event"), idle(s.id))
  // Fed from the log's writes, which the other streams' flushes make: frames that arrive while they flush.
  const session = readFrames(await get(`/session/${s.id}/event`), idle(s.id))
  let deltas = 0
  const cut = readFrames(await get("/event"), (f) => f.type === "message.part.delta" && ++deltas === 5)
  llm.script({ text: words(80), delayMs: 2 })
  await h.client.session.promptAsync(s.id, { parts: [{ type: "text", text: "stream" }] })
  const before = await cut
  const resumed = readFrames(await get("/event", { "last-event-id": before.findLast((f) => f.id !== undefined)!.id! }), idle(s.id))

  const [a, b, c] = (await Promise.all(plain)).map((f) => ofSession(f, s.id))
  expect(a!.filter((f) => f.type === "message.part.delta")).toHaveLength(80)
  for (const other of [b!, c!]) {
    expect(other.map((f) => f.raw)).toEqual(a!.map((f) => f.raw))
    expect(other.map((f) => f.id)).toEqual(a!.map((f) => f.id))
  }
  const back = [...ofSession(before, s.id), ...ofSession(await resumed, s.id)]
  expect(back.map((f) => [f.id, f.raw])).toEqual(a!.map((f) => [f.id, f.raw]))
  const wrapped = ofSession(await global, s.id)
  expect(wrapped.map((f) => [f.id, JSON.stringify({ type: f.type, properties: f.properties })])).toEqual(a!.map((f) => [f.id, JSON.stringify({ type: f.type, properties: f.properties })]))
  const fromLog = ofSession(await session, s.id)
  expect(fromLog.map((f) => [f.id, f.raw])).toEqual(a!.map((f) => [f.id, f.raw]))
  // The coalescing client: fewer frames, the same text, each frame at its last delta's id.
  const text = (fs: Frame[]) => fs.filter((f) => f.type === "message.part.delta").map((f) => f.properties.delta).join("")
  const m = ofSession(await merged, s.id)
  expect(text(m)).toBe(text(a!))
  const ids = new Set(a!.map((f) => f.id))
  expect(m.every((f) => ids.has(f.id))).toBe(true)
})
