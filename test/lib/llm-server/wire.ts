// What each protocol module provides: the SSE frames of a streamed answer, the JSON of a
// non-streamed one, and the error body its provider package parses.
import type { Turn } from "./turn"

export interface Frame {
  event?: string
  data: string
}

export interface WireContext {
  model: string
  newId: (prefix: string) => string
  /** Unix seconds. */
  created: number
  /** The request asked for a usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean
}

export interface Wire {
  /** Prefix of generated tool-call ids ("call_", "toolu_"). */
  callPrefix: string
  stream(turn: Turn, ctx: WireContext): Frame[]
  json(turn: Turn, ctx: WireContext): unknown
  error(status: number, message: string): unknown
}

export function frame(data: unknown, event?: string): Frame {
  return { event, data: typeof data === "string" ? data : JSON.stringify(data) }
}

export function encodeFrame(f: Frame): string {
  return (f.event ? `event: ${f.event}\n` : "") + `data: ${f.data}\n\n`
}

/** The error `type` string OpenAI and Anthropic use for common statuses. */
export function errorType(status: number, flavour: "openai" | "anthropic"): string {
  const anthropic: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  }
  const openai: Record<number, string> = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
  }
  return (flavour === "anthropic" ? anthropic : openai)[status] ?? (flavour === "anthropic" ? "api_error" : "server_error")
}
