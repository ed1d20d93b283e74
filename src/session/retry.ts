import type { MessageError } from "../protocol"

export const RETRY_MAX_ATTEMPTS = 5
const INITIAL_DELAY = 2000
const BACKOFF = 2
const JITTER = 0.25
const MAX_DELAY_NO_HEADERS = 30_000
const MAX_DELAY = 2_147_483_647

/** Whether a provider error is worth another attempt. Context overflow and auth never are. */
export function isRetryable(error: MessageError): boolean {
  return error.name === "APIError" && error.data.isRetryable
}

/**
 * Delay before attempt `attempt` (1-based): the provider's `retry-after-ms` / `retry-after`
 * when it sent one, else exponential backoff with jitter capped at 30 s.
 */
export function retryDelay(error: MessageError, attempt: number, now = Date.now(), random = Math.random): number {
  const backoff = Math.ceil(INITIAL_DELAY * BACKOFF ** (attempt - 1) * (1 + JITTER * random()))
  const headers = error.name === "APIError" ? lower(error.data.responseHeaders) : undefined
  if (headers) {
    const ms = Number(headers["retry-after-ms"])
    if (headers["retry-after-ms"] !== undefined && Number.isFinite(ms)) return clamp(ms)
    const after = headers["retry-after"]
    if (after !== undefined) {
      const seconds = Number(after)
      if (Number.isFinite(seconds)) return clamp(Math.ceil(seconds * 1000))
      const date = Date.parse(after)
      if (Number.isFinite(date)) return clamp(date - now)
    }
  }
  return clamp(Math.min(backoff, MAX_DELAY_NO_HEADERS))
}

function lower(h: Record<string, string> | undefined) {
  if (!h) return undefined
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]))
}

function clamp(ms: number) {
  return Math.max(0, Math.min(ms, MAX_DELAY))
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}
