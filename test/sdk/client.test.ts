import { createServer as createHttpServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { createClient, subscribeEvents, type ApiError, type Client } from "../../src/sdk"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { BASE, startServer, type Harness } from "../server/harness"

let llm: LLMServer
let h: Harness | undefined
let http: Server | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  await h?.close()
  h = undefined
  http?.closeAllConnections()
  http?.close()
  http = undefined
  llm.reset()
})
afterAll(() => llm.close())

test("sdk - one method per route: calling every method reaches every route of the server", async () => {
  h = await startServer({ llm })
  const hits: string[] = []
  const client: Client = createClient({
    baseUrl: BASE,
    directory: h.box.project,
    fetch: (req) => {
      hits.push(`${req.method} ${new URL(req.url).pathname}`)
      return h!.fetch(req)
    },
  })
  const settle = (p: Promise<unknown>) => p.catch(() => undefined)
  const s = await client.session.create({ title: "t" })
  llm.script(text("hi"))
  const answer = await client.session.prompt(s.id, { parts: [{ type: "text", text: "x" }] })
  const part = answer.parts[0]!
  const stream = new AbortController()
  const drain = async (it: AsyncIterable<unknown>) => {
    for await (const _ of it) break
  }
  await Promise.all([drain(client.event.subscribe({ signal: stream.signal })), drain(client.global.event({ signal: stream.signal })), drain(client.session.events(s.id, { signal: stream.signal }))])
  stream.abort()
  await Promise.all(
    [
      client.global.health(),
      client.doc(),
      client.session.list(),
      client.session.get(s.id),
      client.session.update(s.id, { title: "u" }),
      client.session.children(s.id),
      client.session.todo(s.id),
      client.session.status(),
      client.session.messages(s.id),
      client.session.message(s.id, answer.info.id),
      client.session.updatePart(s.id, answer.info.id, part),
      client.session.command(s.id, { command: "none" }),
      client.session.summarize(s.id, {}),
      client.permission.list(),
      client.permission.reply("per_x", "once"),
      client.permission.respond(s.id, "per_x", "once"),
      client.question.list(),
      client.question.reply("que_x", []),
      client.question.reject("que_x"),
      client.config.get(),
      client.config.providers(),
      client.provider.list(),
      client.provider.auth(),
      // "fake" has no sign-in and none is under way: both answer an error, having reached their route.
      client.provider.oauth.authorize("fake"),
      client.provider.oauth.callback("fake"),
      client.agent.list(),
      client.project.list(),
      client.command.list(),
      client.skill.list(),
      client.path.get(),
      client.find.text("x"),
      client.find.files("x"),
      client.file.list(),
      client.file.read("wright.json"),
      client.file.status(),
      client.tool.ids(),
      client.tool.list("fake", "chat-model"),
      client.mcp.status(),
      client.trust.get(),
      client.config.warnings(),
      client.session.diff(s.id),
      client.mcp.resources(),
      client.plugin.list(),
      client.lsp.status(),
      client.formatter.status(),
      client.debug.heap(),
    ].map(settle),
  )
  await client.config.update({})
  await client.trust.grant()
  await client.instance.dispose()
  await client.auth.set("fake", { type: "api", key: "sdk-test-key" })
  await client.auth.remove("fake")
  await client.session.shell(s.id, { command: "true" })
  await client.session.mcpSet(s.id, { servers: {} })
  await client.session.mcpClear(s.id)
  await client.session.editorSet(s.id, { read: false, write: false })
  expect(await client.session.editorReply(s.id, "edf_x", { error: "none pending" })).toBe(false)
  const forked = await client.session.fork(s.id)
  await client.session.revert(s.id, { messageID: answer.info.id })
  await client.session.unrevert(s.id)
  await settle(client.session.promptAsync(s.id, { noReply: true, parts: [{ type: "text", text: "y" }] }))
  await client.session.abort(s.id)
  expect(await client.session.inbox(s.id)).toEqual([])
  await settle(client.session.inboxUpdate(s.id, "inb_none", { delivery: "steer" }))
  await settle(client.session.inboxDelete(s.id, "inb_none"))
  expect((await client.session.resume(s.id)).outcome).toBe("idle")
  await client.session.deletePart(s.id, answer.info.id, part.id)
  await client.session.deleteMessage(s.id, answer.info.id)
  await client.session.delete(forked.id)

  const missed = h.server.routes.filter((r) => {
    const pattern = new RegExp(`^${r.method.toUpperCase()} ${r.path.replace(/:\w+/g, "[^/]+")}$`)
    return !hits.some((hit) => pattern.test(hit))
  })
  expect(missed.map((r) => `${r.method} ${r.path}`)).toEqual([])
})

test("sdk - errors carry the server's name, message and status", async () => {
  h = await startServer({ llm })
  const e = (await h.client.session.get("ses_missing").catch((e) => e)) as ApiError
  expect(e.name).toBe("NotFoundError")
  expect(e.status).toBe(404)
  expect(e.message).toBe("Session not found: ses_missing")
  expect(e.body).toEqual({ name: "NotFoundError", data: { message: "Session not found: ses_missing" } })
})

test("sdk - the event stream reconnects after a drop and keeps delivering", async () => {
  let connections = 0
  http = createHttpServer((req, res) => {
    connections++
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.write(`data: {"type":"server.connected","properties":{}}\n\n`)
    res.write(`data: {"type":"tick","properties":{"n":${connections}}}\n\n`)
    // The first connection drops at once; later ones stay open.
    if (connections === 1) res.end()
  })
  await new Promise<void>((r) => http!.listen(0, "127.0.0.1", r))
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/event`
  const controller = new AbortController()
  const seen: unknown[] = []
  let reconnects = 0
  for await (const e of subscribeEvents<{ type: string; properties: { n?: number } }>({
    signal: controller.signal,
    open: (signal) => fetch(url, { signal }),
    onConnect: () => reconnects++,
  })) {
    seen.push(e)
    if (e.type === "tick" && e.properties.n === 2) controller.abort()
  }
  expect(reconnects).toBe(2)
  expect(seen.filter((e) => (e as { type: string }).type === "tick")).toEqual([
    { type: "tick", properties: { n: 1 } },
    { type: "tick", properties: { n: 2 } },
  ])
})
