// A leaner read of the OpenAI Chat Completions stream for @ai-sdk/openai-compatible models.
// The package reads the response through five web streams (body, TextDecoderStream,
// EventSourceParserStream, an async JSON + zod step, its own transform), each a promise hop per
// streamed chunk: at 20,000 deltas that chain cost more than everything else wright does. Here
// the request is still built, sent and its failures answered by the package itself (its
// getArgs, body transform, headers, URL, error handler and fetch); only the successful body is
// read in one pull-driven stream: bytes -> the same SSE parser (eventsource-parser) -> JSON ->
// the fast chunk check (chat-chunks.ts; anything else goes to the package's schema) -> parts.
// The parts follow the package's transform field for field; test/llm/lean-chat.test.ts runs
// both on the same wire and compares them. A model without the members this needs (another
// package version) keeps the package's own doStream.
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { APICallError, EmptyResponseBodyError, InvalidResponseDataError } from "@ai-sdk/provider"
import { StreamingToolCallTracker, combineHeaders, extractResponseHeaders, generateId, isAbortError, postJsonToApi, safeParseJSON } from "@ai-sdk/provider-utils"
import type { ParseResult } from "@ai-sdk/provider-utils"
import { createParser } from "eventsource-parser"
import { PlainTextFrames, isPlainChatChunk } from "./chat-chunks"

type Controller = ReadableStreamDefaultController<LanguageModelV3StreamPart>
type StreamResult = Awaited<ReturnType<LanguageModelV3["doStream"]>>
type Any = any // the package's internals are untyped from here

/** The package's chat model members this reader relies on; all exist in @ai-sdk/openai-compatible 2.x. */
function hasInternals(m: Any): boolean {
  return typeof m.getArgs === "function" && typeof m.transformRequestBody === "function" && typeof m.convertUsage === "function" && m.config && typeof m.config.url === "function" && typeof m.config.headers === "function" && m.failedResponseHandler && m.chunkSchema
}

/** `model` with the lean stream reader; any other model is returned untouched. */
export function withLeanChatStream(model: LanguageModelV3): LanguageModelV3 {
  const m = model as Any
  if (!hasInternals(m)) return model
  m.doStream = (options: LanguageModelV3CallOptions) => leanDoStream(m, options)
  return model
}

/** The lean streams' batch readers, by stream (see partBatches). */
const BATCHES = new WeakMap<ReadableStream<LanguageModelV3StreamPart>, () => Promise<LanguageModelV3StreamPart[] | undefined>>()

/**
 * For a stream this reader made: a function that resolves the parts of each network read
 * together (undefined at the end), in the order the stream would give them one by one, with
 * the same errors. It replaces reading the stream: use one or the other. Undefined for any
 * other stream.
 */
export function partBatches(stream: ReadableStream<LanguageModelV3StreamPart>): (() => Promise<LanguageModelV3StreamPart[] | undefined>) | undefined {
  return BATCHES.get(stream)
}

