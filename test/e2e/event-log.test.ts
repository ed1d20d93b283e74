// The replayable event log over real HTTP against the BUILT binary (`wright serve`), with the
// scripted llm-server streaming: a client cut off mid-stream resumes with Last-Event-ID and
// gets exactly what it missed; two servers on one database log each event once, and one
// replays and follows what the other logged.
import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest"
import { createClient } from "../../src/sdk"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { ofSession, readFrames, type Frame } from "../lib/sse-frames"
import { startServe, stopServe, type Served } from "./serve-helpers"

vi.setConfig({ testTimeout: 60_000 })

let llm: LLMServer
const served: Served[] = []
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  for (const s of served.splice(0)) await stopServe(s).catch(() => {})
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const idle = (sessionID: string) => (f: Frame) => f.type === "session.idle" && f.properties.sessionID === sessionID
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `)

test("event log e2e - an SSE client cut off mid-stream and back with Last-Event-ID receives exactly the events it missed", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const serve = await startServe(box)
  served.push(serve)
  const client = createClient({ baseUrl: serve.url })
  const s = await client.session.create()
  llm.script({ text: words(80), delayMs: 4 })
  const reference = readFrames(await fetch(`${serve.url}/event`), idle(s.id))
  let deltas = 0
  const cutOff = new AbortController()
  const cut = readFrames(await fetch(`${serve.url}/event`, { signal: cutOff.signal }), (f) => f.type === "message.part.delta" && ++deltas === 15)
  await client.session.promptAsync(s.id, { parts: [{ type: "text", text: "stream" }] })
  const before = await cut
  cutOff.abort()
  const lastId = before.findLast((f) => f.id !== undefined)!.id!
  await new Promise((r) => setTimeout(r, 60))
  const after = await readFrames(await fetch(`${serve.url}/event`, { headers: { "last-event-id": lastId } }), idle(s.id))

  const all = ofSession(await reference, s.id)
  expect(all.filter((f) => f.type === "message.part.delta").map((f) => f.properties.delta).join("")).toBe(words(80).join(""))
  const resumed = [...ofSession(before, s.id), ...ofSession(after, s.id)]
  expect(resumed.map((f) => f.raw)).toEqual(all.map((f) => f.raw))
  expect(resumed.map((f) => f.id)).toEqual(all.map((f) => f.id))
  const ids = all.map((f) => Number(f.id))
  expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true)
})

test("event log e2e - two servers on one database log each event once; the other replays and follows it from the log", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const [a, b] = await Promise.all([startServe(box), startServe(box)])
  served.push(a, b)
  const s = await createClient({ baseUrl: b.url }).session.create()
  // A follows the session from the log from its start, while B runs it.
  const fromA = readFrames(await fetch(`${a.url}/session/${s.id}/event?after=0`), idle(s.id))
  const onB = readFrames(await fetch(`${b.url}/event?after=0`), idle(s.id))
  // A has the session loaded (its follower republishes B's writes as echoes).
  await createClient({ baseUrl: a.url }).session.messages(s.id)
  llm.script({ text: words(30), delayMs: 3 })
  await createClient({ baseUrl: b.url }).session.prompt(s.id, { parts: [{ type: "text", text: "run on b" }] })
  const seenOnB = ofSession(await onB, s.id)
  const seenFromA = ofSession(await fromA, s.id)
  expect(seenFromA.map((f) => f.raw)).toEqual(seenOnB.map((f) => f.raw))
  expect(seenFromA.map((f) => f.id)).toEqual(seenOnB.map((f) => f.id))
  // Give A's follower time to republish B's writes: still nothing logged twice.
  await new Promise((r) => setTimeout(r, 700))
  const db = new Database(box.dbPath, { readonly: true })
  try {
    const logged = db.prepare(`SELECT sum(n) FROM event WHERE session_id = ?`).pluck().get(s.id) as number
    expect(logged).toBe(seenOnB.length)
  } finally {
    db.close()
  }
})
