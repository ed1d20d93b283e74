// The replayable event log: every event that belongs to a session (its properties name a
// sessionID) is stored with a sequence number `seq`, one sequence per database, shared by every
// process that opens it (AUTOINCREMENT: a seq is never reused, even after a trim). The SSE
// streams send `seq` as each event's `id:`, and a client that reconnects with the last id it
// saw gets exactly the events after it.
//
// Cost on the hot path: `append` only queues (and gives the event a ticket, its place in this
// log's order). The queue is written at the next turn of the event loop (or earlier, when a
// stream is about to send: `flush`), in one IMMEDIATE transaction; there each ticket gets its
// seq, and a stream turns the tickets of its frames into ids (`seqOfTicket`). Consecutive text deltas of one part become ONE
// row holding the joined text and each delta's length (`cuts`), with a seq per delta
// (seq-n+1..seq): a replay cuts them apart again, so a client rebuilds exactly what it missed,
// delta by delta, each with its own id.
//
// Bound on disk: a session keeps its newest `maxEvents` events and `maxBytes` of event JSON;
// a compacted session drops the events before its compaction; a deleted session drops all its
// events but the `session.deleted` itself. The newest seq dropped per session is remembered
// (`event_trim`): a replay that would need a dropped event answers `resync` instead.
import type { BusEvent } from "../protocol"
import { jsonOnce } from "../util"
import type { DB } from "./database"

export interface EventLogOptions {
  /** false: nothing is logged (the benchmark's baseline). Default true. */
  enabled?: boolean
  /** Per session, the newest events kept (a text delta counts as one). Default 50,000. */
  maxEvents?: number
  /** Per session, the event JSON kept, in characters. Default 16 MB. */
  maxBytes?: number
  /** A replay longer than this answers `resync` instead (the client reloads). Default 100,000. */
  maxReplay?: number
}

export const EVENT_LOG_DEFAULTS = { maxEvents: 50_000, maxBytes: 16 * 1024 * 1024, maxReplay: 100_000 } as const

/** One logged event as it goes out again: its seq, project and JSON (exactly as first sent). */
export interface LoggedEvent {
  seq: number
  directory: string
  json: string
}

/** Which events a replay is about: one session, one project (directory), or all. */
export type ReplayScope = { sessionID: string } | { directory: string } | Record<string, never>

/**
 * The answer to "what came after seq N": the events, in order; or `resync` when some of them
 * are gone (trimmed, compacted away), the id is unknown here (another database, a future seq)
 * or there are too many: the client must reload its state. `head` is the newest seq now.
 */
export type Replay =
  | { resync: false; head: number; events: LoggedEvent[] }
  | { resync: true; head: number; reason: "trimmed" | "unknown-id" | "too-many"; sessions?: string[] }

// An event's ticket: its place among the events this log was given (1, 2, 3…), given at append.
// A ticket becomes a seq when its batch is written (`seqOfTicket`). The streams ask for it in
// the same bus delivery (the log's subscriber runs first): the newest appended events are
// looked up by identity. Only events other than text deltas also carry it as a property: a
// property added to each of 20,000 deltas gave each one more allocation for the GC.
const TICKET: unique symbol = Symbol("wright.ticket")
type Ticketed = { [TICKET]?: number }
/** How many of the newest appended events `ticketOf` finds by identity (a publish nested in another's delivery). */
const RECENT = 8

type Run = { event: BusEvent; directory: string; sessionID: string; deltas: string[] | undefined }
type Row = { seq: number; directory: string; n: number; cuts: string | null; data: string }
type Delta = Extract<BusEvent, { type: "message.part.delta" }>

