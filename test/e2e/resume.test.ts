// Resume after a crash, with real processes: the BUILT binary is SIGKILLed in the middle of a
// tool call and in the middle of a streamed answer; then `run --resume`, `run -c` with no
// message, or `serve` at its start carries the session on. The stored messages and parts (read
// from the database as a third process) must hold every part once, the model's next request the
// interruption note, and a session that crashed three times in a row must stop and say so.
import Database from "better-sqlite3"
import { existsSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test, vi } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { BIN, finished, providerConfig, sandbox, spawnWright, storedParts, useLLMServer, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { requires } from "../lib/requires"
import { Tmux } from "../tui/tmux"
import { startServe, stopServe, type Served } from "./serve-helpers"

// The TUI case drives wright in tmux; without tmux it is skipped, saying so.
const noTmux = requires("tmux")

vi.setConfig({ testTimeout: 60_000 })

const llm = useLLMServer()
const served: Served[] = []
const panes: Tmux[] = []
afterEach(async () => {
  for (const p of panes.splice(0)) p.kill()
  for (const s of served.splice(0)) await stopServe(s).catch(() => {})
})

/** The crash note the model reads for a call that was running (session/tool-state.ts CRASHED). */
const NOTE = "interrupted: wright stopped while this ran"

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  return box
}

/** The database as a third process sees it. */
function read(box: Sandbox) {
  const db = new Database(box.dbPath, { readonly: true, fileMustExist: true })
  try {
    const rows = (sql: string) => (db.prepare(sql).all() as { data: string }[]).map((r) => JSON.parse(r.data))
    return { sessions: rows("SELECT data FROM session ORDER BY id"), messages: rows("SELECT data FROM message ORDER BY id"), parts: storedParts(db) }
  } finally {
    db.close()
  }
}

