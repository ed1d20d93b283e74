// A scripted LLM for tests and the offline demo, faked only at the HTTP wire: wright's real
// provider packages talk to it over real HTTP (OpenAI Chat Completions, OpenAI Responses,
// Anthropic Messages, Gemini generateContent; streamed or not). Replies are consumed in order from one queue; every
// request is recorded. It must import nothing but `node:` built-ins (it is bundled on its own
// into dist/llm-server.mjs) and never anything from wright's src/.
import type { Reply, ToolCallReply } from "./types"

export type {
  Finish,
  LLMServer,
  LLMServerOptions,
  Protocol,
  RecordedRequest,
  Reply,
  ToolCallReply,
  Usage,
} from "./types"
export { startLLMServer } from "./server"

/** A plain text answer. */
export function text(t: string, extra?: Partial<Reply>): Reply {
  return { ...extra, text: t }
}

/** One tool call (`extra.text` is streamed before it). */
export function toolCall(name: string, input: unknown, extra?: Partial<Reply>): Reply {
  return { ...extra, toolCalls: [{ name, input }] }
}

/** Several tool calls in one answer. */
export function toolCalls(calls: ToolCallReply[], extra?: Partial<Reply>): Reply {
  return { ...extra, toolCalls: calls }
}
