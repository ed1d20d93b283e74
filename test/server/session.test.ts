import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import { ApiError } from "../../src/sdk"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { raw, startServer, type Harness } from "./harness"

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

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (e) => e,
  )
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

test("session - create, get, list newest first with limit and search", async () => {
  const a = await h.client.session.create({ title: "alpha work" })
  const b = await h.client.session.create({ title: "beta work" })
  const c = await h.client.session.create({ title: "gamma" })
  expect((await h.client.session.get(a.id)).title).toBe("alpha work")
  expect((await h.client.session.list()).map((s) => s.id)).toEqual([c.id, b.id, a.id])
  expect((await h.client.session.list({ limit: 2 })).map((s) => s.id)).toEqual([c.id, b.id])
  expect((await h.client.session.list({ search: "work" })).map((s) => s.title)).toEqual(["beta work", "alpha work"])
})

test("session - patch changes the title and permission, and archives", async () => {
  const s = await h.client.session.create({ title: "old" })
  const patched = await h.client.session.update(s.id, { title: "new", permission: [{ permission: "bash", pattern: "*", action: "deny" }], time: { archived: 1234 } })
  expect(patched.title).toBe("new")
  expect(patched.permission).toEqual([{ permission: "bash", pattern: "*", action: "deny" }])
  expect(patched.time.archived).toBe(1234)
  expect((await h.client.session.get(s.id)).title).toBe("new")
})

test("session - delete cascades to child sessions and then answers 404", async () => {
  const parent = await h.client.session.create({ title: "parent" })
  const child = await h.client.session.create({ parentID: parent.id, title: "child" })
  expect((await h.client.session.children(parent.id)).map((s) => s.id)).toEqual([child.id])
  expect(await h.client.session.delete(parent.id)).toBe(true)
  expect((await failure(h.client.session.get(child.id))).status).toBe(404)
  const e = await failure(h.client.session.get(parent.id))
  expect(e.status).toBe(404)
  expect(e.body).toEqual({ name: "NotFoundError", data: { message: `Session not found: ${parent.id}` } })
})

test("session - unknown ids answer 404 with a named error on every session route", async () => {
  const id = "ses_nope"
  const calls = [
    h.client.session.get(id),
    h.client.session.update(id, { title: "x" }),
    h.client.session.delete(id),
    h.client.session.children(id),
    h.client.session.todo(id),
    h.client.session.messages(id),
    h.client.session.abort(id),
    h.client.session.fork(id),
    h.client.session.revert(id, { messageID: "msg_x" }),
    h.client.session.unrevert(id),
    h.client.session.shell(id, { command: "true" }),
    h.client.session.summarize(id),
    h.client.session.command(id, { command: "init" }),
    h.client.session.prompt(id, { parts: [{ type: "text", text: "hi" }] }),
    h.client.session.promptAsync(id, { parts: [{ type: "text", text: "hi" }] }),
  ]
  for (const call of calls) {
    const e = await failure(call)
    expect([e.status, e.name]).toEqual([404, "NotFoundError"])
  }
  const s = await h.client.session.create()
  for (const call of [h.client.session.message(s.id, "msg_x"), h.client.session.deleteMessage(s.id, "msg_x"), h.client.session.deletePart(s.id, "msg_x", "prt_x")]) {
    expect((await failure(call)).status).toBe(404)
  }
})

