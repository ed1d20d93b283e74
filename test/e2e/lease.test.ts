// One session, one writer, with real wright processes over one database file: the TUI and
// `run -c` at once, two `serve` instances driven by the official SDK, and a holder that
// stalls (SIGSTOP) and then dies (SIGKILL). After each: no step closed while its holder
// lived, no part lost, no two steps interleaved. The BUILT binary, the scripted llm-server.
import Database from "better-sqlite3"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, storedParts, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { Tmux } from "../tui/tmux"
import { startServe, stopServe, type Served } from "./serve-helpers"

// The TUI case drives wright in tmux; without tmux it is skipped, saying so.
const noTmux = requires("tmux")

vi.setConfig({ testTimeout: 150_000 })

let llm: LLMServer
const panes: Tmux[] = []
const served: Served[] = []
beforeAll(async () => {
  // Not strict: session titles and other background calls get a plain answer.
  llm = await startLLMServer({ strict: false })
})
afterEach(async () => {
  for (const p of panes.splice(0)) p.kill()
  for (const s of served.splice(0)) {
    if (s.signalCode === "SIGSTOP" || s.exitCode === null) s.kill("SIGCONT")
    await stopServe(s).catch(() => {})
  }
  llm.reset()
})
afterAll(() => llm.close())

interface Row {
  id: string
  role: string
  error?: { name: string }
  time: { created: number; completed?: number }
}

/** The database as a third process sees it. */
function read(box: Sandbox) {
  const db = new Database(box.dbPath, { readonly: true, fileMustExist: true })
  try {
    const rows = (sql: string) => (db.prepare(sql).all() as { data: string }[]).map((r) => JSON.parse(r.data))
    return { messages: rows("SELECT data FROM message ORDER BY id") as Row[], parts: storedParts(db) }
  } finally {
    db.close()
  }
}

const textOf = (s: ReturnType<typeof read>, messageID: string) =>
  s.parts
    .filter((p) => p.messageID === messageID && p.type === "text" && !p.synthetic)
    .map((p) => p.text)
    .join("")

/** Steps never overlap: each assistant message starts after the one before it ended. */
function expectSerial(messages: Row[]) {
  const steps = messages.filter((m) => m.role === "assistant")
  for (const s of steps) expect(s.time.completed).toBeGreaterThan(0)
  for (let i = 1; i < steps.length; i++) expect(steps[i]!.time.created).toBeGreaterThanOrEqual(steps[i - 1]!.time.completed!)
}

