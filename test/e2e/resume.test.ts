// Resume after a crash, with real processes: the BUILT binary is SIGKILLed in the middle of a
// tool call and in the middle of a streamed answer; then `run --resume`, `run -c` with no
// message, or `serve` at its start carries the session on. The stored messages and parts (read
// from the database as a third process) must hold every part once, and the model's next
// request the interruption note. The bound and the TUI: resume-bound.test.ts.
import { existsSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test, vi } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { useLLMServer, wright } from "../lib/e2e"
import { startServe, stopServe, type Served } from "./serve-helpers"
import { NOTE, crash, expectNoDuplicates, project, read, textOf, toolResultSent, until, words } from "./resume-helpers"

vi.setConfig({ testTimeout: 60_000 })

const llm = useLLMServer()
const served: Served[] = []
afterEach(async () => {
  for (const s of served.splice(0)) await stopServe(s).catch(() => {})
})

test("resume - SIGKILL while a bash call runs: run --resume fails the call with a note, the model reads it, and the task finishes", async () => {
  const box = project(llm)
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
  const box = project(llm)
  const streamed = words(300, "w")
  // 150 events, then the stream hangs: the kill comes mid-answer however slow the machine (a 3 s
  // stream could end before a loaded machine saw w30 on disk).
  llm.script({ text: streamed, delayMs: 10, hang: 150 })
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
  const box = project(llm)
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
  const box = project(llm)
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

test("resume - run --resume names its flag on bad input", async () => {
  const box = project(llm)
  const unknown = await wright(["run", "--resume", "ses_nope"], { cwd: box.project, env: box.env })
  expect(unknown.code).toBe(1)
  expect(unknown.stderr).toContain("--resume: no session with id ses_nope")
  const withMessage = await wright(["run", "--resume", "ses_nope", "do more"], { cwd: box.project, env: box.env })
  expect(withMessage.code).toBe(1)
  expect(withMessage.stderr).toContain('--resume: takes no message; to send one, use --session ses_nope "…"')
  expect(llm.requests).toHaveLength(0)
})

test("resume - a serve showing a session that another process runs carries it on when that process is killed", async () => {
  const box = project(llm)
  const a = await startServe(box)
  served.push(a)
  const { createClient } = await import("../../src/sdk")
  const client = createClient({ baseUrl: a.url, directory: box.project })
  const session = await client.session.create({})
  // A client of the server looks at the session: it is loaded there, and followed.
  expect(await client.session.messages(session.id)).toEqual([])

  llm.script({ text: words(100, "r"), hang: 20 })
  await crash(box, ["run", "--session", session.id, "go"], (s) => textOf(s, s.messages[1]?.id ?? "").includes("r5 "), "streamed text on disk")
  const persisted = textOf(read(box), read(box).messages[1].id)

  llm.script(text("Carried on by the server."))
  await until(() => read(box).messages.some((m) => m.role === "assistant" && m.finish === "stop"), "the server's resumed answer on disk")
  expect(llm.requests).toHaveLength(2)
  const s = read(box)
  expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
  expect(textOf(s, s.messages[1].id)).toBe(persisted)
  expect(textOf(s, s.messages[2].id)).toBe("Carried on by the server.")
  expectNoDuplicates(s)
})
