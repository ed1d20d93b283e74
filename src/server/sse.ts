import { jsonOnce, type Logger } from "../util"

export const HEARTBEAT_MS = 10_000

const encoder = new TextEncoder()

/** An event's JSON, serialised once however many clients stream it (see util/json-once). */
export const eventJson = jsonOnce

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
  /**
   * The event log's id of a live event (its seq), sent as the frame's `id:`: `ticketOf` is
   * taken when the event is sent (a number, so the stream does not hold the event), `idOf`
   * turns it into the seq when the chunk goes out, after `beforeFlush` (which writes the log,
   * giving queued events theirs).
   */
  ticketOf?: (event: object) => number | undefined
  idOf?: (ticket: number) => number | undefined
  beforeFlush?: () => void
  /** The `id:` of the first frame (`server.connected`): where a fresh client stands in the log. */
  connectedId?: () => number | undefined
}

/** What a stream's `subscribe` gets: `send` for live events, `frame` for JSON already made (a replay), `end`. */
export interface SseSink {
  send: (event: object) => void
  frame: (json: string, id?: number) => void
  end: () => void
}

// Every stream with something to send flushes in one pass at the next turn of the event loop.
// Every client of a project gets the same events in the same turn: the first stream of the pass
// encodes the chunk, and the others, finding the same frames, send the same bytes (a stream
// never changes a chunk it sent). With 20 clients this is most of the server's work per event.
// The chunk is kept for the pass only. (A pass, not a callback per stream: between two
// callbacks the microtasks run, the model's stream may publish more, and no two streams would
// have the same frames.)
let lastChunk: { frames: string[]; ids: (number | undefined)[]; tickets: (number | undefined)[]; idOf: unknown; bytes: Uint8Array } | undefined
let inPass = false
let due: (() => void)[] = []
function flushSoon(flush: () => void) {
  due.push(flush)
  if (due.length === 1) setImmediate(pass)
}
function pass() {
  // A stream that gets frames during the pass (a log flush feeds the session streams) is due at the next one.
  const now = due
  due = []
  inPass = true
  try {
    for (const fn of now) fn()
  } finally {
    inPass = false
    lastChunk = undefined
  }
}

/** The pass's chunk if these frames are the same (same JSON, same ids or log tickets of the same log). */
function sameAsLast(frames: string[], ids: (number | undefined)[], tickets: (number | undefined)[], idOf: unknown): Uint8Array | undefined {
  const last = lastChunk
  if (!last || last.frames.length !== frames.length || last.idOf !== idOf) return undefined
  for (let i = 0; i < frames.length; i++) if (last.frames[i] !== frames[i] || last.tickets[i] !== tickets[i] || last.ids[i] !== ids[i]) return undefined
  return last.bytes
}

type DeltaEvent = { type: "message.part.delta"; properties: { partID: string; field: string; delta: string } }
const isDelta = (e: object): e is DeltaEvent => (e as { type?: string }).type === "message.part.delta"

/**
 * An SSE response fed by `subscribe`: `server.connected` first, a `server.heartbeat` every
 * 10 s, then whatever `subscribe` sends. It ends when the client goes away, `signal` aborts,
 * or `subscribe` calls `end`.
 */
export function sseResponse(signal: AbortSignal, subscribe: (send: (event: object) => void, end: () => void, sink: SseSink) => () => void, opts: SseOptions = {}): Response {
  const format = opts.format ?? eventJson
  const ticketOf = opts.ticketOf
  const idOf = opts.idOf
  let cleanup = () => {}
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false
      let heartbeat: ReturnType<typeof setInterval> | undefined
      let unsubscribe = () => {}
      // Events published in one turn of the event loop (a burst of streamed deltas) go out
      // as one chunk: far fewer stream reads and wake-ups for every client. Each event's JSON
      // is taken when it is sent (the event's objects may change later); its `id:` (the log's
      // seq, given at the log's flush) is added when the chunk goes out: frame i carries the id
      // `ids[i]`, or else the seq of the log's ticket `tickets[i]`.
      let pending: string[] = []
      let ids: (number | undefined)[] = []
      let tickets: (number | undefined)[] = []
      // Whether some pending frame may carry an id (else the chunk is a plain join).
      let withIds = false
      // With coalesce: the delta still being merged (the last thing pending), sent at flush.
      let merging: { event: DeltaEvent; parts: string[]; last: number | undefined } | undefined
      const push = (text: string, id: number | undefined, ticket: number | undefined) => {
        pending.push(text)
        ids.push(id)
        tickets.push(ticket)
        if (id !== undefined || ticket !== undefined) withIds = true
      }
      const settle = () => {
        if (!merging) return
        const { event, parts, last } = merging
        merging = undefined
        const joined = parts.length === 1 ? event : { type: event.type, properties: { ...event.properties, delta: parts.join("") } }
        // The merged frame stands at its last delta's place in the log.
        push(format(joined), undefined, last)
      }
      const flush = () => {
        settle()
        if (closed || pending.length === 0) return
        if (withIds) opts.beforeFlush?.()
        let bytes = sameAsLast(pending, ids, tickets, idOf)
        if (!bytes) {
          // One string per frame: the frame is made here, not at send.
          let text = ""
          if (withIds)
            for (let i = 0; i < pending.length; i++) {
              const ticket = tickets[i]
              const id = ticket !== undefined ? idOf?.(ticket) : ids[i]
              text += id === undefined ? `data: ${pending[i]}\n\n` : `id: ${id}\ndata: ${pending[i]}\n\n`
            }
          else for (const json of pending) text += `data: ${json}\n\n`
          bytes = encoder.encode(text)
          if (inPass) lastChunk = { frames: pending, ids, tickets, idOf, bytes }
        }
        pending = []
        ids = []
        tickets = []
        withIds = false
        try {
          controller.enqueue(bytes)
        } catch (error) {
          // The stream errored under us (a client that left is seen by cancel() first).
          opts.log?.debug("event stream: a chunk could not be sent; closing the stream", { error })
          close()
        }
      }
      const wake = () => {
        if (pending.length === 0 && !merging) flushSoon(flush)
      }
      const send = (event: object) => {
        if (closed) return
        wake()
        if (opts.coalesce && isDelta(event)) {
          const p = event.properties
          const m = merging?.event.properties
          if (m && m.partID === p.partID && m.field === p.field) {
            merging!.parts.push(p.delta)
            merging!.last = ticketOf?.(event)
            return
          }
          settle()
          merging = { event, parts: [p.delta], last: ticketOf?.(event) }
          return
        }
        settle()
        push(format(event), undefined, ticketOf?.(event))
      }
      const frame = (json: string, id?: number) => {
        if (closed) return
        wake()
        settle()
        push(json, id, undefined)
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
      const end = () => close()
      send({ type: "server.connected", properties: {} })
      if (opts.connectedId) {
        ids[ids.length - 1] = opts.connectedId()
        withIds = true
      }
      unsubscribe = subscribe(send, end, { send, frame, end })
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
