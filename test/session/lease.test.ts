// Two cores over one database file, as two wright processes are: each has its own SQLite
// connection, history and lease holder. (Two real processes: test/storage/lease.test.ts and
// test/e2e/lease.test.ts.) After every test: no step closed while its holder lives, no part
// lost, no two steps interleaved.
import { spawnSync } from "node:child_process"
import os from "node:os"
import path from "node:path"
import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import type { BusEvent, MessageWithParts } from "../../src/protocol"
import { createClient, type Client } from "../../src/sdk"
import { createServer } from "../../src/server"
import { createApp, type App } from "../../src/session"
import { openStore } from "../../src/storage"
import { answerText, prompt } from "../lib/core"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

interface Core {
  app: App
  client: Client
  events: BusEvent[]
  close(): Promise<void>
}

async function core(box: Sandbox, lease: { heartbeatMs?: number; staleMs?: number } = {}): Promise<Core> {
  const store = openStore(path.join(box.home, "shared.db"))
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, version: "test", lease: { followMs: 50, retryMs: 50, ...lease } })
  const server = createServer({ directory: box.project, getApp: async () => app, version: "test" })
  const events: BusEvent[] = []
  const off = app.bus.subscribeAll((e) => events.push(structuredClone(e)))
  return {
    app,
    client: createClient({ baseUrl: "http://wright.test", fetch: server.fetch }),
    events,
    async close() {
      off()
      await app.dispose()
      store.close()
    },
  }
}

function setup() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  return box
}

