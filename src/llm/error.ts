// Turns whatever a provider call failed with (an HTTP error, an `error` stream part, a dropped
// socket, a timeout, an abort) into the named MessageError stored on the assistant message.
// Retryability follows OpenCode's rules; the loop decides whether and when to retry.
import { STATUS_CODES } from "node:http"
import { APICallError, LoadAPIKeyError } from "ai"
import { MessageError, NamedError } from "../protocol"
import { currentCatalog } from "./catalog"
import { ProviderTimeoutError } from "./fetch"

/** Provider wordings for "the prompt does not fit the context window". */
const OVERFLOW = [
  /prompt is too long/i,
  /input is too long for requested model/i,
  /exceeds the context window/i,
  /input token count.*exceeds the maximum/i,
  /maximum prompt length is \d+/i,
  /reduce the length of the messages/i,
  /maximum context length is \d+ tokens/i,
  /exceeds the limit of \d+/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /context window exceeds limit/i,
  /exceeded model token limit/i,
  /context[_ ]length[_ ]exceeded/i,
  /request entity too large/i,
  /context length is only \d+ tokens/i,
  /input length.*exceeds.*context length/i,
  /^4(00|13)\s*(status code)?\s*\(no body\)/i,
]

/** Transient failures: rate limits, overload, dropped connections, timeouts. */
const TRANSIENT = [
  /rate[ _-]?limit/i,
  /too[ _-]?many[ _-]?requests/i,
  /overloaded/i,
  /unavailable/i,
  /internal[ _-]?server[ _-]?error/i,
  /server[ _-]error/i,
  /provider returned error/i,
  /\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EAI_AGAIN|UND_ERR_SOCKET)\b/,
  /socket hang up/i,
  /fetch failed/i,
  /other side closed/i,
  /\bterminated\b/i,
  /premature close/i,
  /time[sd]? ?out/i,
  /try again/i,
  /exhausted/i,
  /at capacity/i,
  /zlib|decompress/i,
]

const AUTH = [/invalid[ _-]?api[ _-]?key/i, /incorrect api key/i, /invalid x-api-key/i, /api key not valid/i, /authentication/i, /unauthorized/i]

const matches = (patterns: RegExp[], text: string | undefined) => !!text && patterns.some((p) => p.test(text))

export function classifyError(e: unknown, providerID: string): MessageError {
  if (e instanceof NamedError) {
    const parsed = MessageError.safeParse(e.toObject())
    if (parsed.success) return parsed.data
    return { name: "UnknownError", data: { message: e.message } }
  }
  if (isAbort(e)) return { name: "MessageAbortedError", data: { message: "The request was aborted" } }
  // The SDK wraps a body that failed mid-stream ("Failed to process successful response").
  const timeout = causes(e).find((c) => c instanceof ProviderTimeoutError)
  if (timeout) return { name: "APIError", data: { message: timeout.message, isRetryable: true } }
  if (APICallError.isInstance(e)) return fromAPICall(e, providerID)
  if (LoadAPIKeyError.isInstance(e)) return auth(providerID, e.message)
  const payload = pick(e)
  if (payload && !(e instanceof Error)) return fromStreamPayload(payload, providerID)
  return fromText(chain(e), providerID)
}

function fromAPICall(e: APICallError, providerID: string): MessageError {
  const status = e.statusCode
  const body = e.responseBody
  const message = describe(e)
  if (status === 413 || errorCode(parseJSON(body)) === "context_length_exceeded" || matches(OVERFLOW, message) || matches(OVERFLOW, body)) {
    return { name: "ContextOverflowError", data: { message, ...(body ? { responseBody: body } : {}) } }
  }
  if (status === 401 || status === 403 || googleKeyRejected(parseJSON(body))) return auth(providerID, message)
  const headers = e.responseHeaders
  const verdict = headers?.["x-should-retry"]
  const retryable =
    verdict === "true" ||
    (verdict !== "false" &&
      (e.isRetryable ||
        status === 429 ||
        (status !== undefined && status >= 500) ||
        (status === 404 && providerID.startsWith("openai")) ||
        matches(TRANSIENT, message)))
  return {
    name: "APIError",
    data: {
      message,
      ...(status !== undefined ? { statusCode: status } : {}),
      isRetryable: retryable,
      ...(headers ? { responseHeaders: headers } : {}),
      ...(body !== undefined ? { responseBody: body } : {}),
      ...(e.url ? { metadata: { url: e.url } } : {}),
    },
  }
}

