import { MessageChannel } from "node:worker_threads"
import { afterEach, expect, test, vi } from "vitest"
import { createClient } from "../../src/sdk"
import { createRpcClient, serveRpc } from "../../src/tui"
import type { BusEvent } from "../../src/protocol"

const channels: MessageChannel[] = []
afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close()
    c.port2.close()
  }
})

function pair(fetch: (req: Request) => Promise<Response>) {
  const channel = new MessageChannel()
  channels.push(channel)
  const worker = serveRpc(channel.port2, { fetch, call: async (m, input) => ({ method: m, input }) })
  const main = createRpcClient(channel.port1)
  return { worker, main }
}

test("rpc - a request crosses with method, headers and body, and the response comes back whole", async () => {
  const { main } = pair(async (req) => {
    const body = await req.json()
    return Response.json({ method: req.method, path: new URL(req.url).pathname, dir: req.headers.get("x-opencode-directory"), body }, { status: 201 })
  })
  const client = createClient({ baseUrl: "http://wright.internal", fetch: main.fetch, directory: "/p" })
  const res = await client.request<Record<string, unknown>>("POST", "/session", { body: { title: "t" } })
  expect(res).toEqual({ method: "POST", path: "/session", dir: "%2Fp", body: { title: "t" } })
})

test("rpc - an error status reaches the sdk as its named error", async () => {
  const { main } = pair(async () => Response.json({ name: "NotFoundError", data: { message: "Session not found: x" } }, { status: 404 }))
  const client = createClient({ baseUrl: "http://wright.internal", fetch: main.fetch })
  await expect(client.session.get("x")).rejects.toMatchObject({ name: "NotFoundError", status: 404, message: "Session not found: x" })
})

test("rpc - a streamed body (SSE) arrives chunk by chunk, and aborting the request cancels it in the worker", async () => {
  let cancelled = false
  const { main } = pair(async () => {
    let n = 0
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        n++
        if (n <= 2) c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify({ type: "server.heartbeat", properties: { n } })}\n\n`))
        return new Promise((r) => setTimeout(r, 20))
      },
      cancel() {
        cancelled = true
      },
    })
    return new Response(body, { headers: { "content-type": "text/event-stream" } })
  })
  const client = createClient({ baseUrl: "http://wright.internal", fetch: main.fetch })
  const abort = new AbortController()
  const seen: unknown[] = []
  for await (const e of client.event.subscribe({ signal: abort.signal })) {
    seen.push(e.properties)
    if (seen.length === 2) abort.abort()
  }
  expect(seen).toEqual([{ n: 1 }, { n: 2 }])
  // The cancel crosses the channel to the worker: wait for it rather than a fixed 100 ms.
  await vi.waitFor(() => expect(cancelled).toBe(true), { timeout: 10_000 })
})

test("rpc - bus events pushed by the worker reach every subscriber; calls return values", async () => {
  const { main, worker } = pair(async () => new Response(null, { status: 204 }))
  const got: BusEvent[] = []
  const off = main.events.subscribe((e) => got.push(e))
  worker.emit({ type: "session.idle", properties: { sessionID: "ses_1" } })
  worker.ready()
  await main.ready
  expect(got).toEqual([{ type: "session.idle", properties: { sessionID: "ses_1" } }])
  off()
  expect(await main.call("listen", { port: 0 })).toEqual({ method: "listen", input: { port: 0 } })
})

test("rpc - a boot failure rejects `ready` with the core's error", async () => {
  const { main, worker } = pair(async () => new Response(null))
  worker.fatal(Object.assign(new Error("wright.json: bad key"), { name: "ConfigError" }))
  await expect(main.ready).rejects.toMatchObject({ name: "ConfigError", message: "wright.json: bad key" })
})