test("session - bad bodies and queries answer 400 naming the field", async () => {
  const s = await h.client.session.create()
  const title = await raw(h, "POST", "/session", { body: JSON.stringify({ title: 5 }) })
  expect(title.status).toBe(400)
  const body = await title.json()
  expect(body.name).toBe("BadRequestError")
  expect(body.data.issues[0].path).toBe("body.title")

  const notJson = await raw(h, "POST", "/session", { body: "{oops" })
  expect(notJson.status).toBe(400)
  expect((await notJson.json()).data.issues[0].path).toBe("body")

  const limit = await raw(h, "GET", "/session?limit=-3")
  expect(limit.status).toBe(400)
  expect((await limit.json()).data.issues[0].path).toBe("query.limit")

  const rule = await raw(h, "PATCH", `/session/${s.id}`, { body: JSON.stringify({ permission: [{ permission: "bash", pattern: "*", action: "maybe" }] }) })
  expect((await rule.json()).data.issues[0].path).toBe("body.permission.0.action")

  const parts = await raw(h, "POST", `/session/${s.id}/message`, { body: JSON.stringify({ parts: [{ type: "text" }] }) })
  expect(parts.status).toBe(400)
  expect((await parts.json()).data.issues[0].path).toBe("body.parts.0.text")

  const revert = await raw(h, "POST", `/session/${s.id}/revert`, { body: "{}" })
  expect((await revert.json()).data.issues[0].path).toBe("body.messageID")

  const shell = await raw(h, "POST", `/session/${s.id}/shell`, { body: JSON.stringify({ command: "" }) })
  expect((await shell.json()).data.issues[0].path).toBe("body.command")

  const summarize = await raw(h, "POST", `/session/${s.id}/summarize`, { body: JSON.stringify({ auto: "yes" }) })
  expect((await summarize.json()).data.issues[0].path).toBe("body.auto")

  const command = await raw(h, "POST", `/session/${s.id}/command`, { body: JSON.stringify({ arguments: "x" }) })
  expect((await command.json()).data.issues[0].path).toBe("body.command")

  const agent = await failure(h.client.session.prompt(s.id, { agent: "nobody", parts: [{ type: "text", text: "hi" }] }))
  expect([agent.status, agent.name]).toEqual([400, "AgentNotFoundError"])
})

test("session - a route's first bodies and its later ones are judged alike (checked before and after zod compiles its fast path)", async () => {
  const answers: unknown[] = []
  for (let i = 0; i < 5; i++) {
    const bad = await raw(h, "POST", "/session", { body: JSON.stringify({ title: 5, permission: [{ permission: "bash", pattern: "*", action: "maybe" }] }) })
    answers.push([bad.status, (await bad.json()).data.issues.map((x: { path: string }) => x.path)])
    const good = await raw(h, "POST", "/session", { body: JSON.stringify({ title: `t${i}`, unknownKey: true }) })
    const made = await good.json()
    answers.push([good.status, made.title === `t${i}`, "unknownKey" in made])
    // Prototype keys as JSON text: dropped or refused alike on every call, and nothing polluted.
    const hostile = await raw(h, "POST", "/session", { body: `{"title":"p${i}","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}` })
    const kept = await hostile.json()
    answers.push([hostile.status, kept.title === `p${i}`, Object.hasOwn(kept, "__proto__"), ({} as Record<string, unknown>).polluted])
  }
  const first = [[400, ["body.title", "body.permission.0.action"]], [200, true, false], [200, true, false, undefined]]
  expect(answers).toEqual([...first, ...first, ...first, ...first, ...first])
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

test("session - an unknown route answers 404 NotFoundError", async () => {
  const res = await raw(h, "GET", "/no/such/route")
  expect(res.status).toBe(404)
  expect((await res.json()).name).toBe("NotFoundError")
})

test("session - the synchronous prompt answers with the assistant message; messages page by limit and before", async () => {
  const s = await h.client.session.create()
  llm.script(text("first answer"), text("second answer"))
  const answer = await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "one" }] })
  expect(answer.info.role).toBe("assistant")
  expect(answer.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text).join("")).toBe("first answer")
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "two" }] })

  const all = await h.client.session.messages(s.id)
  expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"])
  const newest = await h.client.session.messages(s.id, { limit: 2 })
  expect(newest.map((m) => m.info.id)).toEqual(all.slice(2).map((m) => m.info.id))
  const older = await h.client.session.messages(s.id, { limit: 10, before: all[2]!.info.id })
  expect(older.map((m) => m.info.id)).toEqual(all.slice(0, 2).map((m) => m.info.id))
  expect((await h.client.session.message(s.id, all[1]!.info.id)).info.id).toBe(all[1]!.info.id)
  expect((await h.client.session.status())[s.id]).toBeUndefined()
})

