import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import { ApiError, type Client } from "../../src/sdk"
import { cleanupRevert } from "../../src/session"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { collect, startServer, type Harness } from "./harness"

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

async function conversation(client: Client, turns: string[]) {
  const s = await client.session.create({ title: "Refactor" })
  for (const t of turns) {
    llm.script(text(`answer to ${t}`))
    await client.session.prompt(s.id, { parts: [{ type: "text", text: t }] })
  }
  return { session: s, messages: await client.session.messages(s.id) }
}

const textOf = (m: { parts: { type: string }[] }) => m.parts.map((p) => (p.type === "text" ? (p as unknown as { text: string }).text : "")).join("")

test("fork - at a message copies the messages before it (as OpenCode does) into a new session with new ids", async () => {
  const { session, messages } = await conversation(h.client, ["one", "two"])
  // Forking at the second question lets the user ask it again differently.
  const forked = await h.client.session.fork(session.id, { messageID: messages[2]!.info.id })
  expect(forked.id).not.toBe(session.id)
  expect(forked.title).toBe("Refactor (fork #1)")
  expect(forked.parentID).toBeUndefined()

  const copied = await h.client.session.messages(forked.id)
  expect(copied.map((m) => m.info.role)).toEqual(["user", "assistant"])
  expect(copied.map(textOf)).toEqual(["one", "answer to one"])
  const originalIds = new Set(messages.flatMap((m) => [m.info.id, ...m.parts.map((p) => p.id)]))
  for (const m of copied) {
    expect(originalIds.has(m.info.id)).toBe(false)
    expect(m.info.sessionID).toBe(forked.id)
    for (const p of m.parts) expect([originalIds.has(p.id), p.sessionID, p.messageID]).toEqual([false, forked.id, m.info.id])
  }
  const [user, assistant] = copied
  expect(assistant!.info.role === "assistant" && assistant!.info.parentID).toBe(user!.info.id)
  // The original is untouched and the fork goes on by itself.
  expect((await h.client.session.messages(session.id)).length).toBe(4)
  llm.script(text("fork answer"))
  await h.client.session.prompt(forked.id, { parts: [{ type: "text", text: "three" }] })
  expect((await h.client.session.messages(forked.id)).map(textOf)).toEqual(["one", "answer to one", "three", "fork answer"])
  expect((await h.client.session.messages(session.id)).length).toBe(4)
})

test("fork - without a message copies everything; forking a fork counts up", async () => {
  const { session } = await conversation(h.client, ["one"])
  const first = await h.client.session.fork(session.id)
  expect((await h.client.session.messages(first.id)).length).toBe(2)
  const second = await h.client.session.fork(first.id)
  expect(second.title).toBe("Refactor (fork #2)")
  const e = await h.client.session.fork(session.id, { messageID: "msg_unknown" }).catch((e: ApiError) => e)
  expect((e as ApiError).status).toBe(404)
})

test("revert - hides the messages from the reverted prompt on; unrevert shows them again", async () => {
  const { session, messages } = await conversation(h.client, ["one", "two", "three"])
  // Reverting an assistant answer reverts the prompt that asked for it.
  const reverted = await h.client.session.revert(session.id, { messageID: messages[3]!.info.id })
  // The files are tracked too: the revert records the state before it (snapshot); no file changed here.
  expect(reverted.revert).toEqual({ messageID: messages[2]!.info.id, snapshot: expect.stringMatching(/^[0-9a-f]{40}$/) })
  expect((await h.client.session.messages(session.id)).map(textOf)).toEqual(["one", "answer to one"])
  expect((await h.client.session.get(session.id)).revert?.messageID).toBe(messages[2]!.info.id)

  const restored = await h.client.session.unrevert(session.id)
  expect(restored.revert).toBeUndefined()
  expect((await h.client.session.messages(session.id)).length).toBe(6)
})

test("revert - at a part keeps the parts before it", async () => {
  const s = await h.client.session.create()
  llm.script({ reasoning: "thinking", text: "visible answer" })
  const answer = await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "q" }] })
  const textPart = answer.parts.find((p) => p.type === "text")!
  const stepFinish = answer.parts.find((p) => p.type === "step-finish")!
  await h.client.session.revert(s.id, { messageID: answer.info.id, partID: stepFinish.id })
  const shown = await h.client.session.messages(s.id)
  expect(shown.at(-1)!.parts.map((p) => p.id)).toContain(textPart.id)
  expect(shown.at(-1)!.parts.map((p) => p.id)).not.toContain(stepFinish.id)

  // A part with nothing useful before it reverts the whole prompt.
  const first = answer.parts[0]!
  const whole = await h.client.session.revert(s.id, { messageID: answer.info.id, partID: first.id })
  expect(whole.revert).toMatchObject({ messageID: shown[0]!.info.id })
  expect(whole.revert?.partID).toBeUndefined()
  const bad = await h.client.session.revert(s.id, { messageID: answer.info.id, partID: "prt_nope" }).catch((e: ApiError) => e)
  expect((bad as ApiError).status).toBe(404)
})

