// The HTTP side: routes a request to its protocol, records it, takes the next scripted reply and
// plays it out — as an HTTP error, a JSON body or an SSE stream, optionally slowed, cut or hung.
import { Buffer } from "node:buffer"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { anthropic } from "./anthropic"
import { google } from "./google"
import { openaiChat } from "./openai-chat"
import { openaiResponses } from "./openai-responses"
import { buildTurn, idSource } from "./turn"
import type { LLMServer, LLMServerOptions, Protocol, RecordedRequest, Reply } from "./types"
import { validateReply } from "./validate"
import { encodeFrame, type Wire, type WireContext } from "./wire"

interface Route {
  protocol: Protocol
  wire: Wire
  /** Gemini names the model and the streaming in the path, not in the body. */
  model?: string
  stream?: boolean
}

const ROUTES: Record<string, Route> = {
  "/v1/chat/completions": { protocol: "openai-chat", wire: openaiChat },
  "/v1/responses": { protocol: "openai-responses", wire: openaiResponses },
  "/v1/messages": { protocol: "anthropic", wire: anthropic },
}

/** `/v1beta/models/gemini-2.5-flash:streamGenerateContent` (the API also serves v1, and tuned models). */
const GOOGLE_PATH = /^\/v1(?:beta)?\/(?:models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent)$/

function routeOf(path: string): Route | undefined {
  const fixed = ROUTES[path]
  if (fixed) return fixed
  const m = GOOGLE_PATH.exec(path)
  if (m) return { protocol: "google", wire: google, model: decodeURIComponent(m[1]!), stream: m[2] === "streamGenerateContent" }
  return undefined
}

const JSON_TYPE = { "content-type": "application/json" }
const SSE_TYPE = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" }
/** Our own failures (unscripted request, failed expect) are final; tell retrying clients so. */
const NO_RETRY = { "x-should-retry": "false" }
/** Header wright sets on background requests (value: their purpose, e.g. "title"). */
export const SIDE_HEADER = "x-wright-request"

