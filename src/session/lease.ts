// One session, one writer across processes. The runner holds a session's lease (storage/
// lease.ts) for as long as it runs the loop, renewing it on an unref'd heartbeat; a prompt
// to a session another process runs waits for that lease. Only the lease holder, or a
// process that took over a dead holder's lease, closes open steps as interrupted. A follower
// polls SQLite's `data_version` (it changes when another connection commits) and republishes
// what other processes wrote to the sessions shown here, and their lease changes as status.
import type { DB, Leases } from "../storage"
import type { Logger } from "../util"
import type { History } from "./history"
import { sleep } from "./retry"
import type { Status } from "./runner"

/** Sessions nobody else is running are re-read for other processes' edits at most this often. */
const FULL_SYNC_MS = 1000

export interface SessionLeaseOptions {
  db: DB
  leases: Leases
  history: History
  status: Status
  log?: Logger
  /** Contract: called when another process took over a lease this one held (it stalled); must not throw. Stops the run. */
  onLost?: (sessionID: string) => void
  /**
   * Contract: called by the follower when a session another process ran here in view (loaded)
   * lost its holder without a release (the process died); must not throw. Resumes it
   * (session/resume.ts). Undefined: nothing happens until someone opens it.
   */
  onDead?: (sessionID: string) => void
  /** How often held leases are renewed (default 1000 ms; 0: never, for the benchmark's baseline). */
  heartbeatMs?: number
  /** How often a waiting prompt tries the lease again (default 250 ms). */
  retryMs?: number
  /** How often the follower checks for other processes' writes (default 250 ms; 0: never). */
  followMs?: number
  /** Contract: called by the follower when another connection committed (the inbox republishes); must not throw. */
  onChange?: () => void
}

