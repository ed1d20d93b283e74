import Database from "better-sqlite3"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import * as acp from "@agentclientprotocol/sdk/unstable"
import { expect, test } from "vitest"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { acpSuite, chunks, initialize, ofKind, protocolOnly, startEditor, toolCallShown, type Editor } from "./harness"

const m = acp.methods
const suite = acpSuite()

function project(permission?: Record<string, unknown>, extra: Record<string, unknown> = {}): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(suite.llm, "openai-chat"), ...(permission ? { permission } : {}), ...extra })
  return box
}

async function editorFor(box: Sandbox) {
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor)
  return editor
}

async function newSession(editor: Editor, box: Sandbox) {
  return editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
}

const prompt = (editor: Editor, sessionId: string, content: acp.ContentBlock[] | string) =>
  editor.agent.request(m.agent.session.prompt, { sessionId, prompt: typeof content === "string" ? [{ type: "text", text: content }] : content })

test("acp - initialize names wright and its capabilities; session/new offers the primary agents as modes", async () => {
  const box = project()
  const editor = await startEditor(box)
  suite.track(editor)
  const init = await initialize(editor)
  expect(init.protocolVersion).toBe(1)
  expect(init.agentInfo).toMatchObject({ name: "wright", version: expect.stringMatching(/^\d+\.\d+\.\d+/) })
  expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { embeddedContext: true, image: true } })

  const session = await newSession(editor, box)
  expect(session.sessionId).toMatch(/^ses_/)
  expect(session.modes?.currentModeId).toBe("build")
  expect(session.modes?.availableModes.map((x) => x.id).sort()).toEqual(["build", "plan"])

  await expect(editor.agent.request(m.agent.session.new, { cwd: "relative/dir", mcpServers: [] })).rejects.toThrow(/cwd: must be an absolute path/)
  await expect(prompt(editor, "ses_nope", "hi")).rejects.toThrow(/Unknown session ses_nope/)
  expect(await editor.close()).toBe(0)
  expect(protocolOnly(editor.stdout())).toBe(true)
})

test("acp - a prompt streams text, reasoning, a read and a bash call that asks permission, and ends the turn", async () => {
  const box = project({ bash: "ask" })
  writeFileSync(path.join(box.project, "notes.txt"), "hello from the notes\n")
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script(
    toolCall("read", { filePath: "notes.txt" }, { text: "Let me read the notes." }),
    toolCall("bash", { command: "echo ran > out.txt && cat out.txt", description: "Write out.txt" }),
    text("All done: notes read, out.txt written.", { reasoning: "The user wants the notes." }),
  )

  const result = await prompt(editor, sessionId, "read the notes and write out.txt")
  expect(result.stopReason).toBe("end_turn")
  expect(readFileSync(path.join(box.project, "out.txt"), "utf8")).toBe("ran\n")
  expect(editor.updates.every((u) => u.sessionId === sessionId)).toBe(true)
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("Let me read the notes.All done: notes read, out.txt written.")
  expect(chunks(editor.updates, "agent_thought_chunk")).toBe("The user wants the notes.")

  const calls = ofKind(editor.updates, "tool_call")
  // Each call ends up shown the way its tool summarised it, paths made absolute for the editor.
  expect(calls.map((c) => toolCallShown(editor.updates, c.toolCallId))).toEqual([
    { title: "Read notes.txt", kind: "read", locations: [{ path: path.join(box.project, "notes.txt") }] },
    { title: "$ echo ran > out.txt && cat out.txt", kind: "execute", locations: [] },
  ])
  const [read, bash] = calls
  const finals = ofKind(editor.updates, "tool_call_update").filter((u) => u.status === "completed")
  expect(finals.map((u) => u.toolCallId)).toEqual([read!.toolCallId, bash!.toolCallId])
  const readUpdates = ofKind(editor.updates, "tool_call_update").filter((u) => u.toolCallId === read!.toolCallId)
  expect(readUpdates.some((u) => u.locations?.some((l) => l.path === path.join(box.project, "notes.txt")))).toBe(true)
  expect(JSON.stringify(finals[0]!.content)).toContain("hello from the notes")
  expect(JSON.stringify(finals[1]!.content)).toContain("ran")

  // Only bash asked, after the editor had seen its tool call, with the three choices.
  expect(editor.permissions).toHaveLength(1)
  const ask = editor.permissions[0]!
  expect(ask.sessionId).toBe(sessionId)
  expect(ask.toolCall).toMatchObject({ toolCallId: bash!.toolCallId, kind: "execute", title: "Run echo ran > out.txt && cat out.txt" })
  expect(ask.options.map((o) => [o.optionId, o.kind])).toEqual([
    ["once", "allow_once"],
    ["always", "allow_always"],
    ["reject", "reject_once"],
  ])
  const bashShownAt = editor.updates.findIndex((u) => u.update.sessionUpdate === "tool_call" && u.update.toolCallId === bash!.toolCallId)
  expect(bashShownAt).toBeGreaterThanOrEqual(0)
  expect(bashShownAt).toBeLessThan(editor.permissionAt[0]!)

  // Nobody can answer the question tool in an editor: the model is not offered it.
  const tools = (suite.llm.requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name)
  expect(tools).toContain("read")
  expect(tools).not.toContain("question")
})

