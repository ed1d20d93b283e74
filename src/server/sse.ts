import type { BusEvent } from "../protocol"

export const HEARTBEAT_MS = 10_000

/**
 * An SSE response fed by `subscribe`. The first event is `server.connected`; a heartbeat
 * follows every 10 s; the subscription ends when the client goes away.
 */
export function sseResponse(
  signal: AbortSignal,
  subscribe: (send: (event: unknown) => void) => () => void,
  opts: { heartbeatMs?: number; first?: unknown } = {},
): Response {
  const encoder = new TextEncoder()
  let cleanup = () => {}
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false
      const send = (event: unknown) => {
        if (closed) return
        try {
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`))
        } catch {
          close()
        }
      }
      const unsubscribe = subscribe(send)
      const heartbeat = setInterval(() => send({ type: "server.heartbeat", properties: {} }), opts.heartbeatMs ?? HEARTBEAT_MS)
      heartbeat.unref?.()
      const close = () => {
        if (closed) return
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
      cleanup = close
      signal.addEventListener("abort", close, { once: true })
      send(opts.first ?? ({ type: "server.connected", properties: {} } satisfies BusEvent))
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
