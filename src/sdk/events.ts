import type { BusEvent } from "../protocol"

export interface SubscribeOptions {
  signal?: AbortSignal
  /** Opens the stream; called again after a drop. */
  open: (signal: AbortSignal) => Promise<Response>
  /** Called each time the stream (re)connects. */
  onConnect?: () => void
  /** Max wait between reconnect attempts (ms). */
  maxBackoffMs?: number
}

/** Reads SSE `data:` lines as events, reconnecting with backoff until aborted. */
export async function* subscribeEvents(opts: SubscribeOptions): AsyncGenerator<BusEvent> {
  const outer = opts.signal
  let backoff = 100
  while (!outer?.aborted) {
    const controller = new AbortController()
    const onAbort = () => controller.abort(outer?.reason)
    outer?.addEventListener("abort", onAbort, { once: true })
    try {
      const res = await opts.open(controller.signal)
      if (!res.ok || !res.body) throw new Error(`event stream answered HTTP ${res.status}`)
      opts.onConnect?.()
      backoff = 100
      for await (const event of parse(res.body)) yield event
    } catch (e) {
      if (outer?.aborted) return
      void e
    } finally {
      outer?.removeEventListener("abort", onAbort)
      controller.abort()
    }
    if (outer?.aborted) return
    await new Promise((r) => setTimeout(r, backoff))
    backoff = Math.min(backoff * 2, opts.maxBackoffMs ?? 5000)
  }
}

async function* parse(body: ReadableStream<Uint8Array>): AsyncGenerator<BusEvent> {
  const decoder = new TextDecoder()
  let buffer = ""
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(l.startsWith("data: ") ? 6 : 5))
        .join("\n")
      if (!data) continue
      try {
        yield JSON.parse(data) as BusEvent
      } catch {
        // a malformed event is skipped, the stream goes on
      }
    }
  }
}
