// Anthropic Messages (`POST /v1/messages`), as parsed by @ai-sdk/anthropic. Reasoning goes out as a
// `thinking` block closed by a signature delta. Anthropic's `input_tokens` excludes cached tokens,
// so it is sent as input - cacheRead - cacheWrite and the SDK adds the cache numbers back.
import { Buffer } from "node:buffer"
import { parsedArgs, type Turn } from "./turn"
import { errorType, frame, type Frame, type Wire, type WireContext } from "./wire"

const STOP: Record<Turn["finish"], string> = {
  stop: "end_turn",
  "tool-calls": "tool_use",
  length: "max_tokens",
  "content-filter": "refusal",
}

function inputUsage(turn: Turn) {
  const u = turn.usage
  return {
    input_tokens: Math.max(0, u.input - u.cacheRead - u.cacheWrite),
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
  }
}

function outputUsage(turn: Turn) {
  return {
    output_tokens: turn.usage.output,
    ...(turn.has.reasoning ? { output_tokens_details: { thinking_tokens: turn.usage.reasoning } } : {}),
  }
}

function signature(ctx: WireContext): string {
  return Buffer.from(ctx.newId("sig_")).toString("base64")
}

export const anthropic: Wire = {
  callPrefix: "toolu_",

  stream(turn: Turn, ctx: WireContext): Frame[] {
    const frames: Frame[] = []
    const emit = (type: string, fields: object = {}) => frames.push(frame({ type, ...fields }, type))
    emit("message_start", {
      message: {
        id: ctx.newId("msg_"),
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage(turn), output_tokens: 1 },
      },
    })
    emit("ping")
    let index = 0
    if (turn.reasoning.length > 0) {
      emit("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } })
      for (const thinking of turn.reasoning) emit("content_block_delta", { index, delta: { type: "thinking_delta", thinking } })
      emit("content_block_delta", { index, delta: { type: "signature_delta", signature: signature(ctx) } })
      emit("content_block_stop", { index })
      index++
    }
    if (turn.text.length > 0) {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } })
      for (const text of turn.text) emit("content_block_delta", { index, delta: { type: "text_delta", text } })
      emit("content_block_stop", { index })
      index++
    }
    for (const call of turn.calls) {
      emit("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } })
      emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } })
      for (const partial_json of call.chunks) emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } })
      emit("content_block_stop", { index })
      index++
    }
    emit("message_delta", { delta: { stop_reason: STOP[turn.finish], stop_sequence: null }, usage: outputUsage(turn) })
    emit("message_stop")
    return frames
  },

  json(turn: Turn, ctx: WireContext) {
    const content: object[] = []
    const reasoning = turn.reasoning.join("")
    const text = turn.text.join("")
    if (reasoning !== "") content.push({ type: "thinking", thinking: reasoning, signature: signature(ctx) })
    if (text !== "") content.push({ type: "text", text })
    for (const c of turn.calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: parsedArgs(c.args) })
    return {
      id: ctx.newId("msg_"),
      type: "message",
      role: "assistant",
      model: ctx.model,
      content,
      stop_reason: STOP[turn.finish],
      stop_sequence: null,
      usage: { ...inputUsage(turn), ...outputUsage(turn) },
    }
  },

  error(status: number, message: string) {
    return { type: "error", error: { type: errorType(status, "anthropic"), message } }
  },
}
