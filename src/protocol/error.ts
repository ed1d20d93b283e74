import { z } from "zod"

// Errors that cross a boundary (stored on a message, sent over HTTP or SSE) are named and
// serialisable as `{name, data}`. Each has a zod schema and a class made by `namedError`.

export class NamedError<N extends string = string, D = unknown> extends Error {
  constructor(
    override readonly name: N,
    readonly data: D,
    options?: { cause?: unknown },
  ) {
    super(messageOf(data) ?? name, options)
  }
  toObject(): { name: N; data: D } {
    return { name: this.name, data: this.data }
  }
}

function messageOf(data: unknown): string | undefined {
  if (data && typeof data === "object" && "message" in data && typeof data.message === "string") return data.message
  return undefined
}

export function namedError<N extends string, S extends z.ZodType>(name: N, data: S) {
  const Schema = z.object({ name: z.literal(name), data })
  return class extends NamedError<N, z.infer<S>> {
    static readonly Schema = Schema
    static readonly errorName = name
    constructor(d: z.infer<S>, options?: { cause?: unknown }) {
      super(name, d, options)
    }
    static is(e: unknown): e is NamedError<N, z.infer<S>> {
      return e instanceof NamedError && e.name === name
    }
  }
}

const message = z.object({ message: z.string() })

export const ProviderAuthError = namedError("ProviderAuthError", z.object({ providerID: z.string(), message: z.string() }))
export const UnknownError = namedError("UnknownError", z.object({ message: z.string(), ref: z.string().optional() }))
export const MessageOutputLengthError = namedError("MessageOutputLengthError", z.object({}).passthrough())
export const MessageAbortedError = namedError("MessageAbortedError", message)
export const StructuredOutputError = namedError("StructuredOutputError", z.object({ message: z.string(), retries: z.number() }))
export const ContextOverflowError = namedError("ContextOverflowError", z.object({ message: z.string(), responseBody: z.string().optional() }))
export const ContentFilterError = namedError("ContentFilterError", message)
export const APIError = namedError(
  "APIError",
  z.object({
    message: z.string(),
    statusCode: z.number().optional(),
    isRetryable: z.boolean(),
    responseHeaders: z.record(z.string(), z.string()).optional(),
    responseBody: z.string().optional(),
    metadata: z.record(z.string(), z.string()).optional(),
  }),
)

/** The error stored on an assistant message. */
export const MessageError = z.discriminatedUnion("name", [
  ProviderAuthError.Schema,
  UnknownError.Schema,
  MessageOutputLengthError.Schema,
  MessageAbortedError.Schema,
  StructuredOutputError.Schema,
  ContextOverflowError.Schema,
  ContentFilterError.Schema,
  APIError.Schema,
])
export type MessageError = z.infer<typeof MessageError>

// Errors the server maps to status codes (see server/). Data always carries a message.
export const NotFoundError = namedError("NotFoundError", message)
export const BadRequestError = namedError(
  "BadRequestError",
  z.object({ message: z.string(), issues: z.array(z.object({ path: z.string(), message: z.string() })).optional() }),
)
export const BusyError = namedError("BusyError", z.object({ message: z.string(), sessionID: z.string() }))
export const ProviderModelNotFoundError = namedError(
  "ProviderModelNotFoundError",
  z.object({ providerID: z.string(), modelID: z.string(), message: z.string(), suggestions: z.array(z.string()).optional() }),
)
export const AgentNotFoundError = namedError("AgentNotFoundError", z.object({ agent: z.string(), message: z.string(), available: z.array(z.string()) }))

/** `{name, data}` of any error, for the wire. Unnamed errors become UnknownError. */
export function toErrorObject(e: unknown): { name: string; data: Record<string, unknown> } {
  if (e instanceof NamedError) return { name: e.name, data: e.data as Record<string, unknown> }
  const text = e instanceof Error ? e.message : String(e)
  return { name: "UnknownError", data: { message: text } }
}