test("acp - an edit is asked with its diff; rejecting it leaves the file alone and fails the call", async () => {
  const box = project({ edit: "ask" })
  const file = path.join(box.project, "app.ts")
  writeFileSync(file, "const a = 1\nconst b = 2\n")
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script(toolCall("edit", { filePath: "app.ts", oldString: "const b = 2", newString: "const b = 3" }), text("Fine, I left it."))
  editor.answer = "reject"

  const result = await prompt(editor, sessionId, "bump b")
  expect(result.stopReason).toBe("end_turn")
  expect(readFileSync(file, "utf8")).toBe("const a = 1\nconst b = 2\n")
  const ask = editor.permissions[0]!
  expect(ask.toolCall.kind).toBe("edit")
  expect(ask.toolCall.locations).toEqual([{ path: file }])
  const diff = ask.toolCall.content?.find((c) => c.type === "diff")
  expect(diff).toMatchObject({ type: "diff", path: file })
  expect(diff && "oldText" in diff ? diff.oldText : "").toContain("const b = 2")
  expect(diff && "newText" in diff ? diff.newText : "").toContain("const b = 3")
  const failed = ofKind(editor.updates, "tool_call_update").filter((u) => u.status === "failed")
  expect(failed).toHaveLength(1)
})

test("acp - an allowed edit ends as a diff of the file", async () => {
  const box = project()
  const file = path.join(box.project, "app.ts")
  writeFileSync(file, "const a = 1\nconst b = 2\n")
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script(toolCall("edit", { filePath: "app.ts", oldString: "const b = 2", newString: "const b = 3" }), text("Bumped."))

  expect((await prompt(editor, sessionId, "bump b")).stopReason).toBe("end_turn")
  expect(readFileSync(file, "utf8")).toBe("const a = 1\nconst b = 3\n")
  const call = ofKind(editor.updates, "tool_call")[0]!
  // The call is announced while its arguments stream; its summary names it and the file once they are complete.
  const running = ofKind(editor.updates, "tool_call_update").find((u) => u.status === "in_progress")!
  expect(running).toMatchObject({ toolCallId: call.toolCallId, title: "Edit app.ts", kind: "edit", locations: [{ path: file }] })
  const done = ofKind(editor.updates, "tool_call_update").find((u) => u.status === "completed")!
  expect(done.content).toContainEqual({ type: "diff", path: file, oldText: "const a = 1\nconst b = 2", newText: "const a = 1\nconst b = 3" })
  // Once made, the edit's summary names the line it changed, so the editor can jump there.
  expect(toolCallShown(editor.updates, call.toolCallId)).toEqual({ title: "Edit app.ts", kind: "edit", locations: [{ path: file, line: 2 }] })
})

test("acp - session/cancel mid-stream ends the turn as cancelled, and the session takes the next prompt", async () => {
  const box = project()
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script({ text: ["Working on it", " slowly"], hang: 3 })

  const turn = prompt(editor, sessionId, "take your time")
  await editor.waitFor((u) => chunks(u, "agent_message_chunk").includes("Working on it"))
  await editor.agent.notify(m.agent.session.cancel, { sessionId })
  expect((await turn).stopReason).toBe("cancelled")
  // The model request was aborted, not left hanging.
  for (const end = Date.now() + 10_000; suite.llm.inFlight() > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  expect(suite.llm.inFlight()).toBe(0)

  suite.llm.script(text("Back again."))
  expect((await prompt(editor, sessionId, "again")).stopReason).toBe("end_turn")
  expect(chunks(editor.updates, "agent_message_chunk")).toContain("Back again.")
})

test("acp - session/cancel while a permission dialog is open withdraws it and does not run the tool", async () => {
  const box = project({ bash: "ask" })
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script(toolCall("bash", { command: "echo no > never.txt", description: "Should not run" }))
  editor.answer = "hold"

  const turn = prompt(editor, sessionId, "run it")
  await editor.waitFor(() => editor.permissions.length === 1)
  await editor.agent.notify(m.agent.session.cancel, { sessionId })
  expect((await turn).stopReason).toBe("cancelled")
  await editor.waitFor(() => editor.withdrawn === 1)
  expect(existsSync(path.join(box.project, "never.txt"))).toBe(false)
  const call = ofKind(editor.updates, "tool_call")[0]!
  await editor.waitFor((u) => ofKind(u, "tool_call_update").some((x) => x.toolCallId === call.toolCallId && x.status === "failed"))
})

test("acp - session/load replays a stored session; session/list finds it", async () => {
  const box = project()
  writeFileSync(path.join(box.project, "notes.txt"), "stored notes\n")
  const first = await editorFor(box)
  const { sessionId } = await newSession(first, box)
  suite.llm.script(toolCall("read", { filePath: "notes.txt" }), text("The notes say: stored notes."))
  expect((await prompt(first, sessionId, "what do the notes say?")).stopReason).toBe("end_turn")
  expect(await first.close()).toBe(0)
  suite.untrack(first)

  const second = await editorFor(box)
  const listed = await second.agent.request(m.agent.session.list, { cwd: box.project })
  expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId)
  const loaded = await second.agent.request(m.agent.session.load, { sessionId, cwd: box.project, mcpServers: [] })
  expect(loaded?.modes?.currentModeId).toBe("build")
  // The replay arrives before the answer to session/load.
  expect(chunks(second.updates, "user_message_chunk")).toBe("what do the notes say?")
  expect(chunks(second.updates, "agent_message_chunk")).toBe("The notes say: stored notes.")
  const calls = ofKind(second.updates, "tool_call")
  expect(calls).toHaveLength(1)
  expect(calls[0]).toMatchObject({ kind: "read", locations: [{ path: path.join(box.project, "notes.txt") }] })
  expect(ofKind(second.updates, "tool_call_update").at(-1)).toMatchObject({ toolCallId: calls[0]!.toolCallId, status: "completed" })
  const order = second.updates.map((u) => u.update.sessionUpdate).filter((k) => k !== "available_commands_update")
  expect(order.indexOf("user_message_chunk")).toBeLessThan(order.indexOf("tool_call"))

  // The loaded session goes on where it stopped.
  suite.llm.script(text("Still here."))
  expect((await prompt(second, sessionId, "and now?")).stopReason).toBe("end_turn")
  expect(JSON.stringify(suite.llm.requests.at(-1)!.body.messages)).toContain("stored notes")

  await expect(second.agent.request(m.agent.session.load, { sessionId: "ses_missing", cwd: box.project, mcpServers: [] })).rejects.toThrow(/NotFoundError/)
})