test("session - prompt_async answers 204 at once and the loop runs on", async () => {
  const s = await h.client.session.create()
  llm.script(text("later", { delayMs: 20 }))
  const res = await raw(h, "POST", `/session/${s.id}/prompt_async`, { body: JSON.stringify({ parts: [{ type: "text", text: "go" }] }) })
  expect(res.status).toBe(204)
  expect(await res.text()).toBe("")
  for (const end = Date.now() + 20_000; (await h.client.session.messages(s.id)).length < 2 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25))
  for (const end = Date.now() + 20_000; (await h.client.session.status())[s.id] && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25))
  const messages = await h.client.session.messages(s.id)
  expect(messages.at(-1)!.parts.some((p) => p.type === "text" && p.text === "later")).toBe(true)
})

test("session - a message can be deleted, and a part patched and deleted", async () => {
  const s = await h.client.session.create()
  llm.script(text("to be edited"))
  const answer = await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "hi" }] })
  const part = answer.parts.find((p) => p.type === "text")!
  const edited = await h.client.session.updatePart(s.id, answer.info.id, { ...part, text: "edited" } as typeof part)
  expect((edited as { text: string }).text).toBe("edited")
  expect(((await h.client.session.message(s.id, answer.info.id)).parts.find((p) => p.id === part.id) as { text: string }).text).toBe("edited")

  const mismatch = await raw(h, "PATCH", `/session/${s.id}/message/${answer.info.id}/part/${part.id}`, { body: JSON.stringify({ ...part, id: "prt_other" }) })
  expect(mismatch.status).toBe(400)
  expect((await mismatch.json()).data.issues[0].path).toBe("body.id")

  expect(await h.client.session.deletePart(s.id, answer.info.id, part.id)).toBe(true)
  expect((await h.client.session.message(s.id, answer.info.id)).parts.some((p) => p.id === part.id)).toBe(false)
  expect(await h.client.session.deleteMessage(s.id, answer.info.id)).toBe(true)
  expect((await h.client.session.messages(s.id)).map((m) => m.info.role)).toEqual(["user"])
})

test("session - abort stops a streaming answer; the assistant message carries MessageAbortedError", async () => {
  const s = await h.client.session.create()
  llm.script({ text: ["a", "b", "c"], hang: 4 })
  const pending = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "go" }] })
  for (const end = Date.now() + 20_000; !(await h.client.session.status())[s.id] && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  for (const end = Date.now() + 20_000; llm.inFlight() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  expect(await h.client.session.abort(s.id)).toBe(true)
  const answer = await pending
  expect(answer.info.role === "assistant" && answer.info.error?.name).toBe("MessageAbortedError")
  expect(await h.client.session.abort(s.id)).toBe(false)
})

test("session - summarize compacts through the route; a busy session answers 409", async () => {
  const s = await h.client.session.create()
  llm.script(text("first answer"))
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "one" }] })
  llm.script(text("Summary: the user said one."))
  expect(await h.client.session.summarize(s.id, {})).toBe(true)
  const messages = await h.client.session.messages(s.id)
  expect(messages.some((m) => m.parts.some((p) => p.type === "compaction"))).toBe(true)
  expect(messages.some((m) => m.info.role === "assistant" && m.info.summary === true)).toBe(true)

  llm.script({ text: ["slow"], hang: "after-headers" })
  const pending = h.client.session.prompt(s.id, { parts: [{ type: "text", text: "two" }] }).catch(() => undefined)
  for (const end = Date.now() + 20_000; llm.inFlight() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  const busy = await failure(h.client.session.summarize(s.id, {}))
  expect([busy.status, busy.name]).toEqual([409, "BusyError"])
  await h.client.session.abort(s.id)
  await pending
})

test("session - command runs a slash command through the route; an unknown one is a 400 listing the commands", async () => {
  h.server.dispose()
  await h.close()
  h = await startServer({ llm, config: { command: { greet: { template: "Say hello to $1" } } } })
  const s = await h.client.session.create()
  llm.script(text("Hello, Ada!"))
  const answer = await h.client.session.command(s.id, { command: "greet", arguments: "Ada" })
  expect(answer.info.role).toBe("assistant")
  expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain("Say hello to Ada")
  const unknown = await failure(h.client.session.command(s.id, { command: "no-such-command" }))
  expect(unknown.status).toBe(400)
  expect(unknown.message).toContain("greet")
})