/** An `error` stream part whose payload is the provider's JSON (Anthropic, OpenAI, compatible servers). */
function fromStreamPayload(payload: Record<string, unknown>, providerID: string): MessageError {
  const inner = pick(payload.error) ?? pick(pick(payload.response)?.error) ?? payload
  const code = str(inner.code) ?? str(payload.code)
  const type = str(inner.type) ?? str(payload.type)
  const message = str(inner.message) ?? str(payload.message) ?? code ?? type ?? "Provider stream error"
  const responseBody = JSON.stringify(payload)
  if (code === "context_length_exceeded" || matches(OVERFLOW, message)) {
    return { name: "ContextOverflowError", data: { message, responseBody } }
  }
  if (type === "authentication_error" || type === "permission_error" || code === "invalid_api_key") return auth(providerID, message)
  const statusCode = typeof payload.statusCode === "number" ? payload.statusCode : undefined
  const retryable =
    code !== "insufficient_quota" &&
    (payload.isRetryable === true ||
      matches(TRANSIENT, `${type ?? ""} ${code ?? ""} ${message}`) ||
      (statusCode !== undefined && (statusCode === 429 || statusCode >= 500)))
  return { name: "APIError", data: { message, ...(statusCode !== undefined ? { statusCode } : {}), isRetryable: retryable, responseBody } }
}

function fromText(message: string, providerID: string): MessageError {
  if (matches(OVERFLOW, message)) return { name: "ContextOverflowError", data: { message } }
  if (matches(TRANSIENT, message)) return { name: "APIError", data: { message, isRetryable: true } }
  if (matches(AUTH, message)) return auth(providerID, message)
  return { name: "UnknownError", data: { message } }
}

function auth(providerID: string, message: string): MessageError {
  const env = currentCatalog().providers[providerID]?.env ?? []
  const where = [...env, `provider.${providerID}.options.apiKey`].join(" or ")
  return { name: "ProviderAuthError", data: { providerID, message: `${message} (check the API key in ${where})` } }
}

/** The SDK's message, plus the provider's own explanation from the body when it adds something. */
function describe(e: APICallError): string {
  const base = e.message || (e.statusCode ? STATUS_CODES[e.statusCode] : undefined) || e.responseBody || "Unknown error"
  const body = e.responseBody
  if (!body && e.cause instanceof Error && !base.includes(e.cause.message)) return `${base}: ${chain(e.cause)}`.trim()
  if (!body || /^\s*<(!doctype|html)/i.test(body)) return base.trim()
  const parsed = parseJSON(body)
  const detail = parsed === undefined ? body.trim() : bodyMessage(parsed)
  if (!detail || base.includes(detail)) return base.trim()
  return `${base}: ${detail}`.trim()
}

function bodyMessage(body: unknown): string | undefined {
  const root = pick(body)
  if (!root) return undefined
  return str(pick(root.error)?.message) ?? str(root.error) ?? str(root.message)
}

/** Gemini answers a bad or expired key with HTTP 400 INVALID_ARGUMENT; only the ErrorInfo reason tells. */
function googleKeyRejected(body: unknown): boolean {
  const details = pick(pick(body)?.error)?.details
  return Array.isArray(details) && details.some((d) => str(pick(d)?.reason)?.startsWith("API_KEY_") === true)
}

function errorCode(body: unknown): string | undefined {
  return str(pick(pick(body)?.error)?.code)
}

function isAbort(e: unknown): boolean {
  const name = pick(e)?.name
  return name === "AbortError" || name === "ResponseAborted"
}

/** `e` and its causes, outermost first. */
function causes(e: unknown): unknown[] {
  const out: unknown[] = []
  for (let c = e; c !== undefined && c !== null && !out.includes(c) && out.length < 8; c = c instanceof Error ? c.cause : undefined) out.push(c)
  return out
}

/** Message, causes and error codes in one line: "terminated: other side closed (UND_ERR_SOCKET)". */
function chain(e: unknown): string {
  const parts = causes(e).map((c) => {
    if (!(c instanceof Error)) return String(c)
    const code = (c as { code?: unknown }).code
    return typeof code === "string" ? `${c.message} (${code})` : c.message
  })
  return parts.filter(Boolean).join(": ") || "Unknown error"
}

function parseJSON(text: string | undefined): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function pick(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined
}