test("acp - session/set_mode switches the primary agent of the next prompt; an unknown mode is refused", async () => {
  const box = project()
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  await editor.agent.request(m.agent.session.setMode, { sessionId, modeId: "plan" })
  suite.llm.script(text("Here is the plan."))
  expect((await prompt(editor, sessionId, "plan it")).stopReason).toBe("end_turn")
  await expect(editor.agent.request(m.agent.session.setMode, { sessionId, modeId: "nope" })).rejects.toThrow(/modeId: no primary agent named "nope". Available: build, plan/)
  expect(await editor.close()).toBe(0)
  suite.untrack(editor)

  const db = new Database(box.dbPath, { readonly: true })
  const agents = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data).agent)
  db.close()
  expect(agents).toEqual(["plan", "plan"])
})

test("acp - resource links and embedded resources reach the model as file content", async () => {
  const box = project()
  writeFileSync(path.join(box.project, "linked.md"), "# linked file body\n")
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script(text("Seen both."))
  const result = await prompt(editor, sessionId, [
    { type: "text", text: "compare these" },
    { type: "resource_link", uri: pathToFileURL(path.join(box.project, "linked.md")).href, name: "linked.md" },
    { type: "resource", resource: { uri: "file:///elsewhere/embedded.txt", text: "embedded body text", mimeType: "text/plain" } },
  ])
  expect(result.stopReason).toBe("end_turn")
  const sent = JSON.stringify(suite.llm.requests[0]!.body.messages)
  expect(sent).toContain("compare these")
  expect(sent).toContain("# linked file body")
  expect(sent).toContain("embedded body text")
  expect(sent).toContain("file:///elsewhere/embedded.txt")
  expect(existsSync(path.join(box.project, "linked.md"))).toBe(true)

  await expect(prompt(editor, sessionId, [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }])).rejects.toThrow(/prompt\[0\]: audio content is not supported/)
})

test("acp - the project's slash commands are offered, and /name runs the command", async () => {
  const box = project(undefined, { command: { greet: { template: "Say a warm hello to $ARGUMENTS.", description: "greet someone" } } })
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  // Typed at once, before the command list has been announced.
  suite.llm.script(text("Hello, Ada!"))
  expect((await prompt(editor, sessionId, "/greet Ada")).stopReason).toBe("end_turn")
  expect(JSON.stringify(suite.llm.requests[0]!.body.messages)).toContain("Say a warm hello to Ada.")
  const offered = ofKind(editor.updates, "available_commands_update")[0]!.availableCommands
  expect(offered).toContainEqual({ name: "greet", description: "greet someone", input: { hint: "$ARGUMENTS" } })
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("Hello, Ada!")
})

test("acp - a provider failure answers the prompt with a JSON-RPC error that names it", async () => {
  const box = project()
  const editor = await editorFor(box)
  const { sessionId } = await newSession(editor, box)
  suite.llm.script({ error: { status: 401, body: { error: { message: "invalid api key", type: "invalid_request_error" } } } })
  const failure = await prompt(editor, sessionId, "hi").then(
    () => undefined,
    (e: acp.RequestError) => e,
  )
  expect(failure?.code).toBe(-32603)
  expect(failure?.message).toMatch(/^ProviderAuthError: invalid api key/)
  expect(failure?.data).toMatchObject({ name: "ProviderAuthError" })
  // The session is usable again right away.
  suite.llm.script(text("Recovered."))
  expect((await prompt(editor, sessionId, "again")).stopReason).toBe("end_turn")
})