async function until(pred: () => boolean, what: string, ms = 20_000) {
  const start = Date.now()
  for (;;) {
    let ok = false
    try {
      ok = pred()
    } catch {
      ok = false // the database may not exist yet
    }
    if (ok) return
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `)
const textOf = (s: ReturnType<typeof read>, messageID: string) =>
  s.parts
    .filter((p) => p.messageID === messageID && p.type === "text" && !p.synthetic)
    .map((p) => p.text)
    .join("")

/** Starts `run`, waits until `ready` holds for the database, and kills it with SIGKILL. */
async function crash(box: Sandbox, args: string[], ready: (s: ReturnType<typeof read>) => boolean, what: string) {
  const child = spawnWright(args, { cwd: box.project, env: box.env })
  const exited = finished(child, 40_000)
  await until(() => ready(read(box)), what)
  child.kill("SIGKILL")
  expect((await exited).signal).toBe("SIGKILL")
}

/** Every part id is stored once, and every message has at most one step-start per step. */
function expectNoDuplicates(s: ReturnType<typeof read>) {
  const ids = s.parts.map((p) => p.id)
  expect(new Set(ids).size).toBe(ids.length)
  for (const m of s.messages.filter((m) => m.role === "assistant")) expect(s.parts.filter((p) => p.messageID === m.id && p.type === "step-start").length).toBeLessThanOrEqual(1)
}

/** The tool result the model was sent for `callID` (OpenAI Chat: a `tool` message). */
function toolResultSent(body: any, callID: string): string | undefined {
  const m = (body.messages as any[]).find((x) => x.role === "tool" && x.tool_call_id === callID)
  return m === undefined ? undefined : typeof m.content === "string" ? m.content : JSON.stringify(m.content)
}

test("resume - SIGKILL while a bash call runs: run --resume fails the call with a note, the model reads it, and the task finishes", async () => {
  const box = project()
  llm.script(toolCall("bash", { command: "echo started > started.txt && sleep 30 && echo late > late.txt", description: "Start and wait" }, { text: "Running it." }))
  const started = path.join(box.project, "started.txt")
  await crash(box, ["run", "start the long job"], (s) => existsSync(started) && s.parts.some((p) => p.type === "tool" && p.state.status === "running"), "the bash call running")
  const sessionID = read(box).sessions[0].id

  llm.script(text("The job was cut off; I checked and it is fine now."))
  const r = await wright(["run", "--resume", sessionID], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("The job was cut off")

  // The model's next request carried the call with the crash note as its result.
  expect(llm.requests).toHaveLength(2)
  const s = read(box)
  const tools = s.parts.filter((p) => p.type === "tool")
  expect(tools).toHaveLength(1)
  const call = tools[0]
  expect(call.state.status).toBe("error")
  expect(call.state.error).toContain(NOTE)
  expect(call.state.metadata.interrupted).toBe(true)
  expect(toolResultSent(llm.requests[1]!.body, call.callID)).toContain(NOTE)
  // The first step kept its text and call; the resumed step answered the same prompt once.
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
  expect(s.messages[1].error?.name).toBe("MessageAbortedError")
  expect(textOf(s, s.messages[1].id)).toBe("Running it.")
  expect(s.messages[2].parentID).toBe(s.messages[0].id)
  expect(s.messages[2].finish).toBe("stop")
  expect(s.messages[2].error).toBeUndefined()
  expect(textOf(s, s.messages[2].id)).toBe("The job was cut off; I checked and it is fine now.")
  const userTexts = (llm.requests[1]!.body.messages as any[]).filter((m) => m.role === "user")
  expect(userTexts).toHaveLength(1)
  expectNoDuplicates(s)

  // Resumed once: a second --resume finds nothing to do and asks the model nothing.
  const again = await wright(["run", "--resume", sessionID], { cwd: box.project, env: box.env })
  expect(again.code).toBe(0)
  expect(again.stderr).toContain("Nothing to resume")
  expect(llm.requests).toHaveLength(2)
})

test("resume - SIGKILL mid-answer: run --resume continues after the persisted text, which is kept once and sent back as it was", async () => {
  const box = project()
  const streamed = words(300, "w")
  llm.script({ text: streamed, delayMs: 10 })
  await crash(box, ["run", "tell me the long story"], (s) => textOf(s, s.messages[1]?.id ?? "").includes("w30 "), "streamed text on disk")
  const before = read(box)
  const persisted = textOf(before, before.messages[1].id)
  expect(streamed.join("").startsWith(persisted)).toBe(true)
  expect(persisted.length).toBeLessThan(streamed.join("").length)

  llm.script(text("...and that is the end of the story."))
  const r = await wright(["run", "--resume", before.sessions[0].id], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("the end of the story")

  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
  // The cut answer is exactly what was on disk at the kill: nothing lost, nothing added twice.
  expect(textOf(s, s.messages[1].id)).toBe(persisted)
  expect(s.messages[1].error?.name).toBe("MessageAbortedError")
  expect(textOf(s, s.messages[2].id)).toBe("...and that is the end of the story.")
  expectNoDuplicates(s)
  // The model saw the prompt once, then the partial answer, and was asked to go on.
  const sent = llm.requests[1]!.body.messages as any[]
  expect(sent.filter((m) => m.role === "user")).toHaveLength(1)
  const assistant = sent.filter((m) => m.role === "assistant")
  expect(assistant).toHaveLength(1)
  expect(typeof assistant[0].content === "string" ? assistant[0].content : JSON.stringify(assistant[0].content)).toContain(persisted.trim())
})

test("resume - serve at its start carries on a session a killed run left working", async () => {
  const box = project()
  llm.script(toolCall("bash", { command: "sleep 30", description: "Wait" }))
  await crash(box, ["run", "wait for it"], (s) => s.parts.some((p) => p.type === "tool" && p.state.status === "running"), "the bash call running")

  llm.script(text("Resumed by the server."))
  const a = await startServe(box)
  served.push(a)
  await until(() => read(box).messages.some((m) => m.role === "assistant" && m.finish === "stop"), "the resumed answer on disk")
  expect(a.output.stderr).toContain("Resumed after a crash")
  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
  expect(textOf(s, s.messages[2].id)).toBe("Resumed by the server.")
  const call = s.parts.find((p) => p.type === "tool")
  expect(toolResultSent(llm.requests[1]!.body, call.callID)).toContain(NOTE)
  expectNoDuplicates(s)
})

test("resume - two processes open a crashed session at once: exactly one resumes it", async () => {
  const box = project()
  llm.script({ text: words(100, "a"), hang: 30 })
  await crash(box, ["run", "start"], (s) => textOf(s, s.messages[1]?.id ?? "").includes("a5 "), "streamed text on disk")
  const sessionID = read(box).sessions[0].id

  // One slow answer: the winner is still running it when the other looks.
  llm.script({ text: words(40, "b"), delayMs: 25 })
  const [one, two] = await Promise.all([
    wright(["run", "--resume", sessionID], { cwd: box.project, env: box.env }),
    wright(["run", "-c"], { cwd: box.project, env: box.env }),
  ])
  // The loser either found it running elsewhere (exit 1, busy) or already resumed (nothing to do).
  const results = [one, two]
  const winners = results.filter((r) => r.stdout.includes("b39"))
  expect(winners).toHaveLength(1)
  expect(winners[0]!.code).toBe(0)
  const loser = results.find((r) => r !== winners[0])!
  expect(loser.stderr).toMatch(/Session busy|Nothing to resume|Nothing to do|running in another wright process/)
  expect(llm.requests).toHaveLength(2)
  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
  expectNoDuplicates(s)
})

test("resume - a session that crashed three times in a row is not resumed again and says so; a new message carries on", async () => {
  const box = project()
  const hanging = (tag: string) => ({ text: words(50, tag), hang: 8 })
  llm.script(hanging("x"))
  await crash(box, ["run", "start"], (s) => textOf(s, s.messages[1]?.id ?? "").includes("x3 "), "first step's text")
  const sessionID = read(box).sessions[0].id
  // Crash 2 and 3: each resume is killed mid-answer too.
  llm.script(hanging("y"))
  await crash(box, ["run", "--resume", sessionID], (s) => s.messages.length === 3 && textOf(s, s.messages[2].id).includes("y3 "), "second step's text")
  llm.script(hanging("z"))
  await crash(box, ["run", "--resume", sessionID], (s) => s.messages.length === 4 && textOf(s, s.messages[3].id).includes("z3 "), "third step's text")

  const stopped = await wright(["run", "--resume", sessionID], { cwd: box.project, env: box.env })
  expect(stopped.code).toBe(1)
  expect(stopped.stderr).toContain("Not resumed: wright stopped 3 times in a row")
  expect(stopped.stderr).toContain("Send a message to continue")
  expect(llm.requests).toHaveLength(3)
  const s = read(box)
  expect(s.messages.at(-1).error.data.message).toContain("Not resumed")
  // serve does not pick it up either.
  const a = await startServe(box)
  await stopServe(a)
  expect(a.output.stderr).not.toContain("Resumed after a crash")
  expect(llm.requests).toHaveLength(3)
  if (!noTmux) {
    // The TUI shows why on the cut step, and does not resume it.
    const pane = new Tmux()
    panes.push(pane)
    pane.start([process.execPath, BIN, "-c"], { cwd: box.project, env: box.env })
    await pane.waitFor("Send a message to continue", { timeoutMs: 30_000 })
    pane.kill()
    expect(llm.requests).toHaveLength(3)
  }

  // The user's message carries on, and a finished turn resets the count.
  llm.script(text("Back on track."))
  const r = await wright(["run", "--session", sessionID, "go on"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Back on track.")
  const sent = llm.requests[3]!.body.messages as any[]
  // Every cut answer is still in what the model sees.
  const said = JSON.stringify(sent.filter((m) => m.role === "assistant"))
  for (const tag of ["x0", "y0", "z0"]) expect(said).toContain(tag)
  const db = new Database(box.dbPath, { readonly: true })
  try {
    expect(db.prepare("SELECT count(*) AS n FROM session_crash").get()).toEqual({ n: 0 })
  } finally {
    db.close()
  }
})

test.skipIf(noTmux)("resume - the TUI opening a crashed session (-c) carries it on and shows the answer", async () => {
  const box = project()
  llm.script(toolCall("bash", { command: "sleep 30", description: "Wait" }, { text: "Waiting a while." }))
  await crash(box, ["run", "wait for it"], (s) => s.parts.some((p) => p.type === "tool" && p.state.status === "running"), "the bash call running")

  llm.script(text("Resumed in the TUI."))
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, "-c"], { cwd: box.project, env: box.env })
  await pane.waitFor("Resumed in the TUI.", { timeoutMs: 30_000 })
  await until(() => read(box).messages.some((m) => m.role === "assistant" && m.finish === "stop"), "the resumed answer on disk")
  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
  expect(textOf(s, s.messages[1].id)).toBe("Waiting a while.")
  const call = s.parts.find((p) => p.type === "tool")
  expect(toolResultSent(llm.requests[1]!.body, call.callID)).toContain(NOTE)
  expectNoDuplicates(s)
})

test("resume - a user's own !cmd cut off by a SIGKILL is closed with the note but not resumed: no model call", async () => {
  const box = project()
  const a = await startServe(box)
  const { createClient } = await import("../../src/sdk")
  const client = createClient({ baseUrl: a.url, directory: box.project })
  const session = await client.session.create({})
  void client.session.shell(session.id, { agent: "build", command: "sleep 30" }).catch(() => {})
  await until(() => read(box).parts.some((p) => p.type === "tool" && p.state.status === "running"), "the command running")
  const exited = finished(a, 20_000)
  a.kill("SIGKILL")
  await exited

  const r = await wright(["run", "--resume", session.id], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stderr).toContain("Nothing to resume")
  expect(llm.requests).toHaveLength(0)
  const call = read(box).parts.find((p) => p.type === "tool")
  expect(call.state.status).toBe("error")
  expect(call.state.error).toContain(NOTE)
})

test("resume - run --resume names its flag on bad input", async () => {
  const box = project()
  const unknown = await wright(["run", "--resume", "ses_nope"], { cwd: box.project, env: box.env })
  expect(unknown.code).toBe(1)
  expect(unknown.stderr).toContain("--resume: no session with id ses_nope")
  const withMessage = await wright(["run", "--resume", "ses_nope", "do more"], { cwd: box.project, env: box.env })
  expect(withMessage.code).toBe(1)
  expect(withMessage.stderr).toContain('--resume: takes no message; to send one, use --session ses_nope "…"')
  expect(llm.requests).toHaveLength(0)
})