async function leanDoStream(m: Any, options: LanguageModelV3CallOptions): Promise<StreamResult> {
  const { args, warnings, metadataKey } = await m.getArgs({ ...options })
  const body = m.transformRequestBody({ ...args, stream: true, stream_options: m.config.includeUsage ? { include_usage: true } : undefined }, warnings)
  const url: string = m.config.url({ path: "/chat/completions", modelId: m.modelId })
  const { responseHeaders, value: response } = await postJsonToApi({
    url,
    headers: combineHeaders(m.config.headers(), options.headers),
    body,
    failedResponseHandler: m.failedResponseHandler,
    successfulResponseHandler: async ({ response }) => {
      const responseHeaders = extractResponseHeaders(response)
      if (response.body == null) throw new EmptyResponseBodyError({})
      return { value: { body: response.body, status: response.status }, responseHeaders }
    },
    abortSignal: options.abortSignal,
    fetch: m.config.fetch,
  })
  const state = new ChatStreamState(m, metadataKey, warnings, options.includeRawChunks === true)
  const reader = response.body.getReader()
  const failed = (error: unknown) => bodyError(error, { url, requestBodyValues: body, statusCode: response.status, responseHeaders })
  const decoder = new TextDecoder()
  let events: string[] = []
  const parser = createParser({ onEvent: (e) => void (e.data !== "[DONE]" && events.push(e.data)) })
  // Raw chunks and a metadata extractor need every chunk's parsed value: no shortcut then.
  const frames = state.raw || state.extracts ? undefined : new PlainTextFrames()
  const sink: Controller = state.sink()
  state.start(sink)
  let finished = false
  /** The parts made so far, or else those of the next network chunk(s) that make any; undefined once the body ended and all were taken. */
  const next = async (): Promise<LanguageModelV3StreamPart[] | undefined> => {
    while (true) {
      if (state.parts.length > 0) return state.take()
      if (finished) return undefined
      const read = await reader.read().catch((e) => Promise.reject(failed(e)))
      parser.feed(read.done ? decoder.decode() : decoder.decode(read.value, { stream: true }))
      const batch = events
      events = []
      for (const data of batch) {
        const text = frames?.text(data)
        if (text !== undefined) state.plainText(sink, text)
        else state.chunk(sink, parse(data, frames) ?? (await safeParseJSON({ text: data, schema: m.chunkSchema })))
      }
      if (read.done) {
        finished = true
        state.flush(sink)
      }
    }
  }
  // Pulled only when read (highWaterMark 0), so that partBatches can read in its place.
  const stream = new ReadableStream<LanguageModelV3StreamPart>(
    {
      async pull(controller) {
        const parts = await next()
        if (parts === undefined) return controller.close()
        for (const part of parts) controller.enqueue(part)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
  BATCHES.set(stream, next)
  return { stream, request: { body }, response: { headers: responseHeaders } }
}

/**
 * The parse result for plain chunks without a promise; undefined sends the text to the SDK's
 * own parse (secure JSON parse + the package's schema), for errors and every other shape.
 */
function parse(data: string, frames: PlainTextFrames | undefined): ParseResult<Any> | undefined {
  // The SDK's parse refuses prototype keys; leave any text that could hold one to it.
  if (data.includes("__proto__") || data.includes("constructor")) return undefined
  let value: unknown
  try {
    value = JSON.parse(data)
  } catch {
    return undefined
  }
  if (!isPlainChatChunk(value)) return undefined
  frames?.learn(data, value)
  return { success: true, value, rawValue: value }
}

/** The SDK's error for a body that fails mid-stream: retryable when a network error caused it; aborts pass as they are. */
function bodyError(error: unknown, at: { url: string; requestBodyValues: unknown; statusCode: number; responseHeaders: Record<string, string> | undefined }): unknown {
  if (isAbortError(error)) return error
  return new APICallError({ message: "Failed to process successful response", cause: error, ...at, isRetryable: networkCause(error) ? true : undefined })
}

const NETWORK_CODES = new Set(["ConnectionRefused", "ConnectionClosed", "FailedToOpenSocket", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"])

function networkCause(error: unknown): boolean {
  const seen = new Set<unknown>()
  for (let e = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e)
    const code = (e as { code?: unknown }).code
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true
  }
  return false
}

/** What the package's stream transform keeps between chunks, and its handling of each. */
class ChatStreamState {
  private tracker!: StreamingToolCallTracker
  private pending = new Map<number, { id: string | null; args: string; extra: unknown }>()
  private forwarded = new Set<number>()
  private finishReason: { unified: Any; raw: string | undefined } | undefined
  private rawFinishReason: string | undefined
  private usage: Any
  private first = true
  private reasoning = false
  private text = false
  private refused = false
  private readonly extractor: Any
  /** Whether the provider's metadata extractor reads every chunk. */
  get extracts(): boolean {
    return this.extractor != null
  }

  constructor(
    private readonly m: Any,
    private readonly key: string,
    private readonly warnings: Any,
    readonly raw: boolean,
  ) {
    this.extractor = m.config.metadataExtractor?.createStreamExtractor()
  }

  /** Parts made and not yet taken, in order. */
  parts: LanguageModelV3StreamPart[] = []

  /** A controller that collects parts (the tool-call tracker's included) for take(). */
  sink(): Controller {
    return { enqueue: (part: LanguageModelV3StreamPart) => void this.parts.push(part) } as Controller
  }

  take(): LanguageModelV3StreamPart[] {
    const out = this.parts
    this.parts = []
    return out
  }

  start(controller: Controller) {
    const key = this.key
    this.tracker = new StreamingToolCallTracker(controller as Any, {
      generateId,
      extractMetadata: (delta: Any) => {
        const signature = delta.extra_content?.google?.thought_signature
        return signature ? { [key]: { thoughtSignature: signature } } : undefined
      },
      buildToolCallProviderMetadata: (metadata: Any) => metadata,
    } as Any)
    controller.enqueue({ type: "stream-start", warnings: this.warnings })
  }

  chunk(controller: Controller, chunk: ParseResult<Any>) {
    if (this.raw) controller.enqueue({ type: "raw", rawValue: chunk.rawValue })
    if (!chunk.success) {
      this.finishReason = { unified: "error", raw: undefined }
      controller.enqueue({ type: "error", error: chunk.error })
      return
    }
    this.extractor?.processChunk(chunk.rawValue)
    const value = chunk.value
    if ("error" in value) {
      this.finishReason = { unified: "error", raw: undefined }
      controller.enqueue({ type: "error", error: value.error })
      return
    }
    if (this.first) {
      this.first = false
      controller.enqueue({ type: "response-metadata", id: value.id ?? undefined, modelId: value.model ?? undefined, timestamp: value.created != null ? new Date(value.created * 1000) : undefined })
    }
    if (value.usage != null) this.usage = value.usage
    const choice = value.choices[0]
    if (choice?.finish_reason != null) this.rawFinishReason = choice.finish_reason
    const delta = choice?.delta
    if (delta == null) return
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (reasoning) this.reasoningDelta(controller, reasoning)
    for (const part of contentParts(delta.content)) {
      if (part.reasoning) this.reasoningDelta(controller, part.text)
      else this.textDelta(controller, part.text)
    }
    if (delta.refusal != null && delta.refusal.length > 0) {
      this.refused = true
      this.textDelta(controller, delta.refusal)
    }
    if (delta.tool_calls != null && delta.tool_calls.length > 0) {
      this.endReasoning(controller)
      for (const call of delta.tool_calls) this.toolCallDelta(call)
    }
  }

  /** A chunk PlainTextFrames read: one that only carries this content string (the chunk's handling, cut short). */
  plainText(controller: Controller, text: string) {
    if (text.length > 0) this.textDelta(controller, text)
  }

  flush(controller: Controller) {
    this.endReasoning(controller)
    if (this.text) controller.enqueue({ type: "text-end", id: "txt-0" })
    for (const [index, p] of this.pending) this.tracker.processDelta({ index, id: p.id, function: { arguments: p.args } } as Any)
    this.pending.clear()
    this.tracker.flush()
    if (this.rawFinishReason != null) this.finishReason = { unified: finishReason(this.rawFinishReason, this.refused), raw: this.rawFinishReason }
    if (this.finishReason == null) {
      this.finishReason = { unified: "error", raw: undefined }
      controller.enqueue({ type: "error", error: new InvalidResponseDataError({ data: undefined, message: "Response stream ended without a finish reason." }) })
    }
    const metadata: Any = { [this.key]: {}, ...this.extractor?.buildMetadata() }
    const details = this.usage?.completion_tokens_details
    if (details?.accepted_prediction_tokens != null) metadata[this.key].acceptedPredictionTokens = details.accepted_prediction_tokens
    if (details?.rejected_prediction_tokens != null) metadata[this.key].rejectedPredictionTokens = details.rejected_prediction_tokens
    controller.enqueue({ type: "finish", finishReason: this.finishReason, usage: this.m.convertUsage(this.usage), providerMetadata: metadata })
  }

  private endReasoning(controller: Controller) {
    if (!this.reasoning) return
    controller.enqueue({ type: "reasoning-end", id: "reasoning-0" })
    this.reasoning = false
  }

  private reasoningDelta(controller: Controller, delta: string) {
    if (this.text) {
      controller.enqueue({ type: "text-end", id: "txt-0" })
      this.text = false
    }
    if (!this.reasoning) {
      controller.enqueue({ type: "reasoning-start", id: "reasoning-0" })
      this.reasoning = true
    }
    controller.enqueue({ type: "reasoning-delta", id: "reasoning-0", delta })
  }

  private textDelta(controller: Controller, delta: string) {
    this.endReasoning(controller)
    if (!this.text) {
      controller.enqueue({ type: "text-start", id: "txt-0" })
      this.text = true
    }
    controller.enqueue({ type: "text-delta", id: "txt-0", delta })
  }

  /** A call's arguments are held back until its name is known, then handed to the tracker. */
  private toolCallDelta(call: Any) {
    const index = call.index
    if (index == null || this.forwarded.has(index)) {
      this.tracker.processDelta(call)
      return
    }
    let p = this.pending.get(index)
    if (p == null) this.pending.set(index, (p = { id: call.id ?? null, args: "", extra: call.extra_content ?? null }))
    else {
      if (p.id == null && call.id != null) p.id = call.id
      if (p.extra == null && call.extra_content != null) p.extra = call.extra_content
    }
    if (call.function?.arguments != null) p.args += call.function.arguments
    const name = call.function?.name
    if (name == null) return
    this.tracker.processDelta({ index, id: p.id, function: { name, arguments: p.args }, extra_content: p.extra ?? undefined } as Any)
    this.pending.delete(index)
    this.forwarded.add(index)
  }
}

function finishReason(raw: string, refused: boolean): Any {
  switch (raw) {
    case "stop":
      return refused ? "content-filter" : "stop"
    case "length":
      return "length"
    case "content_filter":
      return "content-filter"
    case "function_call":
    case "tool_calls":
      return "tool-calls"
    default:
      return "other"
  }
}

/** Text and reasoning in a delta's `content`: a string, or parts (`text`, or `thinking` with text pieces). */
function contentParts(content: unknown): Array<{ text: string; reasoning: boolean }> {
  if (content == null) return []
  if (typeof content === "string") return content.length > 0 ? [{ text: content, reasoning: false }] : []
  const out: Array<{ text: string; reasoning: boolean }> = []
  for (const part of content as Any[]) {
    if (part.type === "text" && typeof part.text === "string") {
      if (part.text.length > 0) out.push({ text: part.text, reasoning: false })
    } else if (part.type === "thinking" && Array.isArray(part.thinking)) {
      const text = part.thinking
        .filter((c: Any) => c != null && typeof c === "object" && c.type === "text" && typeof c.text === "string")
        .map((c: Any) => c.text)
        .join("")
      if (text.length > 0) out.push({ text, reasoning: true })
    }
  }
  return out
}
