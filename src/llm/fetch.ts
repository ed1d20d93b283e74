// The fetch every provider SDK uses: a provider that goes silent is cut off, never waited on
// forever. Headers must arrive within `headerTimeout`, and while the body streams each chunk
// within `chunkTimeout` of the previous one; either failure is a retryable ProviderTimeoutError.
import { declareError } from "../protocol"

export const DEFAULT_HEADER_TIMEOUT = 60_000
export const DEFAULT_CHUNK_TIMEOUT = 60_000

export type TimeoutPhase = "header" | "chunk" | "total"

/** Not named "TimeoutError" or "AbortError": the AI SDK treats those as a user abort. */
export class ProviderTimeoutError extends Error {
  /** Never answered as such: classifyError turns it into a retryable APIError first. */
  static readonly info = declareError("ProviderTimeoutError", { status: 504 })
  override readonly name = "ProviderTimeoutError"
  constructor(
    readonly phase: TimeoutPhase,
    readonly ms: number,
    url: string,
  ) {
    super(`${phase} timeout: ${describe(phase)} from ${host(url)} within ${ms} ms`)
  }
}

function describe(phase: TimeoutPhase): string {
  if (phase === "header") return "no response headers"
  if (phase === "chunk") return "no stream data"
  return "no complete response"
}

function host(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

export interface TimeoutOptions {
  /** ms; 0 or less disables. */
  headerTimeout?: number
  chunkTimeout?: number
  /** ms for the whole request; unset or 0 means none. */
  timeout?: number
}

export function timeoutFetch(base: typeof fetch, opts: TimeoutOptions): typeof fetch {
  const headerMs = opts.headerTimeout ?? DEFAULT_HEADER_TIMEOUT
  const chunkMs = opts.chunkTimeout ?? DEFAULT_CHUNK_TIMEOUT
  const totalMs = opts.timeout ?? 0

  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    const controller = new AbortController()
    const outer = init?.signal ?? undefined
    const forward = () => controller.abort(outer?.reason)
    if (outer?.aborted) forward()
    else outer?.addEventListener("abort", forward, { once: true })
    const expire = (phase: TimeoutPhase, ms: number) => () => controller.abort(new ProviderTimeoutError(phase, ms, url))
    const total = totalMs > 0 ? setTimeout(expire("total", totalMs), totalMs) : undefined
    const done = () => {
      clearTimeout(total)
      outer?.removeEventListener("abort", forward)
    }

    const headerTimer = headerMs > 0 ? setTimeout(expire("header", headerMs), headerMs) : undefined
    let res: Response
    try {
      res = await base(input, { ...init, signal: controller.signal })
    } catch (e) {
      done()
      throw ownReason(controller.signal) ?? e
    } finally {
      clearTimeout(headerTimer)
    }
    if (!res.body) {
      done()
      return res
    }
    return new Response(watchBody(res.body, controller, chunkMs, expire("chunk", chunkMs), done), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    })
  }
}

/**
 * Re-streams `body`, aborting the request when a chunk takes longer than `ms`. One timer serves
 * the whole body: each read only notes when it began, and the timer, when it fires, either
 * finds the read still waiting past `ms` or sets itself for the rest (a timer per read cost
 * ~2 µs a read, and a long answer makes thousands). Unref'd: a waiting read holds the process.
 */
function watchBody(
  body: ReadableStream<Uint8Array>,
  controller: AbortController,
  ms: number,
  onSilence: () => void,
  done: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let since = 0
  let waiting = false
  let timer: NodeJS.Timeout | undefined
  const check = () => {
    timer = undefined
    if (!waiting) return
    const left = since + ms - performance.now()
    if (left <= 0) onSilence()
    else arm(left)
  }
  const arm = (after: number) => {
    timer = setTimeout(check, after)
    timer.unref?.()
  }
  const stop = () => {
    clearTimeout(timer)
    timer = undefined
    done()
  }
  return new ReadableStream<Uint8Array>({
    async pull(out) {
      since = performance.now()
      waiting = true
      if (ms > 0 && timer === undefined) arm(ms)
      try {
        const next = await reader.read()
        waiting = false
        if (next.done) {
          stop()
          out.close()
        } else out.enqueue(next.value)
      } catch (e) {
        waiting = false
        stop()
        out.error(ownReason(controller.signal) ?? e)
      }
    },
    cancel(reason) {
      waiting = false
      stop()
      return reader.cancel(reason)
    },
  })
}

function ownReason(signal: AbortSignal): ProviderTimeoutError | undefined {
  return signal.aborted && signal.reason instanceof ProviderTimeoutError ? signal.reason : undefined
}

/** `wright/<version>`; the bundler defines the version, source runs report "dev". */
export function userAgent(): string {
  const version = typeof __WRIGHT_VERSION__ === "string" ? __WRIGHT_VERSION__ : "dev"
  return `wright/${version}`
}
