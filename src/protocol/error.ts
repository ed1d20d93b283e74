import { z } from "zod"
import { declaredInfo, declareError, type ErrorInfo } from "./error-info"

// Errors that cross a boundary (stored on a message, sent over HTTP or SSE) are named and
// serialisable as `{name, data}`. Each has a zod schema and a class made by `namedError`,
// which declares what the error means (status, quiet, stops the loop: see error-info.ts).

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

export function namedError<N extends string, S extends z.ZodType>(name: N, data: S, info?: Partial<ErrorInfo>) {
  const Schema = z.object({ name: z.literal(name), data })
  const declared = declareError(name, info)
  return class extends NamedError<N, z.infer<S>> {
    static readonly Schema = Schema
    static readonly errorName = name
    static readonly info = declared
    constructor(d: z.infer<S>, options?: { cause?: unknown }) {
      super(name, d, options)
    }
    static is(e: unknown): e is NamedError<N, z.infer<S>> {
      return e instanceof NamedError && e.name === name
    }
  }
}

const message = z.object({ message: z.string() })

export const ProviderAuthError = namedError("ProviderAuthError", z.object({ providerID: z.string(), message: z.string() }), { status: 401, quiet: true })
/**
 * A subscription login (GitHub Copilot, ChatGPT) whose refresh token no longer works (revoked,
 * expired, signed out elsewhere): only a new sign-in helps, so the loop does not retry it.
 */
export const ProviderLoginExpiredError = namedError("ProviderLoginExpiredError", z.object({ providerID: z.string(), message: z.string() }), { status: 401, quiet: true })
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
  ProviderLoginExpiredError.Schema,
  UnknownError.Schema,
  MessageOutputLengthError.Schema,
  MessageAbortedError.Schema,
  StructuredOutputError.Schema,
  ContextOverflowError.Schema,
  ContentFilterError.Schema,
  APIError.Schema,
])
export type MessageError = z.infer<typeof MessageError>

// Errors a request can end with. Data always carries a message.
export const NotFoundError = namedError("NotFoundError", message, { status: 404, quiet: true })
export const BadRequestError = namedError(
  "BadRequestError",
  z.object({ message: z.string(), issues: z.array(z.object({ path: z.string(), message: z.string() })).optional() }),
  { status: 400, quiet: true },
)
/**
 * The issue a BadRequestError carries on "model" when no provider can give a model (no key,
 * nothing configured): front ends say how to get one their own way (run: `wright auth login`,
 * the TUI: /connect). The TUI's main thread loads no protocol code and repeats the text.
 */
export const NO_MODEL_ISSUE = "no model is configured"
export const BusyError = namedError("BusyError", z.object({ message: z.string(), sessionID: z.string() }), { status: 409, quiet: true })
/** An inbox item was already delivered to the session: it can no longer be edited or withdrawn. */
export const InboxDeliveredError = namedError("InboxDeliveredError", z.object({ message: z.string(), sessionID: z.string(), itemID: z.string() }), { status: 409, quiet: true })
export const ProviderModelNotFoundError = namedError(
  "ProviderModelNotFoundError",
  z.object({ providerID: z.string(), modelID: z.string(), message: z.string(), suggestions: z.array(z.string()).optional() }),
  { status: 400, quiet: true },
)
export const AgentNotFoundError = namedError("AgentNotFoundError", z.object({ agent: z.string(), message: z.string(), available: z.array(z.string()) }), {
  status: 400,
  quiet: true,
})
/** A request the guard or the directory rule refuses; the message names the flag or config key that allows it. */
export const ForbiddenError = namedError("ForbiddenError", message, { status: 403, quiet: true })
export const PayloadTooLargeError = namedError("PayloadTooLargeError", message, { status: 413, quiet: true })
export const UnsupportedMediaTypeError = namedError("UnsupportedMediaTypeError", message, { status: 415, quiet: true })
/** The server needs a password (HTTP basic auth) and the request had none, or a wrong one. */
export const UnauthorizedError = namedError("UnauthorizedError", message, { status: 401, quiet: true })

/** The one answer for a session id that names nothing, whichever path asked. */
export function sessionNotFound(sessionID: string) {
  return new NotFoundError({ message: `Session not found: ${sessionID}` })
}

/**
 * `{name, data}` of any error, for the wire. A declared error that is not a NamedError (a
 * ConfigError) keeps its name with its message; anything else becomes UnknownError.
 */
export function toErrorObject(e: unknown): { name: string; data: Record<string, unknown> } {
  if (e instanceof NamedError) return { name: e.name, data: e.data as Record<string, unknown> }
  if (e instanceof Error && declaredInfo(e)) return { name: e.name, data: { message: e.message } }
  const text = e instanceof Error ? e.message : String(e)
  return { name: "UnknownError", data: { message: text } }
}

/** The error as `session.error` carries it: a MessageError as it is, anything else as UnknownError with its message. */
export function toMessageError(e: unknown): MessageError {
  const parsed = MessageError.safeParse(e instanceof NamedError ? e.toObject() : e)
  if (parsed.success) return parsed.data
  const text = e instanceof Error ? e.message : messageOf((e as { data?: unknown } | undefined)?.data) ?? String(e)
  return { name: "UnknownError", data: { message: text } }
}
