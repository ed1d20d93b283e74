import { toApiError } from "./transport"

export interface SubscribeOptions {
  signal?: AbortSignal
  /** Opens the stream; called again after a drop, with the last event id seen (send it as Last-Event-ID). */
  open: (signal: AbortSignal, lastId: string | undefined) => Promise<Response>
  /** Called each time the stream (re)connects. */
  onConnect?: () => void
  /** Called when the stream drops or cannot be opened; a reconnect follows. */
  onDrop?: (error: unknown) => void
  /** Max wait between reconnect attempts (ms). */
  maxBackoffMs?: number
}

/** Answers that waiting will not fix (bad request, wrong password, no such route): no reconnect. */
const FINAL = new Set([400, 401, 403, 404, 405])

/**
 * Reads SSE `data:` lines as events, reconnecting with backoff until `signal` aborts, and with
 * the last `id:` seen, so the server replays what came in between. A final refusal (401,
 * 404, …) ends the iteration with an ApiError instead of retrying.
 */
export async function* subscribeEvents<T = unknown>(opts: SubscribeOptions): AsyncGenerator<T> {
  const outer = opts.signal
  let backoff = 100
  const last: { id?: string } = {}
  while (!outer?.aborted) {
    const controller = new AbortController()
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
    // Cancel the body ourselves: with an in-process fetch nothing else ends the stream when
    // the request's signal aborts (and a collected Request no longer forwards its abort).
    const onAbort = () => {
      controller.abort(outer?.reason)
      reader?.cancel().catch(() => {})
    }
    outer?.addEventListener("abort", onAbort, { once: true })
    try {
      const res = await opts.open(controller.signal, last.id)
      if (FINAL.has(res.status)) throw Object.assign(await toApiError(res), { final: true })
      if (!res.ok || !res.body) throw new Error(`event stream answered HTTP ${res.status}`)
      reader = res.body.getReader()
      if (outer?.aborted) onAbort()
      opts.onConnect?.()
      backoff = 100
      for await (const event of parse<T>(reader, last)) yield event
      opts.onDrop?.(new Error("event stream ended"))
    } catch (e) {
      if (outer?.aborted) return
      if ((e as { final?: boolean }).final) throw e
      opts.onDrop?.(e)
    } finally {
      outer?.removeEventListener("abort", onAbort)
      controller.abort()
      reader?.cancel().catch(() => {})
    }
    if (outer?.aborted) return
    await new Promise((r) => setTimeout(r, backoff))
    backoff = Math.min(backoff * 2, opts.maxBackoffMs ?? 5000)
  }
}

/** Yields each event's parsed data; `last.id` follows the `id:` lines (set before the event is yielded). */
async function* parse<T>(reader: ReadableStreamDefaultReader<Uint8Array>, last: { id?: string }): AsyncGenerator<T> {
  const decoder = new TextDecoder()
  let buffer = ""
  while (true) {
    const { done, value } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    // Scan with an index and cut the buffer once per chunk: a chunk may hold thousands of events.
    let from = 0
    let end: number
    while ((end = buffer.indexOf("\n\n", from)) !== -1) {
      // `id: N` comes first when the event has one (server/sse.ts).
      if (buffer.startsWith("id:", from)) {
        const eol = buffer.indexOf("\n", from)
        last.id = buffer.slice(from + (buffer[from + 3] === " " ? 4 : 3), Math.min(eol, end))
        if (eol >= end) {
          from = end + 2
          continue
        }
        from = eol + 1
      }
      const data = dataOf(buffer, from, end)
      from = end + 2
      if (!data) continue
      try {
        yield JSON.parse(data) as T
      } catch {
        // a malformed event is skipped, the stream goes on
      }
    }
    if (from > 0) buffer = buffer.slice(from)
  }
}

/** The `data:` payload of the event in buffer[from, end); multi-line data is joined. */
function dataOf(buffer: string, from: number, end: number): string {
  // The common case: one `data: …` line.
  if (buffer.startsWith("data: ", from) && buffer.indexOf("\n", from) === end) return buffer.slice(from + 6, end)
  return buffer
    .slice(from, end)
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(l.startsWith("data: ") ? 6 : 5))
    .join("\n")
}
