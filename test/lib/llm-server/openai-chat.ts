// OpenAI Chat Completions (`POST /v1/chat/completions`), as parsed by @ai-sdk/openai's `.chat()`
// and by @ai-sdk/openai-compatible. Reasoning goes out as `reasoning_content` deltas, which only
// openai-compatible reads (OpenAI's own chat models never stream their reasoning).
import type { Turn } from "./turn"
import { errorType, frame, type Frame, type Wire, type WireContext } from "./wire"

const FINISH: Record<Turn["finish"], string> = {
  stop: "stop",
  "tool-calls": "tool_calls",
  length: "length",
  "content-filter": "content_filter",
}

function usage(turn: Turn) {
  const u = turn.usage
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, ...(turn.has.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}) },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  }
}

export const openaiChat: Wire = {
  callPrefix: "call_",

  stream(turn: Turn, ctx: WireContext): Frame[] {
    const id = ctx.newId("chatcmpl-")
    const chunk = (delta: object, finish: string | null = null) =>
      frame({
        id,
        object: "chat.completion.chunk",
        created: ctx.created,
        model: ctx.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      })
    const frames: Frame[] = [chunk({ role: "assistant", content: null })]
    for (const piece of turn.reasoning) frames.push(chunk({ reasoning_content: piece }))
    for (const piece of turn.text) frames.push(chunk({ content: piece }))
    turn.calls.forEach((call, index) => {
      frames.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }))
      for (const piece of call.chunks) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
    })
    frames.push(chunk({}, FINISH[turn.finish]))
    // Like the real API, usage comes in its own chunk with no choices; openai-compatible only asks
    // for it (stream_options.include_usage) when created with `includeUsage: true`.
    if (ctx.includeUsage) {
      frames.push(frame({ id, object: "chat.completion.chunk", created: ctx.created, model: ctx.model, choices: [], usage: usage(turn) }))
    }
    frames.push(frame("[DONE]"))
    return frames
  },

  json(turn: Turn, ctx: WireContext) {
    const text = turn.text.join("")
    const reasoning = turn.reasoning.join("")
    return {
      id: ctx.newId("chatcmpl-"),
      object: "chat.completion",
      created: ctx.created,
      model: ctx.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: text === "" ? null : text,
            ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
            ...(turn.calls.length > 0
              ? { tool_calls: turn.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } })) }
              : {}),
          },
          logprobs: null,
          finish_reason: FINISH[turn.finish],
        },
      ],
      usage: usage(turn),
    }
  },

  error(status: number, message: string) {
    return { error: { message, type: errorType(status, "openai"), param: null, code: status === 429 ? "rate_limit_exceeded" : null } }
  },
}