test("revert - committing deletes the hidden messages for good", async () => {
  const { session, messages } = await conversation(h.client, ["one", "two"])
  await h.client.session.revert(session.id, { messageID: messages[2]!.info.id })
  const app = await h.app()
  cleanupRevert(app, session.id)
  expect((await h.client.session.get(session.id)).revert).toBeUndefined()
  expect((await h.client.session.messages(session.id)).map(textOf)).toEqual(["one", "answer to one"])
  await h.client.session.unrevert(session.id)
  expect((await h.client.session.messages(session.id)).length).toBe(2)
  expect(app.store.messages.list(session.id).length).toBe(2)
})

test("revert - a busy session answers 409 BusyError", async () => {
  const s = await h.client.session.create()
  llm.script({ text: ["slow"], hang: "after-headers" })
  const pending = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "go" }] }).catch(() => undefined)
  for (const end = Date.now() + 20_000; llm.inFlight() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  const messages = await h.client.session.messages(s.id)
  for (const call of [h.client.session.revert(s.id, { messageID: messages[0]!.info.id }), h.client.session.unrevert(s.id), h.client.session.deleteMessage(s.id, messages[0]!.info.id)]) {
    const e = (await call.catch((e) => e)) as ApiError
    expect([e.status, e.name]).toEqual([409, "BusyError"])
  }
  await h.client.session.abort(s.id)
  await pending
})

test("abort - answers once the loop has stopped (its running command killed), so a revert right after finds the session idle", async () => {
  const s = await h.client.session.create()
  llm.script(toolCall("bash", { command: "echo started; sleep 30", description: "wait" }), text("never"))
  const pending = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "go" }] }).catch(() => undefined)
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const tool = (await h.client.session.messages(s.id)).flatMap((m) => m.parts).find((p) => p.type === "tool")
    if (tool?.type === "tool" && tool.state.status === "running" && JSON.stringify(tool.state).includes("started")) break
  }
  const user = (await h.client.session.messages(s.id))[0]!
  expect(await h.client.session.abort(s.id)).toBe(true)
  // What /undo does: abort, then revert at once.
  const reverted = await h.client.session.revert(s.id, { messageID: user.info.id })
  expect(reverted.revert?.messageID).toBe(user.info.id)
  await pending
})

test("shell - runs the command as a user bash part with no model call, streaming its output", async () => {
  const s = await h.client.session.create()
  const controller = new AbortController()
  const stream = collect(h.client.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  const answer = await h.client.session.shell(s.id, { command: "echo hello from shell; echo done" })
  expect(llm.requests).toHaveLength(0)
  expect(answer.info.role).toBe("assistant")
  const tool = answer.parts[0]!
  expect(tool.type === "tool" && [tool.tool, tool.state.status]).toEqual(["bash", "completed"])
  if (tool.type !== "tool" || tool.state.status !== "completed") throw new Error("not completed")
  expect(tool.state.output).toContain("hello from shell")
  expect(tool.state.metadata.output).toContain("done")
  expect(tool.state.input).toEqual({ command: "echo hello from shell; echo done" })

  const messages = await h.client.session.messages(s.id)
  expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant"])
  expect(messages[0]!.parts[0]).toMatchObject({ type: "text", text: "The following tool was executed by the user", synthetic: true })
  const updates = stream.events.filter((e) => e.type === "message.part.updated" && e.properties.part.id === tool.id)
  expect(updates.map((e) => (e.type === "message.part.updated" && e.properties.part.type === "tool" ? e.properties.part.state.status : ""))).toContain("running")
  await stream.wait((e) => e.type === "session.idle" && e.properties.sessionID === s.id)
  stream.stop()
})

test("shell - a second command while one runs answers 409; abort stops the running one", async () => {
  const s = await h.client.session.create()
  const running = h.client.session.shell(s.id, { command: "sleep 20" })
  for (const end = Date.now() + 20_000; !(await h.client.session.status())[s.id] && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  expect((await h.client.session.status())[s.id]).toEqual({ type: "busy" })
  const busy = (await h.client.session.shell(s.id, { command: "true" }).catch((e) => e)) as ApiError
  expect([busy.status, busy.name]).toEqual([409, "BusyError"])
  const prompt = (await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "x" }] }).catch((e) => e)) as ApiError
  expect(prompt.status).toBe(409)
  expect(await h.client.session.abort(s.id)).toBe(true)
  const answer = await running
  const tool = answer.parts[0]!
  expect(tool.type === "tool" && tool.state.status === "completed" && tool.state.output).toMatch(/abort/i)
  expect((await h.client.session.status())[s.id]).toBeUndefined()
})

test("shell - an unknown agent is a 400 naming the agents", async () => {
  const s = await h.client.session.create()
  const e = (await h.client.session.shell(s.id, { command: "true", agent: "ghost" }).catch((e) => e)) as ApiError
  expect([e.status, e.name]).toEqual([400, "AgentNotFoundError"])
  expect(e.message).toContain("build")
})