async function until(pred: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const start = Date.now()
  while (!(await pred())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Assistant steps never overlap in time: each starts after the previous one ended. */
function expectSerial(messages: MessageWithParts[]) {
  const steps = messages.filter((m) => m.info.role === "assistant").map((m) => m.info.time as { created: number; completed?: number })
  for (const s of steps) expect(s.completed).toBeGreaterThan(0)
  for (let i = 1; i < steps.length; i++) expect(steps[i]!.created).toBeGreaterThanOrEqual(steps[i - 1]!.completed!)
}

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `)

test("lease - a step another process runs is followed here, never closed, and its whole answer arrives", async () => {
  const box = setup()
  const a = await core(box)
  const b = await core(box)
  const answer = words(40, "a")
  // A's step holds after a few words until B has looked at it and followed it (a 1.6 s stream
  // could end first on a loaded worker).
  let release!: () => void
  llm.script({ text: answer, delayMs: 40, gate: { after: 10, open: new Promise<void>((r) => (release = r)) } })
  const session = await a.client.session.create()
  const running = a.client.session.prompt(session.id, prompt("tell a story"))
  await until(() => a.events.some((e) => e.type === "message.part.delta"), "A to stream")

  // B loads the session mid-step: the open step is left alone, and B says who runs it.
  const seen = await b.client.session.messages(session.id)
  const open = seen.find((m) => m.info.role === "assistant")!
  expect(open.info.time).not.toHaveProperty("completed")
  expect(open.info).not.toHaveProperty("error")
  expect((await b.client.session.status())[session.id]).toEqual({ type: "busy", holder: { pid: process.pid, hostname: expect.any(String) } })
  // A prompt through B now must not interleave: it is not tried here; see the next test.
  const textUpdates = () => b.events.filter((e) => e.type === "message.part.updated" && e.properties.part.type === "text" && e.properties.part.messageID === open.info.id)
  await until(() => textUpdates().length > 0, "B to follow A's open step")
  release()

  const done = await running
  expect(answerText(done)).toBe(answer.join(""))
  // B's clients follow: text parts republished while A streamed, then the final state and idle.
  await until(() => b.events.some((e) => e.type === "session.idle" && e.properties.sessionID === session.id), "B to see the session go idle")
  const followed = b.events.filter((e) => e.type === "message.part.updated" && e.properties.part.type === "text" && e.properties.part.messageID === done.info.id)
  expect(followed.length).toBeGreaterThan(1)
  const final = await b.client.session.messages(session.id)
  expect(final.map((m) => m.info.role)).toEqual(["user", "assistant"])
  expect(answerText(final[1]!)).toBe(answer.join(""))
  expect(final[1]!.info).not.toHaveProperty("error")
  expect((await b.client.session.status())[session.id]).toBeUndefined()
  expectSerial(final)
  await a.close()
  await b.close()
})

test("lease - prompts to one session from two processes run one after the other, never interleaved", async () => {
  const box = setup()
  const a = await core(box)
  const b = await core(box)
  const first = words(30, "a")
  // A's step holds after a few words until B is seen waiting for it (a 0.9 s stream could end first).
  let release!: () => void
  llm.script({ text: first, delayMs: 30, gate: { after: 10, open: new Promise<void>((r) => (release = r)) } }, text("Second answer."))
  const session = await a.client.session.create()
  const fromA = a.client.session.prompt(session.id, prompt("first question"))
  await until(() => llm.inFlight() === 1, "A's request to reach the model")
  const fromB = b.client.session.prompt(session.id, prompt("second question"))
  // B waits for A's lease: its request reaches the model only after A's step ended.
  await until(() => b.events.some((e) => e.type === "session.status" && e.properties.sessionID === session.id && e.properties.status.type === "busy"), "B busy")
  expect(llm.requests).toHaveLength(1)
  release()
  const [ra, rb] = await Promise.all([fromA, fromB])
  expect(answerText(ra)).toBe(first.join(""))
  expect(answerText(rb)).toBe("Second answer.")
  expect(llm.requests).toHaveLength(2)
  // B's step saw A's whole exchange: the model got both questions and A's answer, in order.
  const sent = llm.requests[1]!.body.messages.map((m: { role: string; content: unknown }) => [m.role, typeof m.content === "string" ? m.content : JSON.stringify(m.content)])
  const convo = sent.filter(([role]: string[]) => role !== "system")
  expect(convo.map(([role]: string[]) => role)).toEqual(["user", "assistant", "user"])
  expect(convo[0][1]).toContain("first question")
  expect(convo[1][1]).toBe(first.join(""))
  expect(convo[2][1]).toContain("second question")

  const stored = await b.client.session.messages(session.id)
  expect(stored.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"])
  for (const m of stored) expect(m.info).not.toHaveProperty("error")
  expectSerial(stored)
  // A follows what B wrote once its own lease ended, up to B's final state.
  await until(async () => JSON.stringify(await a.client.session.messages(session.id)) === JSON.stringify(stored), "A to pick up B's step")
  await a.close()
  await b.close()
})

test("lease - a holder that stalls past the stale time is taken over; it notices on its next heartbeat and stops", async () => {
  const box = setup()
  // A renews every 3 s, but B counts a heartbeat older than 1 s as dead: A looks stalled.
  const a = await core(box, { heartbeatMs: 3000 })
  const b = await core(box, { staleMs: 1000 })
  llm.script({ hang: 3 }, text("B took over."))
  const session = await a.client.session.create()
  const fromA = a.client.session.prompt(session.id, prompt("hang on"))
  await until(() => llm.inFlight() === 1, "A's request to hang")
  const started = Date.now()
  const rb = await b.client.session.prompt(session.id, prompt("are you there?"))
  expect(Date.now() - started).toBeGreaterThanOrEqual(500)
  expect(answerText(rb)).toBe("B took over.")
  // Only on takeover was A's open step closed, as interrupted.
  const stored = await b.client.session.messages(session.id)
  expect(stored.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"])
  expect(stored[1]!.info.role === "assistant" && stored[1]!.info.error?.name).toBe("MessageAbortedError")
  // A's next heartbeat finds the lease gone and aborts its run.
  const ra = await fromA
  expect(ra.info.role === "assistant" && ra.info.error?.name).toBe("MessageAbortedError")
  const after = await b.client.session.messages(session.id)
  expect(answerText(after[3]!)).toBe("B took over.")
  expect(after[3]!.info).not.toHaveProperty("error")
  expectSerial(after)
  await a.close()
  await b.close()
})

test("lease - a session shown here whose holder died before this process ever saw it run is carried on here", async () => {
  const box = setup()
  const a = await core(box)
  const b = await core(box)
  llm.script(text("Carried on by B."))
  const session = await a.client.session.create()
  await a.client.session.prompt(session.id, { ...prompt("go"), noReply: true })
  // B shows the session; then a process that took its lease is already gone when B's follower
  // first looks (it ran and died between two ticks, as on a busy machine).
  expect(await b.client.session.messages(session.id)).toHaveLength(1)
  const gone = spawnSync("true").pid
  const db = new Database(path.join(box.home, "shared.db"))
  db.prepare("INSERT INTO session_lease (session_id, holder, pid, hostname, heartbeat, time_acquired) VALUES (?, ?, ?, ?, ?, ?)").run(session.id, "dead-holder", gone, os.hostname(), Date.now(), Date.now())
  db.close()
  await until(async () => (await b.client.session.messages(session.id)).some((m) => answerText(m) === "Carried on by B."), "B's resumed answer")
  expect(llm.requests).toHaveLength(1)
  await a.close()
  await b.close()
})
