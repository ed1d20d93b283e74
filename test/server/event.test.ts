import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import type { BusEvent, GlobalEvent } from "../../src/protocol"
import { HEARTBEAT_MS } from "../../src/server"
import { sseResponse, type SseSink } from "../../src/server/sse"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { tempDir } from "../lib/tool-context"
import { BASE, collect, raw, startServer, type Harness } from "./harness"

let llm: LLMServer
let h: Harness
beforeAll(async () => {
  llm = await startLLMServer()
})
beforeEach(async () => {
  h = await startServer({ llm })
})
afterEach(async () => {
  await h.close()
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("event - /event starts with server.connected, sends no-buffering headers, then the session's events in order", async () => {
  const res = await h.fetch(new Request(`${BASE}/event`))
  expect(res.headers.get("content-type")).toBe("text/event-stream")
  expect(res.headers.get("x-accel-buffering")).toBe("no")
  expect(res.headers.get("cache-control")).toBe("no-cache, no-transform")
  const reader = res.body!.getReader()
  const first = new TextDecoder().decode((await reader.read()).value)
  // Its id is where the client stands in the event log (the seq to resume after); nothing was logged yet.
  expect(first).toBe('id: 0\ndata: {"type":"server.connected","properties":{}}\n\n')
  await reader.cancel()

  const controller = new AbortController()
  const stream = collect(h.client.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  const s = await h.client.session.create()
  llm.script({ text: ["Hel", "lo ", "there"] })
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "hi" }] })
  await stream.wait((e) => e.type === "session.idle" && e.properties.sessionID === s.id)
  const types = stream.events.map((e) => e.type)
  expect(types.indexOf("session.created")).toBeLessThan(types.indexOf("message.updated"))
  expect(types.indexOf("session.status")).toBeLessThan(types.indexOf("session.idle"))
  const deltas = stream.events.filter((e): e is Extract<BusEvent, { type: "message.part.delta" }> => e.type === "message.part.delta").map((e) => e.properties.delta)
  expect(deltas.join("")).toBe("Hello there")
  stream.stop()
})

test("event - /global/event wraps every project's events as {directory, payload}", async () => {
  const other = tempDir("wright-other-project-")
  // A second project on the same server: the user allowed it (--allow-dir).
  await h.close()
  h = await startServer({ llm, allowDirs: [other] })
  writeFileSync(path.join(other, "wright.json"), "{}")
  const controller = new AbortController()
  const stream = collect<GlobalEvent & { type: string }>(
    (async function* () {
      for await (const e of h.client.global.event({ signal: controller.signal })) yield { ...e, type: e.payload.type }
    })(),
    controller,
  )
  await stream.wait((e) => e.type === "server.connected")
  const mine = await h.client.session.create({ title: "mine" })
  const theirs = await h.clientFor(other).session.create({ title: "theirs" })
  const created = async (id: string) => (await stream.wait((e) => e.type === "session.created" && (e.payload.properties as { sessionID: string }).sessionID === id)).directory
  expect(await created(mine.id)).toBe(h.box.project)
  expect(await created(theirs.id)).toBe(other)
  stream.stop()
})

