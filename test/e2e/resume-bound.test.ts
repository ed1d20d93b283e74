// Resume after a crash, bounded and seen: a session that crashed three times in a row is not
// resumed again and says so (run, serve, the TUI); the TUI opening a crashed session carries
// it on; a user's own !cmd is never resumed into a model call. Real processes, the BUILT binary.
import Database from "better-sqlite3"
import { afterEach, expect, test, vi } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { BIN, finished, useLLMServer, wright } from "../lib/e2e"
import { requires } from "../lib/requires"
import { Tmux } from "../tui/tmux"
import { startServe, stopServe, type Served } from "./serve-helpers"
import { NOTE, crash, expectNoDuplicates, project, read, textOf, toolResultSent, until, words } from "./resume-helpers"

// The TUI parts drive wright in tmux; without tmux they are skipped, saying so.
const noTmux = requires("tmux")

vi.setConfig({ testTimeout: 60_000 })

const llm = useLLMServer()
const served: Served[] = []
const panes: Tmux[] = []
afterEach(async () => {
  for (const p of panes.splice(0)) p.kill()
  for (const s of served.splice(0)) await stopServe(s).catch(() => {})
})

test("resume - a session that crashed three times in a row is not resumed again and says so; a new message carries on", async () => {
  const box = project(llm)
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
  const box = project(llm)
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
  const box = project(llm)
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