async function until(pred: () => boolean, what: string, ms = 30_000) {
  const start = Date.now()
  for (;;) {
    let ok = false
    try {
      ok = pred()
    } catch {
      ok = false
    }
    if (ok) return
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  return box
}

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `)

test.skipIf(noTmux)("lease - while the TUI runs a step, run -c says the session is busy and exits 1; afterwards the TUI follows run's step read-only", async () => {
  const box = project()
  const tuiAnswer = words(150, "t")
  const runAnswer = words(60, "r")
  // Each answer holds after a few words until the test has seen what it checks while the step
  // runs (fixed 12 s and 3.6 s streams raced cold starts and the TUI's follower on a loaded machine).
  let tuiGo!: () => void
  let runGo!: () => void
  llm.script({ text: tuiAnswer, delayMs: 20, gate: { after: 10, open: new Promise<void>((r) => (tuiGo = r)) } })
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await pane.waitFor("tab agents")
  pane.type("a long answer please")
  pane.keys("Enter")
  await pane.waitFor("t5 ")

  const refused = await wright(["run", "-c", "me too"], { cwd: box.project, env: box.env })
  expect(refused.code).toBe(1)
  expect(refused.stderr).toMatch(/Session busy:.* is running in another wright process \(pid \d+/)
  expect(refused.stderr).toContain("--attach")
  // The refused run wrote nothing: still one user message and the TUI's open step.
  const during = read(box)
  expect(during.messages.map((m) => m.role)).toEqual(["user", "assistant"])
  expect(during.messages[1]!.time.completed).toBeUndefined()
  expect(during.messages[1]!.error).toBeUndefined()
  tuiGo()

  await pane.waitFor("t149", { timeoutMs: 60_000 })
  await pane.waitFor("tab agents")
  // Now run -c takes the idle session; the TUI follows its step as it streams, read-only.
  llm.script({ text: runAnswer, delayMs: 20, gate: { after: 10, open: new Promise<void>((r) => (runGo = r)) } })
  const running = wright(["run", "-c", "now you"], { cwd: box.project, env: box.env })
  await pane.waitFor("read-only", { timeoutMs: 60_000 })
  pane.type("may I?")
  pane.keys("Enter")
  await pane.waitFor("Read-only: this session is running in another wright process")
  runGo()
  const ran = await running
  expect(ran.code).toBe(0)
  expect(ran.stdout).toContain("r59")
  // The TUI shows run's whole answer once it ends, and takes prompts again.
  await pane.waitFor("r59", { timeoutMs: 30_000 })
  await pane.waitFor("tab agents")

  const after = read(box)
  expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"])
  for (const m of after.messages) expect(m.error).toBeUndefined()
  expect(textOf(after, after.messages[1]!.id)).toBe(tuiAnswer.join(""))
  expect(textOf(after, after.messages[3]!.id)).toBe(runAnswer.join(""))
  expectSerial(after.messages)
  // The refused prompt was never sent anywhere.
  expect(llm.requests.map((r) => JSON.stringify(r.body)).join("\n")).not.toContain("may I?")
})

test("lease - two serve instances over one WRIGHT_DB: official SDK prompts to one session from both run one after the other", async () => {
  const box = project()
  const env = { WRIGHT_DB: box.dbPath }
  const [a, b] = await Promise.all([startServe(box, [], env), startServe(box, [], env)])
  served.push(a, b)
  const ca = createOpencodeClient({ baseUrl: a.url, directory: box.project })
  const cb = createOpencodeClient({ baseUrl: b.url, directory: box.project })
  const session = (await ca.session.create({ title: "shared" })).data!
  // B's event stream follows the step A runs.
  const controller = new AbortController()
  const seenOnB: any[] = []
  const stream = (await cb.event.subscribe(undefined, { signal: controller.signal })).stream as AsyncIterable<any>
  const pump = (async () => {
    try {
      for await (const e of stream) seenOnB.push(e)
    } catch {
      // aborted
    }
  })()
  await until(() => seenOnB.some((e) => e.type === "server.connected"), "B's event stream")

  const first = words(40, "a")
  // A's step holds after a few words until B reports the session busy: B's clients see it stream
  // (a fixed 1.6 s stream could end before B's follower ever saw it open).
  let aGo!: () => void
  llm.script({ text: first, delayMs: 40, gate: { after: 10, open: new Promise<void>((r) => (aGo = r)) } }, text("The answer from B."))
  const fromA = ca.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "question for A" }] })
  await until(() => llm.inFlight() === 1, "A's request at the model")
  const fromB = cb.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "question for B" }] })
  await until(() => seenOnB.some((e) => e.type === "session.status" && e.properties.sessionID === session.id && e.properties.status.type === "busy"), "B to report the session busy")
  aGo()
  const [ra, rb] = await Promise.all([fromA, fromB])
  expect(ra.error).toBeUndefined()
  expect(rb.error).toBeUndefined()
  controller.abort()
  await pump

  const main = llm.requests.filter((r) => JSON.stringify(r.body).includes("question for"))
  expect(main).toHaveLength(2)
  // B's step ran after A's and saw A's whole answer.
  const second = JSON.stringify(main[1]!.body.messages)
  expect(second).toContain("question for A")
  expect(second).toContain(first.join(""))
  expect(second).toContain("question for B")

  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"])
  for (const m of s.messages) expect(m.error).toBeUndefined()
  expect(textOf(s, s.messages[1]!.id)).toBe(first.join(""))
  expect(textOf(s, s.messages[3]!.id)).toBe("The answer from B.")
  expectSerial(s.messages)
  // A's step reached B's SSE clients as it streamed, and B said who ran it.
  const followed = seenOnB.filter((e) => e.type === "message.part.updated" && e.properties.part.messageID === s.messages[1]!.id && e.properties.part.type === "text")
  expect(followed.length).toBeGreaterThan(1)
  expect(seenOnB.some((e) => e.type === "session.status" && e.properties.status.holder?.pid === a.pid)).toBe(true)
})

test("lease - a stalled holder keeps its session until the stale time; then run -c takes over, and a SIGKILL loses nothing persisted", async () => {
  const box = project()
  const a = await startServe(box)
  served.push(a)
  const ca = createOpencodeClient({ baseUrl: a.url, directory: box.project })
  const session = (await ca.session.create({ title: "stalls" })).data!
  const streamed = words(300, "s")
  // 20 words, then the stream hangs: the step stays open.
  llm.script({ text: streamed, hang: 20 })
  void ca.session.promptAsync({ sessionID: session.id, parts: [{ type: "text", text: "start and stall" }] })
  await until(() => textOf(read(box), read(box).messages[1]?.id ?? "").includes("s5 "), "the first words on disk")

  // Stalled: alive, but no heartbeat. At first the session stays its.
  a.kill("SIGSTOP")
  const stoppedAt = Date.now()
  const early = await wright(["run", "-c", "too early"], { cwd: box.project, env: box.env })
  if (Date.now() - stoppedAt < 4000) {
    expect(early.code).toBe(1)
    expect(early.stderr).toContain("Session busy:")
    expect(read(box).messages[1]!.time.completed).toBeUndefined()
  }
  // After the stale time (5 s) the lease is taken over, and only then is the step closed.
  await until(() => Date.now() - stoppedAt > 6000, "the stale time", 10_000)
  const before = read(box)
  const persisted = textOf(before, before.messages[1]!.id)
  llm.script(text("Taken over."))
  const late = await wright(["run", "-c", "your turn"], { cwd: box.project, env: box.env })
  expect(late.stderr).not.toMatch(/Error:/)
  expect(late.code).toBe(0)
  expect(late.stdout).toContain("Taken over.")
  a.kill("SIGKILL")

  const s = read(box)
  const roles = s.messages.map((m) => m.role)
  expect(roles.slice(-2)).toEqual(["user", "assistant"])
  const cut = s.messages[1]!
  expect(cut.error?.name).toBe("MessageAbortedError")
  // Nothing persisted before the stall was lost.
  expect(textOf(s, cut.id)).toBe(persisted)
  expect(persisted.startsWith(streamed.slice(0, 6).join(""))).toBe(true)
  expect(streamed.join("").startsWith(persisted)).toBe(true)
  expect(s.messages.at(-1)!.error).toBeUndefined()
  expectSerial(s.messages)
})

test("lease - a serve holder killed with SIGKILL mid-step: its pid is gone, so run -c takes over at once and loses nothing persisted", async () => {
  const box = project()
  const a = await startServe(box)
  served.push(a)
  const ca = createOpencodeClient({ baseUrl: a.url, directory: box.project })
  const session = (await ca.session.create({ title: "killed" })).data!
  const streamed = words(300, "k")
  // 40 events, then the stream hangs: the step is still open when it is killed, however slow the machine.
  llm.script({ text: streamed, delayMs: 20, hang: 40 })
  void ca.session.promptAsync({ sessionID: session.id, parts: [{ type: "text", text: "start, then die" }] })
  await until(() => textOf(read(box), read(box).messages[1]?.id ?? "").includes("k10 "), "the first words on disk")
  const exited = new Promise((r) => a.once("exit", r))
  a.kill("SIGKILL")
  await exited
  const before = read(box)
  const persisted = textOf(before, before.messages[1]!.id)
  expect(before.messages[1]!.time.completed).toBeUndefined()

  llm.script(text("Picked up."))
  const r = await wright(["run", "-c", "go on"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:|Session busy/)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Picked up.")
  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"])
  expect(s.messages[1]!.error?.name).toBe("MessageAbortedError")
  expect(textOf(s, s.messages[1]!.id)).toBe(persisted)
  expect(streamed.join("").startsWith(persisted)).toBe(true)
  expect(s.messages[3]!.error).toBeUndefined()
  expectSerial(s.messages)
})
