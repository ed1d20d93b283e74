// The inbox across real processes: `wright serve` runs a session on a slow scripted answer
// while two `wright run --session … --steer/--queue` processes send it prompts. The serve
// process delivers each once: the steer inside the running turn (the model's next request),
// the queued one as a new turn after the answer. The BUILT binary, the scripted llm-server.
import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest"
import { createClient } from "../../src/sdk"
import { startLLMServer, text, toolCall, type LLMServer, type RecordedRequest } from "../lib/llm-server"
import { providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { startServe, stopServe, type Served } from "./serve-helpers"

vi.setConfig({ testTimeout: 90_000 })

let llm: LLMServer
const served: Served[] = []
beforeAll(async () => {
  llm = await startLLMServer({ strict: false })
})
afterEach(async () => {
  for (const s of served.splice(0)) await stopServe(s).catch(() => {})
  llm.reset()
})
afterAll(() => llm.close())

async function until(pred: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const start = Date.now()
  while (!(await pred())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function userTexts(r: RecordedRequest): string[] {
  return (r.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((c) => c.text ?? "").join("")))
}

test("inbox e2e - a steering and a queued prompt sent by run from other processes are delivered once each, by serve, at the right moment", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const a = await startServe(box)
  served.push(a)
  const client = createClient({ baseUrl: a.url, directory: box.project })
  const session = await client.session.create()
  // The first step streams a few words and holds (until both prompts wait in serve's inbox: two
  // cold `wright run` starts on a loaded machine could outlast any fixed stream), then reads a
  // file; the second answers; the queued turn last.
  const slow = Array.from({ length: 30 }, (_, i) => `w${i} `)
  let release!: () => void
  const gate = { after: 3, open: new Promise<void>((r) => (release = r)) }
  llm.script(toolCall("read", { filePath: `${box.project}/opencode.json` }, { text: slow, delayMs: 20, gate }), text("Steered answer."), text("Queued answer."))
  // serve's own clients hear of the prompts other processes store (its follower sees their commits).
  const events = new AbortController()
  const seen: { type: string; properties: Record<string, unknown> }[] = []
  void (async () => {
    for await (const e of client.event.subscribe({ signal: events.signal })) seen.push(e)
  })().catch(() => {})
  await until(() => seen.some((e) => e.type === "server.connected"), "serve's event stream")
  await client.session.promptAsync(session.id, { parts: [{ type: "text", text: "start the work" }] })
  await until(() => llm.inFlight() === 1, "serve's first request at the model")

  const [queued, steered] = await Promise.all([
    wright(["run", "--session", session.id, "--queue", "then add a title"], { cwd: box.project, env: box.env }),
    wright(["run", "--session", session.id, "--steer", "use the other file"], { cwd: box.project, env: box.env }),
  ])
  for (const r of [queued, steered]) {
    expect(r.stderr).toContain("waits in its inbox")
    expect(r.code).toBe(0)
  }
  // Both were stored while the first step still streamed: nothing was delivered yet.
  expect(llm.requests).toHaveLength(1)
  expect(llm.inFlight()).toBe(1)
  const listed = (e: (typeof seen)[number]) => e.type === "session.inbox.updated" && (e.properties.items as unknown[]).length === 2
  await until(() => seen.some(listed), "serve to publish both waiting prompts")
  release()

  await until(async () => llm.requests.length === 3 && !(await client.session.status())[session.id], "serve to finish both turns", 60_000)
  const [first, second, third] = llm.requests.map(userTexts)
  expect(first).toEqual(["start the work"])
  // The steer is in the same turn: the next request, right after the tool result.
  expect(second).toEqual(["start the work", "use the other file"])
  expect(llm.requests[1]!.body.messages.some((m: { role: string }) => m.role === "tool")).toBe(true)
  // The queued prompt began a new turn once the steered answer was given.
  expect(third).toEqual(["start the work", "use the other file", "then add a title"])

  events.abort()
  expect(seen.filter((e) => e.type === "session.inbox.updated").at(-1)!.properties.items).toEqual([])
  const db = new Database(box.dbPath, { readonly: true, fileMustExist: true })
  try {
    const rows = db.prepare("SELECT delivery, time_delivered, message_id FROM inbox ORDER BY id").all() as { delivery: string; time_delivered: number | null; message_id: string }[]
    expect(rows.map((r) => r.delivery).sort()).toEqual(["queue", "steer"])
    for (const r of rows) expect(r.time_delivered).toBeGreaterThan(0)
    const users = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data)).filter((m) => m.role === "user")
    expect(users).toHaveLength(3)
    expect(new Set(rows.map((r) => r.message_id))).toEqual(new Set(users.slice(1).map((m) => m.id)))
  } finally {
    db.close()
  }
})