export function createEventLog(db: DB, opts: EventLogOptions = {}) {
  const enabled = opts.enabled !== false
  const maxEvents = opts.maxEvents ?? EVENT_LOG_DEFAULTS.maxEvents
  const maxBytes = opts.maxBytes ?? EVENT_LOG_DEFAULTS.maxBytes
  const maxReplay = opts.maxReplay ?? EVENT_LOG_DEFAULTS.maxReplay
  const q = {
    head: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'event'`).pluck(),
    insert: db.prepare(`INSERT INTO event (seq, session_id, directory, n, cuts, data) VALUES (?, ?, ?, ?, ?, ?)`),
    dropBefore: db.prepare(`DELETE FROM event WHERE session_id = ? AND seq < ?`),
    dropUpTo: db.prepare(`DELETE FROM event WHERE session_id = ? AND seq <= ?`),
    newestUpTo: db.prepare(`SELECT max(seq) FROM event WHERE session_id = ? AND seq <= ?`).pluck(),
    forgetTrim: db.prepare(`DELETE FROM event_trim WHERE session_id = ?`),
    trimmed: db.prepare(
      `INSERT INTO event_trim (session_id, directory, seq) VALUES (?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET seq = max(seq, excluded.seq)`,
    ),
    // The newest row past the session's budget, counting from its newest event back.
    overBudget: db
      .prepare(
        `SELECT seq FROM (
           SELECT seq, SUM(n) OVER w AS events, SUM(length(data)) OVER w AS chars
           FROM event WHERE session_id = ? WINDOW w AS (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING)
         ) WHERE events > ? OR chars > ? LIMIT 1`,
      )
      .pluck(),
    afterSession: db.prepare(`SELECT seq, directory, n, cuts, data FROM event WHERE session_id = ? AND seq > ? ORDER BY seq`),
    afterDirectory: db.prepare(`SELECT seq, directory, n, cuts, data FROM event WHERE directory = ? AND seq > ? ORDER BY seq`),
    afterAll: db.prepare(`SELECT seq, directory, n, cuts, data FROM event WHERE seq > ? ORDER BY seq`),
    countSession: db.prepare(`SELECT coalesce(sum(n), 0) FROM event WHERE session_id = ? AND seq > ?`).pluck(),
    countDirectory: db.prepare(`SELECT coalesce(sum(n), 0) FROM event WHERE directory = ? AND seq > ?`).pluck(),
    countAll: db.prepare(`SELECT coalesce(sum(n), 0) FROM event WHERE seq > ?`).pluck(),
    trimSession: db.prepare(`SELECT session_id FROM event_trim WHERE session_id = ? AND seq > ?`).pluck(),
    trimDirectory: db.prepare(`SELECT session_id FROM event_trim WHERE directory = ? AND seq > ?`).pluck(),
    trimAll: db.prepare(`SELECT session_id FROM event_trim WHERE seq > ?`).pluck(),
  }
  // The queue, as runs: a run is one event, or consecutive text deltas of one part (one row
  // to be). Only a run's first event is held (and a delta run's strings): holding every event
  // of a streamed burst until the flush made the young-generation GC copy them all.
  let queued: Run[] = []
  let scheduled = false
  // Tickets: `appended` is the newest given; the queue holds those after `written`.
  let appended = 0
  // The newest appended events and their tickets, a ring: recent[appended % RECENT].
  const recent: (object | undefined)[] = new Array(RECENT)
  let written = 0
  // The newest batches written: tickets start..end (inclusive) got seqs seq..; seq undefined
  // when the write failed. A stream resolves its tickets in the same turn (at its flush, after
  // writing the queue), so a short history is plenty.
  const batches: { start: number; end: number; seq: number | undefined }[] = []
  const listeners = new Set<() => void>()
  // Events and characters each session logged since its budget was last checked (this process).
  const sinceCheck = new Map<string, { events: number; chars: number; directory: string }>()

  const sameRun = (run: Run, directory: string, e: Delta) => {
    if (!run.deltas || run.directory !== directory) return false
    const p = (run.event as Delta).properties
    const o = e.properties
    return p.partID === o.partID && p.field === o.field && p.sessionID === o.sessionID
  }

  /** Writes the runs; returns the seq of their first event (each event has the next one). */
  const write = db.transaction((runs: Run[]): number => {
    let seq = (q.head.get() as number | undefined) ?? 0
    const before = seq
    for (const run of runs) {
      const { event, directory, sessionID, deltas } = run
      const n = deltas ? deltas.length : 1
      let data: string
      let cuts: string | null = null
      if (n === 1) data = jsonOnce(event)
      else {
        const e = event as Delta
        data = JSON.stringify({ type: e.type, properties: { ...e.properties, delta: deltas!.join("") } })
        cuts = JSON.stringify(deltas!.map((d) => d.length))
      }
      seq += n
      q.insert.run(seq, sessionID, directory, n, cuts, data)
      if (event.type === "session.deleted") {
        // Its events go; the deletion itself stays, so a client replaying past it hears of it.
        q.dropBefore.run(sessionID, seq)
        q.forgetTrim.run(sessionID)
        sinceCheck.delete(sessionID)
      } else if (event.type === "session.compacted") {
        // What came before this batch goes; this batch's events stay (a client following the
        // session from the log reads them after this transaction).
        const last = q.newestUpTo.get(sessionID, before) as number | null
        if (last !== null) {
          q.dropUpTo.run(sessionID, last)
          q.trimmed.run(sessionID, directory, last)
        }
      } else {
        const c = sinceCheck.get(sessionID) ?? { events: 0, chars: 0, directory }
        c.events += n
        c.chars += data.length
        sinceCheck.set(sessionID, c)
        // A session's budget is checked after each eighth of it was logged: the check scans its rows.
        if (c.events * 8 > maxEvents || c.chars * 8 > maxBytes) trim(sessionID, c.directory)
      }
    }
    return before + 1
  })

  function trim(sessionID: string, directory: string) {
    sinceCheck.delete(sessionID)
    const cut = q.overBudget.get(sessionID, maxEvents, maxBytes) as number | undefined
    if (cut === undefined) return
    q.dropUpTo.run(sessionID, cut)
    q.trimmed.run(sessionID, directory, cut)
  }

  /** Never throws: a busy or closed database loses this batch from the log (the events were sent live without ids). */
  function flush() {
    if (queued.length === 0) return
    const runs = queued
    queued = []
    const start = written + 1
    written = appended
    let seq: number | undefined
    try {
      seq = write.immediate(runs)
    } catch {
      seq = undefined
    }
    batches.push({ start, end: written, seq })
    if (batches.length > 64) batches.shift()
    if (seq !== undefined) for (const fn of listeners) fn()
  }

  /** The seq of the event given `ticket`; undefined while it is queued, or when its write failed. */
  function seqOfTicket(ticket: number | undefined): number | undefined {
    if (ticket === undefined || ticket > written) return undefined
    for (let i = batches.length - 1; i >= 0; i--) {
      const b = batches[i]!
      if (ticket >= b.start) return b.seq === undefined ? undefined : b.seq + (ticket - b.start)
    }
    return undefined
  }

  function ticketOf(event: object): number | undefined {
    for (let t = appended; t > appended - RECENT && t > 0; t--) if (recent[t % RECENT] === event) return t
    return (event as Ticketed)[TICKET]
  }

  function expand(row: Row, after: number, out: LoggedEvent[]) {
    if (row.n === 1) return void out.push({ seq: row.seq, directory: row.directory, json: row.data })
    const e = JSON.parse(row.data) as Delta
    const cuts = JSON.parse(row.cuts ?? "[]") as number[]
    const text = e.properties.delta
    let at = 0
    let seq = row.seq - row.n
    for (const len of cuts) {
      seq++
      const delta = text.slice(at, at + len)
      at += len
      if (seq <= after) continue
      out.push({ seq, directory: row.directory, json: JSON.stringify({ ...e, properties: { ...e.properties, delta } }) })
    }
  }

  return {
    enabled,
    /**
     * Queues a bus event of `directory`'s App and returns its ticket; events without a sessionID
     * are not logged (undefined). Never throws.
     */
    append(directory: string, event: BusEvent): number | undefined {
      if (!enabled) return undefined
      const sessionID = (event.properties as { sessionID?: unknown }).sessionID
      if (typeof sessionID !== "string") return undefined
      const ticket = ++appended
      recent[ticket % RECENT] = event
      if (event.type === "message.part.delta") {
        // A delta's properties are its own strings: its JSON can wait for the flush.
        const last = queued[queued.length - 1]
        if (last && sameRun(last, directory, event)) last.deltas!.push(event.properties.delta)
        else queued.push({ event, directory, sessionID, deltas: [event.properties.delta] })
      } else {
        // Taken now: the objects an event carries (a part) change as the stream goes on.
        jsonOnce(event)
        ;(event as Ticketed)[TICKET] = ticket
        queued.push({ event, directory, sessionID, deltas: undefined })
      }
      if (!scheduled) {
        scheduled = true
        setImmediate(() => {
          scheduled = false
          flush()
        })
      }
      return ticket
    },
    /** Writes what is queued now, so every event published so far has its seq (streams call it before sending). */
    flush,
    /** The seq an event got, once flushed (a text delta: only while it is being published); undefined for events that are not logged. */
    seqOf: (event: object): number | undefined => seqOfTicket(ticketOf(event)),
    /**
     * An event's ticket, taken when it is sent (the stream holds a number, not the event);
     * undefined when not logged. A text delta has one only while it is being published.
     */
    ticketOf,
    /** The seq of a ticket's event, once flushed (streams look it up after `flush`). */
    seqOfTicket,
    /** The newest seq in the database (any process's, this one's queue written first), 0 when none was ever logged. */
    head(): number {
      flush()
      return (q.head.get() as number | undefined) ?? 0
    },
    /** Called after each flush (this process's events were written). Returns the unsubscribe. */
    onFlush(fn: () => void): () => void {
      listeners.add(fn)
      return () => void listeners.delete(fn)
    },
    /** The events of `scope` after `after`, in seq order (this process's queue written first), or `resync` (see Replay). */
    replay(after: number, scope: ReplayScope = {}): Replay {
      flush()
      const head = (q.head.get() as number | undefined) ?? 0
      if (after > head) return { resync: true, head, reason: "unknown-id" }
      const s = scope as { sessionID?: string; directory?: string }
      const gone = (s.sessionID ? q.trimSession.all(s.sessionID, after) : s.directory ? q.trimDirectory.all(s.directory, after) : q.trimAll.all(after)) as string[]
      if (gone.length) return { resync: true, head, reason: "trimmed", sessions: gone }
      const count = (s.sessionID ? q.countSession.get(s.sessionID, after) : s.directory ? q.countDirectory.get(s.directory, after) : q.countAll.get(after)) as number
      if (count > maxReplay) return { resync: true, head, reason: "too-many" }
      const rows = (s.sessionID ? q.afterSession.all(s.sessionID, after) : s.directory ? q.afterDirectory.all(s.directory, after) : q.afterAll.all(after)) as Row[]
      const events: LoggedEvent[] = []
      for (const row of rows) expand(row, after, events)
      return { resync: false, head, events }
    },
  }
}

export type EventLog = ReturnType<typeof createEventLog>
