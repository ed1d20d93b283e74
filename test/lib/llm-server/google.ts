// Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and `…:generateContent`), as
// parsed by @ai-sdk/google. Every SSE event is a whole GenerateContentResponse, with no event name
// and no closing [DONE]. Reasoning goes out as `thought: true` text parts; a tool call is one whole
// `functionCall {name, args}` part (Gemini never splits arguments), all of a turn's calls in one
// event, the first carrying a `thoughtSignature` as Gemini 3 does. A call's `id` is sent only when
// the script set one: the Gemini API usually leaves it out and the SDK makes one up. Gemini has no
// "tool-calls" finish reason: a turn with calls ends in STOP and the SDK infers tool-calls. The
// finish reason and the full usage come in a last event of their own.
import { Buffer } from "node:buffer"
import { parsedArgs, type Turn } from "./turn"
import { frame, type Frame, type Wire, type WireContext } from "./wire"

const FINISH: Record<Turn["finish"], string> = {
  stop: "STOP",
  "tool-calls": "STOP",
  length: "MAX_TOKENS",
  "content-filter": "SAFETY",
}

/** google.rpc.Code names Gemini puts in `error.status`. */
const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
}

/**
 * `promptTokenCount` counts cached tokens too; `candidatesTokenCount` leaves the thoughts out
 * (the SDK adds `thoughtsTokenCount` back). Gemini reports no cache writes.
 */
function usage(turn: Turn) {
  const u = turn.usage
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: Math.max(0, u.output - u.reasoning),
    totalTokenCount: u.input + u.output,
    ...(u.cacheRead > 0 ? { cachedContentTokenCount: u.cacheRead } : {}),
    ...(turn.has.reasoning || u.reasoning > 0 ? { thoughtsTokenCount: u.reasoning } : {}),
  }
}

function signature(ctx: WireContext): string {
  return Buffer.from(ctx.newId("sig_")).toString("base64")
}

/** Malformed `raw` arguments go out as a string `args`, which the SDK passes on unparsed. */
function callParts(turn: Turn, ctx: WireContext): object[] {
  return turn.calls.map((c, i) => ({
    functionCall: { ...(c.scriptedId ? { id: c.id } : {}), name: c.name, args: parsedArgs(c.args) },
    ...(i === 0 ? { thoughtSignature: signature(ctx) } : {}),
  }))
}

function response(ctx: WireContext, responseId: string, candidate: object, usageMetadata: object) {
  return { candidates: [{ index: 0, ...candidate }], usageMetadata, modelVersion: ctx.model, responseId }
}

export const google: Wire = {
  callPrefix: "call_",

  stream(turn: Turn, ctx: WireContext): Frame[] {
    const id = ctx.newId("resp_")
    // Like the real API, every event carries usage; until the last one only the prompt is counted.
    const early = { promptTokenCount: turn.usage.input, totalTokenCount: turn.usage.input }
    const chunk = (parts: object[]) => frame(response(ctx, id, { content: { parts, role: "model" } }, early))
    const frames: Frame[] = []
    for (const text of turn.reasoning) frames.push(chunk([{ text, thought: true }]))
    for (const text of turn.text) frames.push(chunk([{ text }]))
    if (turn.calls.length > 0) frames.push(chunk(callParts(turn, ctx)))
    frames.push(frame(response(ctx, id, { content: { parts: [{ text: "" }], role: "model" }, finishReason: FINISH[turn.finish] }, usage(turn))))
    return frames
  },

  json(turn: Turn, ctx: WireContext) {
    const parts: object[] = []
    const reasoning = turn.reasoning.join("")
    const text = turn.text.join("")
    if (reasoning !== "") parts.push({ text: reasoning, thought: true })
    if (text !== "") parts.push({ text })
    parts.push(...callParts(turn, ctx))
    return response(ctx, ctx.newId("resp_"), { content: { parts, role: "model" }, finishReason: FINISH[turn.finish] }, usage(turn))
  },

  error(status: number, message: string) {
    return { error: { code: status, message, status: STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION") } }
  },
}
