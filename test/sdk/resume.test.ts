// The SDK's event subscription (what `attach` and the TUI's remote follow use) resumes with
// the last id it saw: a stream cut in the middle of a frame, or ended by a project reload,
// misses none of the session's events and repeats none.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import type { BusEvent } from "../../src/protocol"
import { createClient } from "../../src/sdk"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { BASE, collect, startServer, type Harness } from "../server/harness"

let llm: LLMServer
let h: Harness | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  await h?.close()
  h = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `)
const deltasOf = (events: BusEvent[], sessionID: string) =>
  events.flatMap((e) => (e.type === "message.part.delta" && e.properties.sessionID === sessionID ? [e.properties.delta] : []))

/** Lets `bytes` of the first /event answer through, cutting it in the middle of a frame: a network blip. */
function cutFirstStream(fetch: (req: Request) => Promise<Response>, bytes: number) {
  let cut = false
  return async (req: Request) => {
    const res = await fetch(req)
    if (cut || new URL(req.url).pathname !== "/event") return res
    cut = true
    let seen = 0
    const reader = res.body!.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read()
        if (done) return controller.close()
        if (seen + value.length < bytes) {
          seen += value.length
          return controller.enqueue(value)
        }
        controller.enqueue(value.subarray(0, bytes - seen))
        await reader.cancel()
        controller.error(new Error("connection reset"))
      },
      cancel: () => reader.cancel(),
    })
    return new Response(body, { headers: res.headers })
  }
}

test("sdk resume - a stream cut mid-frame reconnects with the last id and misses no delta, repeats none", async () => {
  h = await startServer({ llm })
  const client = createClient({ baseUrl: BASE, directory: h.box.project, fetch: cutFirstStream(h.fetch, 3000) })
  const s = await h.client.session.create()
  const controller = new AbortController()
  const stream = collect(client.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  llm.script({ text: words(150), delayMs: 1 })
  await h.client.session.prompt(s.id, { parts: [{ type: "text", text: "go" }] })
  await stream.wait((e) => e.type === "session.idle" && e.properties.sessionID === s.id)
  // It did drop and come back.
  expect(stream.events.filter((e) => e.type === "server.connected").length).toBe(2)
  expect(deltasOf(stream.events, s.id)).toEqual(words(150))
  stream.stop()
})

test("sdk resume - what a reloaded project publishes before the client is back reaches it (attach lost it before)", async () => {
  h = await startServer({ llm })
  const controller = new AbortController()
  const stream = collect(h.client.event.subscribe({ signal: controller.signal }), controller)
  await stream.wait((e) => e.type === "server.connected")
  await h.client.config.update({ username: "reloaded" })
  await stream.wait((e) => e.type === "server.instance.disposed")
  // The SDK waits 100 ms before it reconnects; the new App publishes in the meantime.
  const s = await h.client.session.create({ title: "made while the client was away" })
  const reconnected = stream.events.filter((e) => e.type === "server.connected").length
  expect(reconnected).toBe(1)
  await stream.wait((e) => e.type === "session.created" && e.properties.sessionID === s.id)
  stream.stop()
})
