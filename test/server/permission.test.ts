import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import type { ApiError } from "../../src/sdk"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { collect, raw, startServer, type Harness } from "./harness"

let llm: LLMServer
let h: Harness
beforeAll(async () => {
  llm = await startLLMServer()
})
beforeEach(async () => {
  h = await startServer({ llm, config: { permission: { bash: "ask" } } })
})
afterEach(async () => {
  await h.close()
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

async function askForBash(command: string) {
  const s = await h.client.session.create()
  llm.script(toolCall("bash", { command, description: "Say hi" }), text("Finished."))
  const answer = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "run it" }] })
  let pending = await h.client.permission.list()
  for (let i = 0; i < 500 && pending.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 10))
    pending = await h.client.permission.list()
  }
  expect(pending).toHaveLength(1)
  return { session: s, request: pending[0]!, answer }
}

const toolStatus = async (answer: Promise<unknown>, sessionID: string) => {
  await answer
  const messages = await h.client.session.messages(sessionID)
  return messages.flatMap((m) => m.parts).find((p) => p.type === "tool")
}

test("permission - a pending ask is listed and answered with /permission/:id/reply", async () => {
  const { session, request, answer } = await askForBash("echo approved-run")
  expect(request).toMatchObject({ sessionID: session.id, permission: "bash", patterns: ["echo approved-run"] })
  expect(await h.client.permission.reply(request.id, "once")).toBe(true)
  const tool = await toolStatus(answer, session.id)
  expect(tool?.type === "tool" && tool.state.status === "completed" && tool.state.output).toContain("approved-run")
  expect(await h.client.permission.list()).toEqual([])
  const again = (await h.client.permission.reply(request.id, "once").catch((e) => e)) as ApiError
  expect([again.status, again.name]).toEqual([404, "NotFoundError"])
})

test("permission - the legacy /session/:id/permissions/:pid path rejects with a message for the model", async () => {
  const { session, request, answer } = await askForBash("echo nope")
  expect(await h.client.permission.respond(session.id, request.id, "reject", "use printf instead")).toBe(true)
  const tool = await toolStatus(answer, session.id)
  expect(tool?.type === "tool" && tool.state.status).toBe("error")
  expect(JSON.stringify(llm.requests.at(-1)?.body ?? {})).toContain("use printf instead")
})

test("permission - bad replies are 400 with the field, unknown ids 404, another session's ask 404", async () => {
  const { session, request, answer } = await askForBash("echo x")
  const bad = await raw(h, "POST", `/permission/${request.id}/reply`, { body: JSON.stringify({ reply: "sometimes" }) })
  expect(bad.status).toBe(400)
  expect((await bad.json()).data.issues[0].path).toBe("body.reply")
  const legacy = await raw(h, "POST", `/session/${session.id}/permissions/${request.id}`, { body: JSON.stringify({ reply: "once" }) })
  expect((await legacy.json()).data.issues[0].path).toBe("body.response")
  const other = await h.client.session.create()
  const wrongSession = (await h.client.permission.respond(other.id, request.id, "once").catch((e) => e)) as ApiError
  expect(wrongSession.status).toBe(404)
  expect(((await h.client.permission.reply("per_unknown", "once").catch((e) => e)) as ApiError).status).toBe(404)
  await h.client.permission.reply(request.id, "reject")
  await answer
})

test("question - the model's question is listed, answered, and the answer reaches the model", async () => {
  const s = await h.client.session.create()
  const controller = new AbortController()
  const stream = collect(h.client.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  llm.script(
    toolCall("question", { questions: [{ question: "Which color?", header: "Color", options: [{ label: "Red", description: "warm" }, { label: "Blue", description: "cool" }] }] }),
    text("Blue it is."),
  )
  const answer = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "pick" }] })
  const asked = await stream.wait((e) => e.type === "question.asked")
  const listed = await h.client.question.list()
  expect(listed.map((q) => q.id)).toEqual([asked.type === "question.asked" ? asked.properties.id : ""])
  const id = listed[0]!.id

  const wrongCount = await raw(h, "POST", `/question/${id}/reply`, { body: JSON.stringify({ answers: [["Blue"], ["Red"]] }) })
  expect(wrongCount.status).toBe(400)
  expect((await wrongCount.json()).data.issues[0].path).toBe("body.answers")
  const badShape = await raw(h, "POST", `/question/${id}/reply`, { body: JSON.stringify({ answers: "Blue" }) })
  expect((await badShape.json()).data.issues[0].path).toBe("body.answers")

  expect(await h.client.question.reply(id, [["Blue"]])).toBe(true)
  await answer
  expect(JSON.stringify(llm.requests.at(-1)?.body ?? {})).toContain('\\"Which color?\\"=\\"Blue\\"')
  expect(((await h.client.question.reply(id, [["Red"]]).catch((e) => e)) as ApiError).status).toBe(404)
  stream.stop()
})

test("question - reject dismisses the question and ends the turn; unknown ids 404", async () => {
  const s = await h.client.session.create()
  llm.script(toolCall("question", { questions: [{ question: "Proceed?", header: "Go", options: [{ label: "Yes", description: "go on" }] }] }))
  const answer = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "ask me" }] })
  let listed = await h.client.question.list()
  for (let i = 0; i < 500 && listed.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 10))
    listed = await h.client.question.list()
  }
  expect(await h.client.question.reject(listed[0]!.id)).toBe(true)
  await answer
  expect(await h.client.question.list()).toEqual([])
  expect(((await h.client.question.reject("que_unknown").catch((e) => e)) as ApiError).status).toBe(404)
})
