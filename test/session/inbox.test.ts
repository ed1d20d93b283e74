// The inbox through the SDK client, in process: prompts sent while the agent works are stored
// at once and delivered by the loop, steering ones inside the running turn, queued ones as new
// turns after it, each once and in order; they can be edited and withdrawn until delivered.
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import type { InboxItem, MessageWithParts } from "../../src/protocol"
import { ApiError } from "../../src/sdk"
import { testCore, type TestCore } from "../lib/core"
import { startLLMServer, text, toolCall, type LLMServer, type RecordedRequest } from "../lib/llm-server"

let llm: LLMServer
let core: TestCore
beforeAll(async () => {
  llm = await startLLMServer()
})
beforeEach(async () => {
  core = await testCore({ llm, files: { "notes.txt": "some notes\n" }, config: { command: { greet: { template: "Say hello to $ARGUMENTS" } } } })
})
afterEach(async () => {
  await core.close()
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const say = (t: string) => ({ parts: [{ type: "text" as const, text: t }] })

/**
 * Holds a scripted answer after its first delta until `release()`: the turn is still running
 * while a test sends it prompts, however slow the machine (a short stream could end first).
 */
function held() {
  let release!: () => void
  const gate = { after: 2, open: new Promise<void>((r) => (release = r)) }
  return { gate, release }
}

async function until(pred: () => boolean | Promise<boolean>, what: string, ms = 15_000) {
  const start = Date.now()
  while (!(await pred())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The texts of a request's user messages, in order. */
function userTexts(r: RecordedRequest): string[] {
  return (r.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("")))
}

const idle = () => until(async () => !(await core.client.session.status())[sid], "the session to go idle")
let sid = ""

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (e) => e,
  )
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

test("inbox - a steering prompt reaches the next request of the running turn; a queued one starts a new turn after the answer; each once", async () => {
  const s = await core.client.session.create()
  sid = s.id
  // Step 1 reads a file, held until the prompts are sent; step 2 answers; the queued prompt's turn answers last.
  const step = held()
  llm.script(toolCall("read", { filePath: `${core.box.project}/notes.txt` }, { text: ["Let ", "me ", "look ", "first."], delayMs: 150, gate: step.gate }), text("Using the other file."), text("Also done."))
  await core.client.session.promptAsync(s.id, say("summarise notes.txt"))
  await until(() => llm.inFlight() === 1, "the first request at the model")

  const queued = (await core.client.session.send(s.id, { delivery: "queue", ...say("also add a title") })) as InboxItem
  const steered = (await core.client.session.send(s.id, { delivery: "steer", ...say("stop, use the other file") })) as InboxItem
  expect(queued).toMatchObject({ sessionID: s.id, delivery: "queue", parts: [{ type: "text", text: "also add a title" }] })
  expect(steered.delivery).toBe("steer")
  expect((await core.client.session.inbox(s.id)).map((i) => i.id)).toEqual([queued.id, steered.id])
  // Nothing was delivered yet: the first request is still streaming.
  expect(llm.requests).toHaveLength(1)
  step.release()

  await idle()
  expect(llm.requests).toHaveLength(3)
  const [first, second, third] = llm.requests.map(userTexts)
  expect(first).toEqual(["summarise notes.txt"])
  // The steer is the newest user message of the turn's second request, after the tool result.
  expect(second).toEqual(["summarise notes.txt", "stop, use the other file"])
  expect(llm.requests[1]!.body.messages.at(-1)).toMatchObject({ role: "user" })
  // The queued prompt waited for the answer, then started its own turn.
  expect(third).toEqual(["summarise notes.txt", "stop, use the other file", "also add a title"])
  const messages = await core.client.session.messages(s.id)
  expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"])
  const answers = messages.filter((m): m is MessageWithParts & { info: { role: "assistant"; parentID: string } } => m.info.role === "assistant")
  expect(answers[2]!.info.parentID).toBe(messages[4]!.info.id)

  expect(await core.client.session.inbox(s.id)).toEqual([])
  const updates = core.events.filter((e) => e.type === "session.inbox.updated" && e.properties.sessionID === s.id).map((e) => (e.properties as { items: InboxItem[] }).items.map((i) => i.id))
  expect(updates[0]).toEqual([queued.id])
  expect(updates[1]).toEqual([queued.id, steered.id])
  expect(updates.at(-1)).toEqual([])
  // Delivered: too late to edit or withdraw.
  const edit = await failure(core.client.session.inboxUpdate(s.id, queued.id, say("changed")))
  expect(edit.status).toBe(409)
  expect(edit.body.name).toBe("InboxDeliveredError")
  expect((await failure(core.client.session.inboxDelete(s.id, steered.id))).status).toBe(409)
  expect((await failure(core.client.session.inboxDelete(s.id, "inb_missing"))).status).toBe(404)
})

test("inbox - a waiting prompt can be edited or withdrawn until it is delivered; queued prompts run in order", async () => {
  const s = await core.client.session.create()
  sid = s.id
  const step = held()
  llm.script({ text: ["a ", "long ", "answer ", "here."], delayMs: 150, gate: step.gate }, text("first queued done"), text("third queued done"))
  await core.client.session.promptAsync(s.id, say("start"))
  await until(() => llm.inFlight() === 1, "the first request at the model")
  const one = (await core.client.session.send(s.id, { delivery: "queue", ...say("one") })) as InboxItem
  const two = (await core.client.session.send(s.id, { delivery: "queue", ...say("two") })) as InboxItem
  // prompt_async to a busy session: 204 and queued by default.
  await core.client.session.promptAsync(s.id, say("three"))
  const edited = await core.client.session.inboxUpdate(s.id, one.id, say("one, edited"))
  expect(edited.parts).toEqual([{ type: "text", text: "one, edited" }])
  expect(await core.client.session.inboxDelete(s.id, two.id)).toBe(true)
  const left = await core.client.session.inbox(s.id)
  expect(left.map((i) => [i.delivery, i.parts])).toEqual([
    ["queue", [{ type: "text", text: "one, edited" }]],
    ["queue", [{ type: "text", text: "three" }]],
  ])
  const bad = await failure(core.client.request("PATCH", `/session/${s.id}/inbox/${one.id}`, { body: {} }))
  expect(bad.status).toBe(400)
  step.release()

  await idle()
  const lastUser = llm.requests.map((r) => userTexts(r).at(-1))
  expect(lastUser).toEqual(["start", "one, edited", "three"])
  expect(JSON.stringify(llm.requests.map((r) => r.body.messages))).not.toContain('"two"')
})

test("inbox - /message without a delivery to a busy session is queued and answers with its own turn's answer", async () => {
  const s = await core.client.session.create()
  sid = s.id
  const step = held()
  llm.script({ text: ["first ", "answer"], delayMs: 150, gate: step.gate }, text("second answer"))
  const first = core.client.session.prompt(s.id, say("first"))
  await until(() => llm.inFlight() === 1, "the first request at the model")
  const second = core.client.session.prompt(s.id, say("second"))
  await until(async () => (await core.client.session.inbox(s.id)).length === 1, "the prompt in the inbox")
  step.release()
  const [a, b] = await Promise.all([first, second])
  const answer = (m: MessageWithParts) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")
  expect(answer(a)).toBe("first answer")
  expect(answer(b)).toBe("second answer")
  expect(llm.requests.map((r) => userTexts(r).at(-1))).toEqual(["first", "second"])
})

test("inbox - to an idle session a prompt with a delivery runs at once", async () => {
  const s = await core.client.session.create()
  llm.script(text("right away"))
  const answer = (await core.client.session.send(s.id, { delivery: "steer", ...say("go") })) as MessageWithParts
  expect(answer.info.role).toBe("assistant")
  expect(await core.client.session.inbox(s.id)).toEqual([])
})

test("inbox - a command sent while the agent works waits as /name and is expanded when delivered; !cmd is refused with a clear 409", async () => {
  const s = await core.client.session.create()
  sid = s.id
  const step = held()
  llm.script({ text: ["busy ", "for ", "a ", "while"], delayMs: 150, gate: step.gate }, text("Hello done."))
  await core.client.session.promptAsync(s.id, say("start"))
  await until(() => llm.inFlight() === 1, "the first request at the model")
  const item = (await core.client.session.command(s.id, { command: "greet", arguments: "the team", delivery: "queue" })) as unknown as InboxItem
  expect(item).toMatchObject({ delivery: "queue", command: { name: "greet", arguments: "the team" }, parts: [{ type: "text", text: "/greet the team" }] })
  const shell = await failure(core.client.session.shell(s.id, { command: "echo hi" }))
  expect(shell.status).toBe(409)
  expect(shell.message).toContain("a shell command (!cmd) runs only while the agent is idle")
  step.release()
  await idle()
  expect(llm.requests.map((r) => userTexts(r).at(-1))).toEqual(["start", "Say hello to the team"])
  expect(core.events.some((e) => e.type === "command.executed" && e.properties.name === "greet")).toBe(true)
})

test("inbox - a steering prompt that names no agent keeps the running turn's agent", async () => {
  const s = await core.client.session.create()
  sid = s.id
  const step = held()
  llm.script({ text: ["planning ", "slowly"], delayMs: 150, gate: step.gate }, text("Plan revised."))
  await core.client.session.promptAsync(s.id, { agent: "plan", ...say("plan the change") })
  await until(() => llm.inFlight() === 1, "the first request at the model")
  await core.client.session.send(s.id, { delivery: "steer", ...say("also cover the tests") })
  step.release()
  await idle()
  const users = (await core.client.session.messages(s.id)).filter((m) => m.info.role === "user")
  expect(users.map((m) => (m.info as { agent: string }).agent)).toEqual(["plan", "plan"])
})

test("inbox - the OpenAPI document lists the inbox routes and the 202 answer of /message and /command", async () => {
  const doc = (await core.client.doc()) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> }
  expect(Object.keys(doc.paths["/session/{id}/inbox"]!)).toEqual(["get"])
  expect(Object.keys(doc.paths["/session/{id}/inbox/{itemID}"]!).sort()).toEqual(["delete", "patch"])
  expect(doc.paths["/session/{id}/message"]!.post!.responses["202"]).toBeDefined()
  expect(doc.paths["/session/{id}/command"]!.post!.responses["202"]).toBeDefined()
  expect(JSON.stringify(doc.paths["/session/{id}/prompt_async"]!.post!.requestBody)).toContain('"delivery"')
})