export function createSessionLeases(opts: SessionLeaseOptions) {
  const { db, leases, history, status } = opts
  const heartbeatMs = opts.heartbeatMs ?? 1000
  const retryMs = opts.retryMs ?? 250
  const followMs = opts.followMs ?? 250
  const held = new Set<string>()
  let heartbeat: NodeJS.Timeout | undefined

  function beat() {
    let lost: string[]
    try {
      lost = leases.renew(held)
    } catch (error) {
      // A busy database for longer than busy_timeout: try again on the next beat.
      opts.log?.warn("lease renewal failed", { error })
      return
    }
    for (const id of lost) {
      held.delete(id)
      opts.log?.warn("lease lost: another process took the session over", { sessionID: id })
      opts.onLost?.(id)
    }
  }

  function startHeartbeat() {
    if (heartbeat || heartbeatMs <= 0) return
    heartbeat = setInterval(beat, heartbeatMs)
    heartbeat.unref()
  }

  function stopHeartbeatIfIdle() {
    if (held.size || !heartbeat) return
    clearInterval(heartbeat)
    heartbeat = undefined
  }

  let version = dataVersion()
  let lastFull = 0
  let elsewhere = new Map<string, { pid: number; hostname: string }>()
  /** The dead holder each session was last reported for (onDead), so it is reported once. */
  const mourned = new Map<string, string>()
  function dataVersion(): number {
    return db.pragma("data_version", { simple: true }) as number
  }

  /** Republishes what other processes changed, and which sessions they run. */
  function follow() {
    try {
      const v = dataVersion()
      const changed = v !== version
      version = v
      if (changed) opts.onChange?.()
      // Sessions another process runs (or just stopped running) change at every flush of its
      // text: follow them on every change; others (a prompt queued, a part edited elsewhere)
      // at most once a second, so a server with many sessions loaded stays cheap.
      // A dead holder writes nothing: keep checking leases while some session is busy elsewhere.
      if (!changed && !elsewhere.size) return
      const next = runningElsewhere()
      if (changed) {
        const all = Date.now() - lastFull >= FULL_SYNC_MS
        if (all) lastFull = Date.now()
        const running = new Set([...elsewhere.keys(), ...next.keys()])
        for (const id of history.loaded()) if (!held.has(id) && (all || running.has(id))) history.sync(id)
      }
      // After the sync: clients get the final parts before they hear the session went idle.
      const gone = [...elsewhere.keys()].filter((id) => !next.has(id))
      applyElsewhere(next)
      // A holder that died leaves its lease behind (one that finished released it). It may have
      // died before this follower ever saw it run (a tick late on a busy machine): look at the
      // dead leases themselves, and tell each dead holder of a session shown here once.
      if (opts.onDead && (changed || gone.length)) {
        const loaded = new Set(history.loaded())
        for (const lease of leases.deadHeld()) {
          if (!loaded.has(lease.sessionID) || held.has(lease.sessionID) || mourned.get(lease.sessionID) === lease.holder) continue
          mourned.set(lease.sessionID, lease.holder)
          opts.onDead(lease.sessionID)
        }
      }
    } catch (error) {
      opts.log?.warn("following other processes failed", { error })
    }
  }

  const runningElsewhere = () => new Map(leases.heldElsewhere().map((l) => [l.sessionID, { pid: l.pid, hostname: l.hostname }]))

  function applyElsewhere(next: Map<string, { pid: number; hostname: string }>) {
    for (const [id, holder] of next) if (!elsewhere.has(id) && !held.has(id)) status.setElsewhere(id, holder)
    for (const id of elsewhere.keys()) if (!next.has(id)) status.setElsewhere(id, undefined)
    elsewhere = next
  }

  applyElsewhere(runningElsewhere())
  const follower = followMs > 0 ? setInterval(follow, followMs) : undefined
  follower?.unref()

  /** Takes the lease if no live process holds it; false when one does. */
  function tryHold(sessionID: string): boolean {
    const got = leases.acquire(sessionID)
    if (!got.ok) {
      if (!elsewhere.has(sessionID)) {
        elsewhere.set(sessionID, { pid: got.lease.pid, hostname: got.lease.hostname })
        status.setElsewhere(sessionID, { pid: got.lease.pid, hostname: got.lease.hostname })
      }
      return false
    }
    held.add(sessionID)
    startHeartbeat()
    if (!got.mine) {
      // Another process may have written the session since it was loaded here; any step
      // still open belongs to a holder that is gone (its lease ended or died).
      history.sync(sessionID)
      history.settle(sessionID)
    }
    if (elsewhere.delete(sessionID)) status.setElsewhere(sessionID, undefined)
    return true
  }

  return {
    tryHold,
    /** Waits until this process holds the session's lease; false when `abort` fired first. */
    async hold(sessionID: string, abort: AbortSignal): Promise<boolean> {
      for (;;) {
        if (abort.aborted) return false
        if (tryHold(sessionID)) return true
        try {
          await sleep(retryMs, abort)
        } catch {
          return false
        }
      }
    },
    /** Writes what is still buffered, then gives the lease up so another process may run the session. */
    release(sessionID: string) {
      if (!held.delete(sessionID)) return
      try {
        history.flush()
        leases.release(sessionID)
      } catch (error) {
        opts.log?.warn("lease release failed", { sessionID, error })
      }
      stopHeartbeatIfIdle()
    },
    /** For history's first load: settles open steps only when no live process holds the session. */
    claim(sessionID: string, settle: () => void) {
      if (held.has(sessionID)) return
      const got = leases.acquire(sessionID)
      if (!got.ok || got.mine) return
      try {
        settle()
      } finally {
        leases.release(sessionID)
      }
    },
    /** Who holds the session now, when another live process does. */
    holder: (sessionID: string) => leases.heldElsewhere().find((l) => l.sessionID === sessionID),
    /** Checks for other processes' writes now (the follower's timer does it on its own). */
    follow,
    /** The stored leases and crash records (session/resume.ts reads and takes due resumes there). */
    stored: leases,
    dispose() {
      if (follower) clearInterval(follower)
      if (heartbeat) clearInterval(heartbeat)
      heartbeat = undefined
      for (const id of held) leases.release(id)
      held.clear()
    },
  }
}

export type SessionLeases = ReturnType<typeof createSessionLeases>