test("event - the directory parameter and header pick the project; each project has its own App", async () => {
  const other = tempDir("wright-second-project-")
  // A second project on the same server: the user allowed it (--allow-dir).
  await h.close()
  h = await startServer({ llm, allowDirs: [other] })
  writeFileSync(path.join(other, "wright.json"), JSON.stringify({ username: "second" }))
  const mine = h.client
  const theirs = h.clientFor(other)

  const controller = new AbortController()
  const stream = collect(mine.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  const a = await mine.session.create({ title: "in first" })
  const b = await theirs.session.create({ title: "in second" })
  expect(b.directory).toBe(other)
  expect(a.directory).toBe(h.box.project)
  expect((await theirs.session.get(b.id)).directory).toBe(other)
  expect((await theirs.config.get()).username).toBe("second")
  expect((await mine.config.get()).username).toBeUndefined()

  const byQuery = await raw(h, "GET", `/path?directory=${encodeURIComponent(other)}`)
  expect((await byQuery.json()).directory).toBe(other)
  const byHeader = await raw(h, "GET", "/path", { headers: { "x-opencode-directory": encodeURIComponent(other) } })
  expect((await byHeader.json()).directory).toBe(other)

  // Events of the other project never reach this project's stream.
  await stream.wait((e) => e.type === "session.created" && e.properties.sessionID === a.id)
  expect(stream.events.some((e) => e.type === "session.created" && e.properties.sessionID === b.id)).toBe(false)
  stream.stop()

  const missing = await raw(h, "GET", `/session?directory=${encodeURIComponent(path.join(other, "nope"))}`)
  expect(missing.status).toBe(400)
  expect((await missing.json()).data.issues[0].path).toBe("query.directory")
})

test("event - /global/health answers healthy with the version", async () => {
  expect(await h.client.global.health()).toEqual({ healthy: true, version: "9.9.9-test" })
})

test("event - disposing the server ends open event streams", async () => {
  const controller = new AbortController()
  const res = await h.fetch(new Request(`${BASE}/event`, { signal: controller.signal }))
  const reader = res.body!.getReader()
  await reader.read()
  h.server.dispose()
  let done = false
  for (let i = 0; i < 10 && !done; i++) done = (await reader.read()).done
  expect(done).toBe(true)
})

test("event - a heartbeat follows server.connected every HEARTBEAT_MS (10 s)", async () => {
  expect(HEARTBEAT_MS).toBe(10_000)
  const controller = new AbortController()
  const res = sseResponse(controller.signal, () => () => {}, { heartbeatMs: 15 })
  const reader = res.body!.getReader()
  let received = ""
  while ((received.match(/server\.heartbeat/g) ?? []).length < 2) received += new TextDecoder().decode((await reader.read()).value)
  expect(received.startsWith('data: {"type":"server.connected","properties":{}}\n\n')).toBe(true)
  expect(received).toContain('data: {"type":"server.heartbeat","properties":{}}\n\n')
  controller.abort()
  expect((await reader.read()).done).toBe(true)
})

test("event - reloading a project (PATCH /config) sends server.instance.disposed and ends its streams; the SDK reconnects", async () => {
  const controller = new AbortController()
  const stream = collect(h.client.event.subscribe({ signal: controller.signal, maxBackoffMs: 50 }), controller)
  await stream.wait((e) => e.type === "server.connected")
  await h.client.config.update({ username: "reloaded" })
  await stream.wait((e) => e.type === "server.instance.disposed")
  // After the drop the client is connected to the new App and sees its events.
  await stream.wait((e) => e.type === "server.connected" && stream.events.indexOf(e) > 0)
  const s = await h.client.session.create({ title: "after reload" })
  await stream.wait((e) => e.type === "session.created" && e.properties.sessionID === s.id)
  stream.stop()
})

test("event - ?coalesce=true merges consecutive deltas of one part into one event; the default stream keeps every delta", async () => {
  const app = await h.app()
  const session = await h.client.session.create()
  const collectFor = async (coalesce: boolean) => {
    const controller = new AbortController()
    const seen = collect(h.client.event.subscribe({ signal: controller.signal, coalesce }), controller)
    await seen.wait((e) => e.type === "server.connected")
    return { seen, controller }
  }
  const plain = await collectFor(false)
  const merged = await collectFor(true)
  const base = { sessionID: session.id, messageID: "msg_x", field: "text" }
  // Published in one turn of the event loop: the coalescing stream sends them in one flush.
  for (const delta of ["Hel", "lo, ", "wor", "ld"]) app.bus.publish("message.part.delta", { ...base, partID: "prt_a", delta })
  app.bus.publish("message.part.delta", { ...base, partID: "prt_b", delta: "other part" })
  app.bus.publish("session.idle", { sessionID: session.id })
  for (const s of [plain, merged]) await s.seen.wait((e) => e.type === "session.idle")
  const deltas = (events: { type: string; properties?: unknown }[]) =>
    events.filter((e) => e.type === "message.part.delta").map((e) => (e.properties as { partID: string; delta: string }))
  expect(deltas(plain.seen.events).map((d) => d.delta)).toEqual(["Hel", "lo, ", "wor", "ld", "other part"])
  expect(deltas(merged.seen.events).map((d) => [d.partID, d.delta])).toEqual([["prt_a", "Hello, world"], ["prt_b", "other part"]])
  plain.controller.abort()
  merged.controller.abort()
})

test("event - streams opened in one turn send the same connected frame, each with its own id (a chunk is shared only when frames and ids agree)", async () => {
  const controller = new AbortController()
  const first = async (res: Response) => new TextDecoder().decode((await res.body!.getReader().read()).value)
  // Two streams opened in one turn: the same connected frame, each with its own place in the log.
  let head = 5
  const one = sseResponse(controller.signal, () => () => {}, { connectedId: () => head++ })
  const two = sseResponse(controller.signal, () => () => {}, { connectedId: () => head++ })
  const three = sseResponse(controller.signal, () => () => {}, { connectedId: () => 6 })
  expect(await first(one)).toBe('id: 5\ndata: {"type":"server.connected","properties":{}}\n\n')
  expect(await first(two)).toBe('id: 6\ndata: {"type":"server.connected","properties":{}}\n\n')
  expect(await first(three)).toBe('id: 6\ndata: {"type":"server.connected","properties":{}}\n\n')
  controller.abort()
})

test("event - a frame that reaches a stream while the streams flush (a log write feeding it) goes out at the next turn, not never", async () => {
  const controller = new AbortController()
  let sinkA!: SseSink
  let fed = false
  const a = sseResponse(controller.signal, (_send, _end, sink) => ((sinkA = sink), () => {}))
  // B flushes after A in the same pass; its log write feeds A a frame A has no flush left for.
  sseResponse(controller.signal, () => () => {}, { connectedId: () => 1, beforeFlush: () => void (!fed && ((fed = true), sinkA.frame('{"type":"late","properties":{}}', 2))) })
  const reader = a.body!.getReader()
  let received = ""
  const deadline = Date.now() + 2000
  while (!received.includes('"late"') && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(r, 2000))])
    if (!next || next.done) break
    received += new TextDecoder().decode(next.value)
  }
  expect(fed).toBe(true)
  expect(received).toContain('id: 2\ndata: {"type":"late","properties":{}}')
  controller.abort()
})
