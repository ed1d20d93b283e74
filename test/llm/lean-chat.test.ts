import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { withPlainChunkCheck } from "../../src/llm/chat-chunks"
import { partBatches, withLeanChatStream } from "../../src/llm/lean-chat"
import { startLLMServer, type LLMServer, type Reply } from "../lib/llm-server"

// The package's own doStream is the reference: the lean reader must give the same parts for
// the same wire, including errors and everything the fast chunk check hands back to the SDK.
let llm: LLMServer
let raw: Server
let frames = ""
beforeAll(async () => {
  llm = await startLLMServer()
  raw = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.end(frames)
  })
  await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r))
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(async () => {
  await llm.close()
  raw.close()
})

const models = (baseURL: string) => {
  const make = () => createOpenAICompatible({ name: "fake", baseURL, apiKey: "k", includeUsage: true }).chatModel("m")
  return { sdk: make(), lean: withLeanChatStream(withPlainChunkCheck(make())) }
}

async function partsOf(model: LanguageModelV3, batched = false): Promise<unknown[]> {
  const out: unknown[] = []
  // The scripted server makes up call ids per request: number them in order of appearance.
  const ids = new Map<string, string>()
  const normal = (part: LanguageModelV3StreamPart): unknown => {
    const p = { ...(part as Record<string, unknown>) }
    for (const key of ["id", "toolCallId"]) if (typeof p[key] === "string" && String(p[key]).startsWith("call_")) p[key] = ids.get(p[key] as string) ?? ids.set(p[key] as string, `call-${ids.size}`).get(p[key] as string)
    if (p.type === "response-metadata") return { ...p, id: typeof p.id, timestamp: typeof p.timestamp }
    if (p.type === "error") return { type: "error", error: describe(p.error) }
    return p
  }
  try {
    const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [{ type: "function", name: "read", inputSchema: { type: "object" } }] })
    const next = batched ? partBatches(stream) : undefined
    if (batched && !next) throw new Error("no batch reader for a lean stream")
    const reader = next ? undefined : stream.getReader()
    while (true) {
      if (next) {
        const batch = await next()
        if (!batch) break
        out.push(...batch.map(normal))
        continue
      }
      const { done, value } = await reader!.read()
      if (done) break
      out.push(normal(value))
    }
  } catch (e) {
    out.push({ thrown: describe(e) })
  }
  return out
}

function describe(e: any) {
  return { name: e?.name, message: e?.message, retryable: e?.isRetryable, status: e?.statusCode, cause: e?.cause?.code ?? e?.cause?.name }
}


/** The package's parts, and the lean reader's, read as a stream and in batches (which must agree). */
async function both(baseURL: string) {
  const { sdk, lean } = models(baseURL)
  const parts = { sdk: await partsOf(sdk), lean: await partsOf(lean) }
  expect(await partsOf(models(baseURL).lean, true)).toEqual(parts.lean)
  return parts
}

const SCRIPTED: Array<[string, Reply]> = [
  ["text in many deltas", { text: Array.from({ length: 50 }, (_, i) => `t${i} `), usage: { input: 10, output: 5 } }],
  ["reasoning, then text", { reasoning: ["let ", "me think"], text: "answer", usage: { input: 3, output: 9, reasoning: 4, cacheRead: 2 } }],
  ["text and two tool calls", { text: "Looking.", toolCalls: [{ name: "read", input: { filePath: "a.ts" } }, { name: "read", input: { filePath: "b.ts" } }] }],
  ["malformed tool arguments", { toolCalls: [{ name: "read", raw: '{"filePath": ' }] }],
  ["a length finish", { text: "cut", finish: "length" }],
  ["a slow stream", { text: ["a ", "b ", "c"], delayMs: 40 }],
  ["a stream cut mid-way", { text: Array.from({ length: 20 }, (_, i) => `c${i}`), cutAfter: 8 }],
  ["an HTTP 429", { error: { status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after": "1" } } }],
]

test.each(SCRIPTED)("lean chat stream - %s: the same parts as the package's own stream", async (_, reply) => {
  llm.script(reply, reply, reply)
  const { sdk, lean } = await both(`${llm.url}/v1`)
  expect(lean).toEqual(sdk)
  expect(sdk.length).toBeGreaterThan(reply.error ? 0 : 3)
})

const line = (v: unknown) => `data: ${typeof v === "string" ? v : JSON.stringify(v)}\n\n`
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ id: "x", created: 1700000000, model: "m", choices: [{ index: 0, delta: d, finish_reason: finish }] })
const done = line(delta({}, "stop")) + line("[DONE]")
/** Text deltas in the same frame, as a real stream sends them (a role on the first only). */
const many = (texts: string[]) => line({ ...delta({ role: "assistant", content: "" }) }) + texts.map((t) => line(delta({ content: t }))).join("") + done

const RAW: Array<[string, string]> = [
  ["an error chunk mid-stream", line(delta({ content: "a" })) + line({ error: { message: "overloaded", type: "server_error" } }) + done],
  ["a chunk that is not JSON", line(delta({ content: "a" })) + line("{not json") + done],
  ["a chunk of the wrong shape", line(delta({ content: 5 })) + done],
  ["content parts with thinking", line(delta({ content: [{ type: "thinking", thinking: [{ type: "text", text: "hmm" }] }, { type: "text", text: "yes" }] })) + done],
  ["a refusal", line(delta({ refusal: "I can't" })) + done],
  ["a non-string refusal", line(delta({ content: "a", refusal: false })) + done],
  ["CRLF line ends, comments and a data field over two lines", `: keep-alive\r\n\r\ndata: {"choices":[{"delta":\r\ndata: {"content":"two lines"}}]}\r\n\r\n` + done.replace(/\n/g, "\r\n")],
  ["a prototype key", line('{"choices":[{"delta":{"content":"p"}}],"__proto__":{"x":1}}') + done],
  ["no finish reason", line(delta({ content: "a" })) + line("[DONE]")],
  ["usage with prediction tokens", line(delta({ content: "a" })) + line({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, completion_tokens_details: { accepted_prediction_tokens: 1, rejected_prediction_tokens: 2 } } }) + done],
  ["many deltas of one frame with escapes, unicode and an empty one", many(["a ", 'say "hi"', "\\ back", "café 😀", "line\n", "", "tab\tend"])],
  ["a frame's slot holding a number, null, two strings and a raw control character", many(["a", "b"]) + [5, null, '"x","role":"assistant"', `"a${String.fromCharCode(1)}b"`].map((v) => `data: ${JSON.stringify(delta({ content: "SLOT" })).replace('"SLOT"', String(v))}\n\n`).join("") + done],
  ["frames that change id half-way", many(["a", "b"]) + many(["c", "d"]).replace(/"id":"x"/g, '"id":"y"')],
  ["a last event without its blank line", line(delta({ content: "a" }, "stop")) + `data: ${JSON.stringify(delta({ content: "lost?" }))}`],
]

test.each(RAW)("lean chat stream - %s: the same parts as the package's own stream", async (_, wire) => {
  frames = wire
  const { sdk, lean } = await both(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`)
  expect(lean).toEqual(sdk)
  expect(sdk.length).toBeGreaterThan(1)
})
