// The one tool-call pipeline, seen from outside: a real App, real temp dirs and SQLite, the
// model faked at the wire. Recording hooks on the App's before/after points show which calls
// pass through them, and rewriting hooks change what the tool gets and what the model reads.
import { existsSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import type { ToolPart } from "../../src/protocol"
import { startLLMServer, text, toolCall, type LLMServer, type RecordedRequest } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

/** The tool results a request sent back to the model (OpenAI chat: `role: "tool"` messages). */
function toolResults(req: RecordedRequest): string[] {
  return req.body.messages.filter((m: { role: string }) => m.role === "tool").map((m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
}

function toolParts(core: TestCore, sessionID: string): ToolPart[] {
  return core.app.sessions.messages(sessionID).flatMap((m) => m.parts.filter((p): p is ToolPart => p.type === "tool"))
}

test("pipeline - a model call, the user's shell, a subtask and a file mention all pass the before and after points", async () => {
  const core = await testCore({ llm, files: { "notes.txt": "the notes\n" } })
  const before: string[] = []
  const after: string[] = []
  core.app.toolHooks.beforeExecute.push((call) => void before.push(`${call.origin}:${call.tool}`))
  core.app.toolHooks.afterFinalize.push((call, result) => void after.push(`${call.origin}:${call.tool}:${result.status}`))
  const session = await core.client.session.create()

  llm.script(toolCall("read", { filePath: "notes.txt" }), text("read it"))
  await core.client.session.prompt(session.id, prompt("read the notes"))

  await core.client.session.shell(session.id, { command: "echo from the user" })

  // The subtask's child session answers at once; then the parent model speaks.
  llm.script(text("child answer"), text("parent answer"))
  await core.client.session.prompt(session.id, { parts: [{ type: "subtask", prompt: "look around", description: "Look around", agent: "general" }] })

  llm.script(text("seen the file"))
  const file = path.join(core.box.project, "notes.txt")
  await core.client.session.prompt(session.id, { parts: [{ type: "text", text: "see attached" }, { type: "file", mime: "text/plain", url: pathToFileURL(file).href, filename: "notes.txt" }] })

  expect(before).toEqual(["model:read", "shell:bash", "subtask:task", "mention:read"])
  expect(after).toEqual(["model:read:completed", "shell:bash:completed", "subtask:task:completed", "mention:read:completed"])
  // The mention's read output reached the model inlined in the user's message.
  expect(JSON.stringify(llm.requests.at(-1)!.body.messages.at(-1))).toContain("the notes")
  await core.close()
})

test("pipeline - a call blocked before execute is an error the model reads, the tool never runs, and the loop goes on", async () => {
  const core = await testCore({ llm })
  core.app.toolHooks.beforeExecute.push((call) => (call.tool === "bash" ? { block: true, reason: "bash is switched off by policy" } : undefined))
  llm.script(toolCall("bash", { command: "touch made.txt", description: "Make a file" }), text("understood"))
  const session = await core.client.session.create()
  const answer = await core.client.session.prompt(session.id, prompt("make a file"))

  expect(answer.parts.some((p) => p.type === "text" && p.text === "understood")).toBe(true)
  expect(existsSync(path.join(core.box.project, "made.txt"))).toBe(false)
  expect(toolResults(llm.requests[1]!)).toEqual(["bash is switched off by policy"])
  const [part] = toolParts(core, session.id)
  expect(part!.state.status === "error" && part!.state.error).toBe("bash is switched off by policy")
  await core.close()
})

test("pipeline - beforeExecute rewriting the arguments changes what the tool got", async () => {
  const core = await testCore({ llm, files: { "asked.txt": "ASKED CONTENT\n", "other.txt": "OTHER CONTENT\n" } })
  core.app.toolHooks.beforeExecute.push((call) => (call.tool === "read" ? { args: { ...call.args, filePath: "other.txt" } } : undefined))
  llm.script(toolCall("read", { filePath: "asked.txt" }), text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("read asked.txt"))

  const [result] = toolResults(llm.requests[1]!)
  expect(result).toContain("OTHER CONTENT")
  expect(result).not.toContain("ASKED CONTENT")
  // The call is recorded as the model made it.
  expect(toolParts(core, session.id)[0]!.state.input).toEqual({ filePath: "asked.txt" })
  await core.close()
})

test("pipeline - afterFinalize rewriting the output changes what the model reads on the next step", async () => {
  const core = await testCore({ llm, files: { "secret.txt": "password=hunter2\n" } })
  core.app.toolHooks.afterFinalize.push((call) => (call.tool === "read" ? { output: "[withheld by policy]" } : undefined))
  llm.script(toolCall("read", { filePath: "secret.txt" }), text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("read secret.txt"))

  expect(toolResults(llm.requests[1]!)).toEqual(["[withheld by policy]"])
  const [part] = toolParts(core, session.id)
  expect(part!.state.status === "completed" && part!.state.output).toBe("[withheld by policy]")
  await core.close()
})

test("pipeline - a hook that throws fails the call with its message instead of the turn", async () => {
  const core = await testCore({ llm, files: { "a.txt": "A\n" } })
  core.app.toolHooks.beforeExecute.push(() => {
    throw new Error("the policy service is down")
  })
  llm.script(toolCall("read", { filePath: "a.txt" }), text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("read a.txt"))

  expect(toolResults(llm.requests[1]!)).toEqual(["the policy service is down"])
  await core.close()
})

test("pipeline - every state a call goes through carries its summary for front ends", async () => {
  const core = await testCore({ llm, files: { "a.txt": "A\n" } })
  llm.script(toolCall("read", { filePath: "a.txt" }), text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("read a.txt"))

  const states = core.events.flatMap((e) => (e.type === "message.part.updated" && e.properties.part.type === "tool" ? [e.properties.part.state] : []))
  const settled = states.filter((s) => s.status === "running" || s.status === "completed")
  expect(settled.map((s) => s.status)).toEqual(expect.arrayContaining(["running", "completed"]))
  for (const s of settled) {
    const summary = "metadata" in s ? (s.metadata?.summary as { title?: unknown; kind?: unknown } | undefined) : undefined
    expect(typeof summary?.title).toBe("string")
    expect(typeof summary?.kind).toBe("string")
    // A running call the tool has not titled yet shows the summary's title.
    if (s.status === "running") expect(s.title).toBeTruthy()
  }
  await core.close()
})
