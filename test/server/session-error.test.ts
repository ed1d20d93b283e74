// session.error carries the MessageError union, typed end to end: a provider failure as its
// named MessageError, any other failure of the run as UnknownError with its message.
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import { MessageError, type BusEvent } from "../../src/protocol"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
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
  llm.reset()
})
afterAll(() => llm.close())

type ErrorEvent = Extract<BusEvent, { type: "session.error" }>

async function errorOf(run: (sessionID: string) => Promise<unknown>) {
  const controller = new AbortController()
  const stream = collect(h.client.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  const s = await h.client.session.create()
  await run(s.id).catch(() => undefined)
  const e = (await stream.wait((e) => e.type === "session.error" && e.properties.sessionID === s.id)) as ErrorEvent
  stream.stop()
  expect(MessageError.safeParse(e.properties.error).success).toBe(true)
  return e.properties.error
}

test("session.error - a provider failure arrives as its named MessageError", async () => {
  llm.script({ error: { status: 401 } })
  const error = await errorOf((id) => h.client.session.prompt(id, { parts: [{ type: "text", text: "hi" }] }))
  expect(error?.name).toBe("ProviderAuthError")
})

test("session.error - a failure outside the provider (an unknown model) arrives as UnknownError with its message", async () => {
  const error = await errorOf((id) => h.client.session.prompt(id, { model: { providerID: "fake", modelID: "no-such-model" }, parts: [{ type: "text", text: "hi" }] }))
  expect(error?.name).toBe("UnknownError")
  expect(error?.data).toMatchObject({ message: expect.stringContaining("no-such-model") })
})
