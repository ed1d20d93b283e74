// OpenAI Responses (`POST /v1/responses`), as parsed by @ai-sdk/openai's default model. Reasoning
// goes out as a reasoning item with summary events. The API has no finish reason of its own:
// "stop" and "tool-calls" are `response.completed` (the SDK infers tool-calls from the function
// calls), "length" and "content-filter" are `response.incomplete` with `incomplete_details.reason`.
import type { Turn } from "./turn"
import { errorType, frame, type Frame, type Wire, type WireContext } from "./wire"

const INCOMPLETE: Partial<Record<Turn["finish"], string>> = { length: "max_output_tokens", "content-filter": "content_filter" }

function usage(turn: Turn) {
  const u = turn.usage
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead, ...(turn.has.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}) },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  }
}

interface Items {
  reasoning?: { id: string; text: string }
  message?: { id: string; text: string }
  calls: { id: string; call_id: string; name: string; arguments: string }[]
}

function items(turn: Turn, ctx: WireContext): Items {
  return {
    reasoning: turn.reasoning.length > 0 ? { id: ctx.newId("rs_"), text: turn.reasoning.join("") } : undefined,
    message: turn.text.length > 0 ? { id: ctx.newId("msg_"), text: turn.text.join("") } : undefined,
    calls: turn.calls.map((c) => ({ id: ctx.newId("fc_"), call_id: c.id, name: c.name, arguments: c.args })),
  }
}

function outputs(it: Items): object[] {
  const out: object[] = []
  if (it.reasoning) out.push({ type: "reasoning", id: it.reasoning.id, summary: [{ type: "summary_text", text: it.reasoning.text }] })
  if (it.message) out.push(messageItem(it.message.id, it.message.text, "completed"))
  for (const c of it.calls) out.push({ type: "function_call", status: "completed", ...c })
  return out
}

function messageItem(id: string, text: string | undefined, status: string) {
  const content = text === undefined ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }]
  return { type: "message", id, status, role: "assistant", content }
}

function response(turn: Turn, ctx: WireContext, id: string, status: string, output: object[], withUsage: boolean) {
  const reason = INCOMPLETE[turn.finish]
  return {
    id,
    object: "response",
    created_at: ctx.created,
    status,
    model: ctx.model,
    output,
    incomplete_details: status === "in_progress" || !reason ? null : { reason },
    usage: withUsage ? usage(turn) : null,
  }
}

export const openaiResponses: Wire = {
  callPrefix: "call_",

  stream(turn: Turn, ctx: WireContext): Frame[] {
    const id = ctx.newId("resp_")
    const it = items(turn, ctx)
    const frames: Frame[] = []
    const emit = (type: string, fields: object) => frames.push(frame({ type, sequence_number: frames.length, ...fields }, type))
    emit("response.created", { response: response(turn, ctx, id, "in_progress", [], false) })
    emit("response.in_progress", { response: response(turn, ctx, id, "in_progress", [], false) })
    let index = 0
    if (it.reasoning) {
      const r = it.reasoning
      const part = { type: "summary_text", text: "" }
      emit("response.output_item.added", { output_index: index, item: { type: "reasoning", id: r.id, summary: [] } })
      emit("response.reasoning_summary_part.added", { item_id: r.id, output_index: index, summary_index: 0, part })
      for (const delta of turn.reasoning) {
        emit("response.reasoning_summary_text.delta", { item_id: r.id, output_index: index, summary_index: 0, delta })
      }
      emit("response.reasoning_summary_text.done", { item_id: r.id, output_index: index, summary_index: 0, text: r.text })
      emit("response.reasoning_summary_part.done", { item_id: r.id, output_index: index, summary_index: 0, part: { ...part, text: r.text } })
      emit("response.output_item.done", { output_index: index, item: outputs({ reasoning: r, calls: [] })[0] })
      index++
    }
    if (it.message) {
      const m = it.message
      const part = { type: "output_text", text: "", annotations: [], logprobs: [] }
      emit("response.output_item.added", { output_index: index, item: messageItem(m.id, undefined, "in_progress") })
      emit("response.content_part.added", { item_id: m.id, output_index: index, content_index: 0, part })
      for (const delta of turn.text) {
        emit("response.output_text.delta", { item_id: m.id, output_index: index, content_index: 0, delta, logprobs: [] })
      }
      emit("response.output_text.done", { item_id: m.id, output_index: index, content_index: 0, text: m.text, logprobs: [] })
      emit("response.content_part.done", { item_id: m.id, output_index: index, content_index: 0, part: { ...part, text: m.text } })
      emit("response.output_item.done", { output_index: index, item: messageItem(m.id, m.text, "completed") })
      index++
    }
    turn.calls.forEach((call, i) => {
      const c = it.calls[i]
      emit("response.output_item.added", { output_index: index, item: { type: "function_call", status: "in_progress", ...c, arguments: "" } })
      for (const delta of call.chunks) {
        emit("response.function_call_arguments.delta", { item_id: c.id, output_index: index, delta })
      }
      emit("response.function_call_arguments.done", { item_id: c.id, output_index: index, arguments: c.arguments })
      emit("response.output_item.done", { output_index: index, item: { type: "function_call", status: "completed", ...c } })
      index++
    })
    const done = INCOMPLETE[turn.finish] ? "incomplete" : "completed"
    emit(`response.${done}`, { response: response(turn, ctx, id, done, outputs(it), true) })
    return frames
  },

  json(turn: Turn, ctx: WireContext) {
    const done = INCOMPLETE[turn.finish] ? "incomplete" : "completed"
    return response(turn, ctx, ctx.newId("resp_"), done, outputs(items(turn, ctx)), true)
  },

  error(status: number, message: string) {
    return { error: { message, type: errorType(status, "openai"), param: null, code: status === 429 ? "rate_limit_exceeded" : null } }
  },
}