export async function startLLMServer(opts: LLMServerOptions = {}): Promise<LLMServer> {
  const strict = opts.strict ?? true
  const queue: Reply[] = []
  const requests: RecordedRequest[] = []
  const side: RecordedRequest[] = []
  const failures: string[] = []
  const newId = idSource()
  /** One promise per request still being answered; it settles when its response closes. */
  const open = new Set<Promise<void>>()

  function nextReply(req: RecordedRequest, n: number): Reply | undefined {
    const scripted = queue.shift()
    if (scripted) return scripted
    if (opts.fallback) {
      const reply = opts.fallback(req)
      validateReply(reply, `fallback reply for request #${n}`)
      return reply
    }
    return strict ? undefined : { text: "ok" }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const gone = new Promise<void>((resolve) => res.once("close", resolve))
    open.add(gone)
    void gone.then(() => open.delete(gone))
    const [path = "/", query = ""] = (req.url ?? "/").split("?")
    const raw = await readBody(req)
    const route = routeOf(path)
    if (!route || req.method !== "POST") {
      const message =
        `llm-server: no route for ${req.method} ${path}; it serves POST /v1/chat/completions, /v1/responses, /v1/messages ` +
        "(use baseURL `${url}/v1`) and /v1beta/models/{model}:streamGenerateContent or :generateContent (Google: baseURL `${url}/v1beta`)"
      failures.push(message)
      return send(res, 404, { ...JSON_TYPE, ...NO_RETRY }, JSON.stringify({ error: { message, type: "not_found" } }))
    }
    const body = parseBody(raw)
    const recorded: RecordedRequest = {
      protocol: route.protocol,
      method: req.method ?? "POST",
      path,
      headers: flatHeaders(req),
      body,
      stream: route.stream ?? body?.stream === true,
      time: { start: Date.now() },
    }
    // Without `alt=sse` Gemini streams one JSON array instead of SSE events; nothing here speaks that.
    if (route.stream && new URLSearchParams(query).get("alt") !== "sse") {
      const message = `llm-server: ${path} without ?alt=sse asks for a JSON-array stream; only SSE (?alt=sse) is served`
      failures.push(message)
      return send(res, 400, { ...JSON_TYPE, ...NO_RETRY }, JSON.stringify(route.wire.error(400, message)))
    }
    // Background requests (session titles) are answered on the side, so scripted turns
    // are never consumed by them and tests can count the conversation's requests exactly.
    const purpose = recorded.headers[SIDE_HEADER]
    if (purpose) side.push(recorded)
    else requests.push(recorded)
    const n = requests.length
    const where = `request #${n} (${route.protocol} ${path})`
    const reply = purpose ? (opts.side?.(recorded) ?? { text: `Scripted ${purpose}` }) : nextReply(recorded, n)
    if (!reply) {
      const message = `llm-server: unscripted ${where}: the reply queue is empty; script() a reply for it`
      failures.push(message)
      return send(res, 500, { ...JSON_TYPE, ...NO_RETRY }, JSON.stringify(route.wire.error(500, message)))
    }
    if (reply.expect) {
      try {
        reply.expect(recorded)
      } catch (err) {
        const message = `llm-server: expect failed for ${where}: ${err instanceof Error ? err.message : String(err)}`
        failures.push(message)
        return send(res, 500, { ...JSON_TYPE, ...NO_RETRY }, JSON.stringify(route.wire.error(500, message)))
      }
    }
    await play(res, gone, route.wire, recorded, reply, route.model)
    recorded.time.end = Date.now()
  }

  async function play(res: ServerResponse, gone: Promise<void>, wire: Wire, req: RecordedRequest, reply: Reply, model?: string): Promise<void> {
    let closed = false
    void gone.then(() => (closed = true))
    // A write to a connection the client already dropped may never call back; `gone` ends the wait.
    const write = (chunk: string) => Promise.race([new Promise<void>((resolve) => res.write(chunk, () => resolve())), gone])
    if (reply.hang === "before-headers") return gone
    if (reply.error) return sendScriptedError(res, wire, reply.error)
    const ctx: WireContext = {
      model: model ?? (typeof req.body?.model === "string" ? req.body.model : "mock-model"),
      newId,
      created: Math.floor(Date.now() / 1000),
      includeUsage: req.body?.stream_options?.include_usage === true,
    }
    const turn = buildTurn(reply, newId, wire.callPrefix)
    if (!req.stream) {
      const text = JSON.stringify(wire.json(turn, ctx))
      if (reply.hang !== undefined) {
        res.writeHead(200, JSON_TYPE).flushHeaders()
        return gone
      }
      if (reply.cutAfter === undefined) return send(res, 200, JSON_TYPE, text)
      res.writeHead(200, { ...JSON_TYPE, "content-length": String(Buffer.byteLength(text)) })
      await write(text.slice(0, Math.floor(text.length / 2)))
      res.destroy()
      return
    }
    res.writeHead(200, SSE_TYPE).flushHeaders()
    if (reply.hang === "after-headers") return gone
    const frames = wire.stream(turn, ctx)
    const stopAt = typeof reply.hang === "number" ? reply.hang : reply.cutAfter
    for (let i = 0; i < frames.length && (stopAt === undefined || i < stopAt); i++) {
      if (i > 0 && reply.delayMs) await sleep(reply.delayMs, gone)
      if (reply.gate && i === reply.gate.after) await Promise.race([reply.gate.open, gone])
      if (closed) return
      await write(encodeFrame(frames[i]))
    }
    if (typeof reply.hang === "number") return gone
    // Destroying the socket mid-body is what a dropped connection looks like to the client.
    if (reply.cutAfter !== undefined) res.destroy()
    else res.end()
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (res.destroyed) return // the client went away mid-request; nothing to answer
      failures.push(`llm-server: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
      if (!res.headersSent) send(res, 500, JSON_TYPE, JSON.stringify({ error: { message: String(err) } }))
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    side,
    failures,
    script(...replies) {
      replies.forEach((reply, i) => validateReply(reply, `script() reply #${queue.length + i + 1}`))
      queue.push(...replies)
    },
    pending: () => queue.length,
    inFlight: () => open.size,
    reset() {
      queue.length = 0
      requests.length = 0
      side.length = 0
      failures.length = 0
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await Promise.all([closed, ...open])
    },
  }
}

function sendScriptedError(res: ServerResponse, wire: Wire, error: NonNullable<Reply["error"]>): void {
  const { status, body, headers = {} } = error
  let text: string
  if (body === undefined) text = JSON.stringify(wire.error(status, `llm-server: scripted HTTP ${status}`))
  else text = typeof body === "string" ? body : JSON.stringify(body)
  const type = typeof body === "string" && !looksLikeJson(body) ? { "content-type": "text/plain" } : JSON_TYPE
  send(res, status, { ...type, ...headers }, text)
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  res.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(text)) }).end(text)
}

function sleep(ms: number, gone: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), gone]).finally(() => clearTimeout(timer))
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })
}

function parseBody(raw: string): any {
  if (raw === "") return undefined
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v
  return out
}
