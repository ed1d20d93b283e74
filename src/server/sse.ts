export const HEARTBEAT_MS = 10_000

const encoder = new TextEncoder()
/**
 * The bus hands the same event object to every subscriber, so each event is serialised once
 * however many clients stream it (the cache lets go of an event once nobody holds it).
 */
const jsonCache = new WeakMap<object, string>()

export function eventJson(event: object): string {
  let json = jsonCache.get(event)
  if (json === undefined) {
    json = JSON.stringify(event)
    jsonCache.set(event, json)
  }
  return json
}

export interface SseOptions {
  heartbeatMs?: number
  /** Turns an event (or the server's own connected/heartbeat events) into the JSON sent. */
  format?: (event: object) => string
}

/**
 * An SSE response fed by `subscribe`: `server.connected` first, a `server.heartbeat` every
 * 10 s, then whatever `subscribe` sends. It ends when the client goes away, `signal` aborts,
 * or `subscribe` calls `end`.
 */
export function sseResponse(signal: AbortSignal, subscribe: (send: (event: object) => void, end: () => void) => () => void, opts: SseOptions = {}): Response {
  const format = opts.format ?? eventJson
  let cleanup = () => {}
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false
      let heartbeat: ReturnType<typeof setInterval> | undefined
      let unsubscribe = () => {}
      // Events published in one turn of the event loop (a burst of streamed deltas) go out
      // as one chunk: far fewer stream reads and wake-ups for every client.
      let pending: string[] = []
      const flush = () => {
        if (closed || pending.length === 0) return
        const text = pending.join("")
        pending = []
        try {
          controller.enqueue(encoder.encode(text))
        } catch {
          close()
        }
      }
      const send = (event: object) => {
        if (closed) return
        if (pending.length === 0) setImmediate(flush)
        pending.push(`data: ${format(event)}\n\n`)
      }
      const close = () => {
        if (closed) return
        flush()
        closed = true
        clearInterval(heartbeat)
        unsubscribe()
        signal.removeEventListener("abort", close)
        try {
          controller.close()
        } catch {
          // already closed by the reader
        }
      }
      send({ type: "server.connected", properties: {} })
      unsubscribe = subscribe(send, () => close())
      heartbeat = setInterval(() => send({ type: "server.heartbeat", properties: {} }), opts.heartbeatMs ?? HEARTBEAT_MS)
      heartbeat.unref?.()
      cleanup = close
      if (signal.aborted) close()
      else signal.addEventListener("abort", close, { once: true })
    },
    cancel() {
      cleanup()
    },
  })
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  })
}
