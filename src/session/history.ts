import type { Bus } from "../bus"
import type { Message, MessageWithParts, Part, Session } from "../protocol"
import { outputOnDisk, type Store } from "../storage"
import * as ToolState from "./tool-state"

/** Version of a history entry: a new, higher number at every change to the message or its parts. */
export const VERSION = Symbol("wright.history.version")
type Versioned = MessageWithParts & { [VERSION]?: number }
export function versionOf(entry: MessageWithParts): number {
  return (entry as Versioned)[VERSION] ?? 0
}

/** Sessions kept in memory: past this, the least recently used idle ones are dropped. */
export const KEEP_IDLE_SESSIONS = 4

/** How many changed entries a session remembers for `changedSince` (past it, older changes are forgotten). */
const CHANGE_LOG = 1024

/** Streamed text is written to disk at least this often while it grows (and at every part end). */
export const STREAM_PERSIST_MS = 200

/**
 * Live history of sessions: loaded from SQLite once, then kept in memory and written through
 * on every change, so the loop never re-reads the database per step. Every change is
 * published on the bus at once; growing text is persisted at most every STREAM_PERSIST_MS.
 */
export function createHistory(deps: {
  store: Store
  bus: Bus
  now?: () => number
  /**
   * Contract: called when a session is first loaded; runs `settle` only if no live process
   * holds the session's lease (and takes the lease meanwhile); must not throw. Undefined:
   * settle at once (a single process owns the database).
   */
  claim?: (sessionID: string, settle: () => void) => void
  /**
   * Contract: SQLite's `data_version` of the store's connection (it changes only when another
   * connection commits); must not throw. With it, `sync` skips a session nobody else wrote
   * since it was read. Undefined: every `sync` re-reads.
   */
  dataVersion?: () => number
  /** How many sessions stay loaded (idle ones beyond it are dropped, least recently used first). Default KEEP_IDLE_SESSIONS. */
  keepIdle?: number
}) {
  const { store, bus } = deps
  const now = deps.now ?? Date.now
  // `readAt`: the data_version when the list was last read from disk.
  // `open`: assistant messages not completed yet (a step under way, or one a dead process left),
  // so settling a session looks at those few instead of walking its whole history.
  // `changed` / `changedAt`: the entries changed lately and the version each got (the newest
  // last, a run of changes to one entry kept once), for `changedSince`; `forgotAt`: the newest
  // version no longer in that log.
  type Entry = {
    list: MessageWithParts[]
    byId: Map<string, MessageWithParts>
    open: Set<MessageWithParts>
    readAt?: number
    changed: MessageWithParts[]
    changedAt: number[]
    forgotAt: number
  }
  const cache = new Map<string, Entry>()
  const isOpen = (m: MessageWithParts) => m.info.role === "assistant" && !m.info.time.completed
  const track = (entry: Entry, m: MessageWithParts) => (isOpen(m) ? entry.open.add(m) : entry.open.delete(m))
  const dirty = new Map<string, Part>()
  // Each entry carries a version, renewed whenever the message or one of its parts changes, so
  // conversions of unchanged messages can be reused safely (a symbol: never serialised). Versions
  // come from one counter, so "changed since version N" is a question about the whole history.
  let version = 0
  const bump = (entry: Entry, msg: MessageWithParts | undefined) => {
    if (!msg) return
    const v = ++version
    ;(msg as Versioned)[VERSION] = v
    const n = entry.changed.length
    if (n && entry.changed[n - 1] === msg) return void (entry.changedAt[n - 1] = v)
    entry.changed.push(msg)
    entry.changedAt.push(v)
    if (n + 1 <= CHANGE_LOG) return
    const cut = CHANGE_LOG / 2
    entry.forgotAt = entry.changedAt[cut - 1]!
    entry.changed.splice(0, cut)
    entry.changedAt.splice(0, cut)
  }
  let timer: NodeJS.Timeout | undefined
  const keepIdle = deps.keepIdle ?? KEEP_IDLE_SESSIONS
  let last: string | undefined

  function load(sessionID: string) {
    let entry = cache.get(sessionID)
    if (entry && last !== sessionID) {
      // Most recently used last: eviction takes from the front.
      cache.delete(sessionID)
      cache.set(sessionID, entry)
    }
    last = sessionID
    if (!entry) {
      const readAt = deps.dataVersion?.()
      const list = store.messages.list(sessionID)
      const loaded: Entry = { list, byId: new Map(list.map((m) => [m.info.id, m])), open: new Set(list.filter(isOpen)), readAt, changed: [], changedAt: [], forgotAt: version }
      entry = loaded
      cache.set(sessionID, entry)
      evictIdle()
      if (loaded.open.size && deps.claim) deps.claim(sessionID, () => settleInterrupted(loaded))
      else if (loaded.open.size) settleInterrupted(loaded)
    }
    return entry
  }

  /**
   * Keeps at most `keepIdle` sessions in memory beyond those in use: the least recently used
   * ones with no step under way and nothing waiting to be written are dropped (a later read
   * loads them again from disk), so a server whose clients browse many long sessions does not
   * hold every one of them for its lifetime.
   */
  function evictIdle() {
    if (cache.size <= keepIdle) return
    const busy = new Set([...dirty.values()].map((p) => p.sessionID))
    let over = cache.size - keepIdle
    for (const [id, entry] of cache) {
      if (over <= 0 || id === last) break
      if (busy.has(id) || [...entry.open].some(isOpen)) continue
      cache.delete(id)
      over--
    }
  }

  /**
   * A step still open when its session is first loaded was cut off by a process that died
   * (a crash, SIGKILL): close it as aborted so no client waits on it and the loop moves on.
   */
  function settleInterrupted(entry: Entry, publish = false) {
    const end = now()
    for (const msg of [...entry.open].sort((a, b) => (a.info.id < b.info.id ? -1 : 1))) {
      entry.open.delete(msg)
      if (msg.info.role !== "assistant" || msg.info.time.completed) continue
      for (const part of msg.parts) {
        let closed = part.type === "tool" && ToolState.interrupt(part, undefined, end, ToolState.CRASHED)
        if ((part.type === "text" || part.type === "reasoning") && part.time && part.time.end === undefined) {
          part.time = { ...part.time, end }
          closed = true
        }
        if (!closed) continue
        store.parts.put(part)
        if (publish) bus.publish("message.part.updated", { sessionID: part.sessionID, part, time: end })
      }
      msg.info = {
        ...msg.info,
        time: { ...msg.info.time, completed: end },
        error: msg.info.error ?? { name: "MessageAbortedError", data: { message: "Interrupted: wright stopped before this step finished." } },
      }
      bump(entry, msg)
      store.messages.put(msg.info)
      if (publish) bus.publish("message.updated", { sessionID: msg.info.sessionID, info: msg.info })
    }
  }

  /**
   * Brings a loaded session up to date with the database (another process wrote it) and
   * publishes what changed, so clients of this process follow. Never call it for a session
   * this process is writing: its in-memory text runs ahead of the disk.
   */
  function sync(sessionID: string) {
    // What it publishes is another process's doing, logged by that process (bus echo).
    bus.echo(() => syncNow(sessionID))
  }
  function syncNow(sessionID: string) {
    const entry = cache.get(sessionID)
    if (!entry) return void load(sessionID)
    // Re-reading a long session costs a full parse and compare: only when another process wrote.
    const readAt = deps.dataVersion?.()
    if (readAt !== undefined && readAt === entry.readAt) return
    entry.readAt = readAt
    const fresh = store.messages.list(sessionID)
    const keep = new Set(fresh.map((m) => m.info.id))
    for (const old of entry.list.filter((m) => !keep.has(m.info.id))) {
      entry.byId.delete(old.info.id)
      entry.list.splice(entry.list.indexOf(old), 1)
      entry.open.delete(old)
      bus.publish("message.removed", { sessionID, messageID: old.info.id })
    }
    const time = now()
    let added = false
    for (const m of fresh) {
      const old = entry.byId.get(m.info.id)
      if (!old) {
        entry.byId.set(m.info.id, m)
        entry.list.push(m)
        track(entry, m)
        added = true
        bus.publish("message.updated", { sessionID, info: m.info })
        for (const part of m.parts) bus.publish("message.part.updated", { sessionID, part, time })
        continue
      }
      let changed = false
      if (JSON.stringify(old.info) !== JSON.stringify(m.info)) {
        old.info = m.info
        track(entry, old)
        changed = true
        bus.publish("message.updated", { sessionID, info: m.info })
      }
      const before = new Map(old.parts.map((p) => [p.id, fingerprint(p)]))
      for (const part of m.parts) {
        if (before.get(part.id) === fingerprint(part)) continue
        changed = true
        bus.publish("message.part.updated", { sessionID, part, time })
      }
      const ids = new Set(m.parts.map((p) => p.id))
      for (const id of before.keys()) {
        if (ids.has(id)) continue
        changed = true
        bus.publish("message.part.removed", { sessionID, messageID: m.info.id, partID: id })
      }
      if (changed) {
        old.parts = m.parts
        bump(entry, old)
      }
    }
    if (added) entry.list.sort((a, b) => (a.info.id < b.info.id ? -1 : 1))
  }

  function flush() {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (dirty.size === 0) return
    const parts = [...dirty.values()]
    dirty.clear()
    store.transaction(() => {
      for (const p of parts) store.parts.put(p)
    })
  }

  function schedule() {
    if (timer) return
    timer = setTimeout(flush, STREAM_PERSIST_MS)
    timer.unref?.()
  }

  return {
    /** Messages of a session with their parts, oldest first. Do not mutate the result. */
    messages(sessionID: string): MessageWithParts[] {
      return load(sessionID).list
    },
    /**
     * The newest `limit` messages (before the id `before`), oldest first, for clients. A
     * session not held in memory is read page by page from disk instead of loaded whole,
     * unless a step of it is open (loading settles what a dead process left open).
     */
    page(sessionID: string, opts: { limit: number; before?: string }): MessageWithParts[] {
      if (!cache.has(sessionID) && !store.messages.hasOpenStep(sessionID)) return store.messages.page(sessionID, opts)
      let list = load(sessionID).list
      if (opts.before) list = list.filter((m) => m.info.id < opts.before!)
      return list.slice(Math.max(0, list.length - opts.limit))
    },
    /**
     * The session's messages that have parts of `type`, with only those parts, oldest first.
     * A session not held in memory is not loaded whole for it: its parts are read from disk.
     */
    withParts(sessionID: string, type: Part["type"]): MessageWithParts[] {
      const entry = cache.get(sessionID)
      if (entry) return entry.list.flatMap((m) => (m.parts.some((p) => p.type === type) ? [{ info: m.info, parts: m.parts.filter((p) => p.type === type) }] : []))
      const out: MessageWithParts[] = []
      for (const part of store.parts.ofType(sessionID, type)) {
        const last = out[out.length - 1]
        if (last?.info.id === part.messageID) last.parts.push(part)
        else {
          const info = store.messages.get(part.messageID)
          if (info) out.push({ info, parts: [part] })
        }
      }
      return out
    },
    message(sessionID: string, messageID: string): MessageWithParts | undefined {
      return load(sessionID).byId.get(messageID)
    },
    putMessage(info: Message) {
      const entry = load(info.sessionID)
      const existing = entry.byId.get(info.id)
      bump(entry, existing)
      if (existing) {
        existing.info = info
        track(entry, existing)
      } else {
        const added = { info, parts: [] as Part[] }
        track(entry, added)
        entry.byId.set(info.id, added)
        // ids ascend with time, so appending keeps order except for rare same-ms races.
        const last = entry.list[entry.list.length - 1]
        if (!last || last.info.id < info.id) entry.list.push(added)
        else {
          entry.list.push(added)
          entry.list.sort((a, b) => (a.info.id < b.info.id ? -1 : 1))
        }
      }
      store.messages.put(info)
      bus.publish("message.updated", { sessionID: info.sessionID, info })
    },
    removeMessage(sessionID: string, messageID: string) {
      const entry = load(sessionID)
      const found = entry.byId.get(messageID)
      if (!found) return
      for (const p of found.parts) dirty.delete(p.id)
      entry.byId.delete(messageID)
      entry.list.splice(entry.list.indexOf(found), 1)
      entry.open.delete(found)
      store.messages.remove(messageID)
      bus.publish("message.removed", { sessionID, messageID })
    },
    /**
     * Stores a part (new or changed) and publishes it. `defer` marks growing streamed text:
     * it is persisted by the next periodic flush instead of at once.
     */
    putPart(part: Part, opts: { defer?: boolean } = {}) {
      const entry = load(part.sessionID)
      const message = entry.byId.get(part.messageID)
      bump(entry, message)
      if (!message) throw new Error(`part ${part.id} belongs to unknown message ${part.messageID}`)
      const index = message.parts.findIndex((p) => p.id === part.id)
      if (index === -1) message.parts.push(part)
      else message.parts[index] = part
      if (opts.defer) {
        dirty.set(part.id, part)
        schedule()
      } else {
        dirty.delete(part.id)
        store.parts.put(part)
        // A cleared output (pruning) is not kept in memory once it is on disk.
        store.parts.releaseOutput(part)
      }
      bus.publish("message.part.updated", { sessionID: part.sessionID, part, time: now() })
    },
    /** Publishes a streamed delta at once; the text itself is persisted on the throttle. */
    delta(part: Part & { text: string }, delta: string) {
      const entry = load(part.sessionID)
      const message = entry.byId.get(part.messageID)
      bump(entry, message)
      if (message && !message.parts.includes(part)) {
        const i = message.parts.findIndex((p) => p.id === part.id)
        if (i === -1) message.parts.push(part)
        else message.parts[i] = part
      }
      dirty.set(part.id, part)
      schedule()
      bus.publish("message.part.delta", {
        sessionID: part.sessionID,
        messageID: part.messageID,
        partID: part.id,
        field: "text",
        delta,
      })
    },
    removePart(sessionID: string, messageID: string, partID: string) {
      const entry = load(sessionID)
      const message = entry.byId.get(messageID)
      bump(entry, message)
      if (message) message.parts = message.parts.filter((p) => p.id !== partID)
      dirty.delete(partID)
      store.parts.remove(partID)
      bus.publish("message.part.removed", { sessionID, messageID, partID })
    },
    /** The newest version given to any entry so far (see changedSince). */
    version: () => version,
    /**
     * The loaded session's entries whose message or parts changed after version `since`, in
     * no particular order, possibly repeated. Undefined when that is not known (the session is
     * not loaded, or the changes since were too many to remember): then any entry may have changed.
     * Entries added or removed are not reported: compare the list itself for those.
     */
    changedSince(sessionID: string, since: number): MessageWithParts[] | undefined {
      const entry = cache.get(sessionID)
      if (!entry || since < entry.forgotAt) return undefined
      const out: MessageWithParts[] = []
      for (let i = entry.changed.length - 1; i >= 0 && entry.changedAt[i]! > since; i--) out.push(entry.changed[i]!)
      return out
    },
    forget(sessionID: string) {
      cache.delete(sessionID)
      if (last === sessionID) last = undefined
    },
    sync,
    /** Closes the session's open steps as interrupted (their process died) and publishes them. Only under the session's lease. */
    settle(sessionID: string) {
      settleInterrupted(load(sessionID), true)
    },
    /** Ids of the sessions held in memory (the ones some client is looking at or running). */
    loaded: () => [...cache.keys()],
    flush,
  }
}

/** A part as JSON for comparing, without reading a tool output left on disk. */
function fingerprint(p: Part): string {
  if (p.type !== "tool" || !outputOnDisk(p)) return JSON.stringify(p)
  const state: Record<string, unknown> = {}
  for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(p.state))) state[k] = d.get ? "\u0000on disk" : d.value
  return JSON.stringify({ ...p, state })
}

export type History = ReturnType<typeof createHistory>
export type { Session }
