import type { Logger } from "../util"

export const HEARTBEAT_MS = 10_000

const encoder = new TextEncoder()
/**
 * The bus hands one event object to every subscriber in turn, so each event is serialised
 * once however many clients stream it: the last event's JSON is kept for the next client.
 */
let lastEvent: object | undefined
let lastJson = ""

export function eventJson(event: object): string {
  if (event !== lastEvent) {
    lastJson = JSON.stringify(event)
    lastEvent = event
  }
  return lastJson
}

export interface SseOptions {
  heartbeatMs?: number
  /**
   * Merge consecutive `message.part.delta` events of one part sent in the same flush into one
   * (their deltas joined): same final text, far fewer events for clients that only append.
   */
  coalesce?: boolean
  /** Turns an event (or the server's own connected/heartbeat events) into the JSON sent. */
  format?: (event: object) => string
  /** Where a stream that fails to take a chunk is told (it is closed then). */
  log?: Logger
}

/**
 * An SSE response fed by `subscribe`: `server.connected` first, a `server.heartbeat` every
 * 10 s, then whatever `subscribe` sends. It ends when the client goes away, `signal` aborts,
 * or `subscribe` calls `end`.
 */
type DeltaEvent = { type: "message.part.delta"; properties: { partID: string; field: string; delta: string } }
const isDelta = (e: object): e is DeltaEvent => (e as { type?: string }).type === "message.part.delta"

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
      // With coalesce: the delta still being merged (the last thing pending), sent at flush.
      let merging: { event: DeltaEvent; parts: string[] } | undefined
      const settle = () => {
        if (!merging) return
        const { event, parts } = merging
        merging = undefined
        const joined = parts.length === 1 ? event : { ...event, properties: { ...event.properties, delta: parts.join("") } }
        pending.push(`data: ${format(joined)}\n\n`)
      }
      const flush = () => {
        settle()
        if (closed || pending.length === 0) return
        const text = pending.join("")
        pending = []
        try {
          controller.enqueue(encoder.encode(text))
        } catch (error) {
          // The stream errored under us (a client that left is seen by cancel() first).
          opts.log?.debug("event stream: a chunk could not be sent; closing the stream", { error })
          close()
        }
      }
      const send = (event: object) => {
        if (closed) return
        if (pending.length === 0 && !merging) setImmediate(flush)
        if (opts.coalesce && isDelta(event)) {
          const p = event.properties
          const m = merging?.event.properties
          if (m && m.partID === p.partID && m.field === p.field) return void merging!.parts.push(p.delta)
          settle()
          merging = { event, parts: [p.delta] }
          return
        }
        settle()
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
