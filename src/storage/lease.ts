// Session leases: at most one process runs a session's steps. The holder renews its lease
// while it works (a heartbeat); a lease whose heartbeat is older than `staleMs`, or whose pid
// is gone on this machine, belongs to a dead process and may be taken over. Every decision is
// made inside one `BEGIN IMMEDIATE` transaction, so two processes never both win.
// A lease exists only while its holder runs the session, so taking over a dead holder's lease
// means the session was working when its process died: that takeover records a crash (counted
// in a row, until a turn finishes normally) and marks a resume as due (see session/resume.ts).
import { randomBytes } from "node:crypto"
import os from "node:os"
import type { DB } from "./database"

/** A heartbeat older than this means the holder is gone (it renews about every second). */
export const LEASE_STALE_MS = 5000

export interface Lease {
  sessionID: string
  holder: string
  pid: number
  hostname: string
  heartbeat: number
  acquired: number
}

export type Acquired =
  /** `mine`: this holder already had it. `replaced`: the lease of a dead holder, now taken over. */
  | { ok: true; mine: boolean; replaced?: Lease }
  | { ok: false; lease: Lease }

export interface LeaseOptions {
  /** Process-unique id of this holder; default: hostname, pid and random bytes. */
  holder?: string
  pid?: number
  hostname?: string
  now?: () => number
  staleMs?: number
  /** Whether a pid runs on this machine; default: `process.kill(pid, 0)`. */
  alive?: (pid: number) => boolean
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

export function createLeases(db: DB, opts: LeaseOptions = {}) {
  const pid = opts.pid ?? process.pid
  const hostname = opts.hostname ?? os.hostname()
  const holder = opts.holder ?? `${hostname}:${pid}:${randomBytes(6).toString("hex")}`
  const now = opts.now ?? Date.now
  const staleMs = opts.staleMs ?? LEASE_STALE_MS
  const alive = opts.alive ?? pidAlive
  const q = {
    get: db.prepare(`SELECT * FROM session_lease WHERE session_id = ?`),
    insert: db.prepare(`INSERT OR REPLACE INTO session_lease (session_id, holder, pid, hostname, heartbeat, time_acquired) VALUES (?, ?, ?, ?, ?, ?)`),
    renew: db.prepare(`UPDATE session_lease SET heartbeat = ? WHERE holder = ?`),
    mine: db.prepare(`SELECT session_id FROM session_lease WHERE holder = ?`),
    release: db.prepare(`DELETE FROM session_lease WHERE session_id = ? AND holder = ?`),
    releaseAll: db.prepare(`DELETE FROM session_lease WHERE holder = ?`),
    others: db.prepare(`SELECT * FROM session_lease WHERE holder != ?`),
    all: db.prepare(`SELECT * FROM session_lease`),
    crashed: db.prepare(
      `INSERT INTO session_crash (session_id, count, pending, time_crashed) VALUES (?, 1, 1, ?)
       ON CONFLICT(session_id) DO UPDATE SET count = count + 1, pending = 1, time_crashed = excluded.time_crashed`,
    ),
    crash: db.prepare(`SELECT count, pending FROM session_crash WHERE session_id = ?`),
    crashesDue: db.prepare(`SELECT session_id FROM session_crash WHERE pending = 1`),
    unpend: db.prepare(`UPDATE session_crash SET pending = 0 WHERE session_id = ? AND pending = 1`),
    forget: db.prepare(`DELETE FROM session_crash WHERE session_id = ?`),
  }
  const toLease = (row: unknown): Lease => {
    const r = row as { session_id: string; holder: string; pid: number; hostname: string; heartbeat: number; time_acquired: number }
    return { sessionID: r.session_id, holder: r.holder, pid: r.pid, hostname: r.hostname, heartbeat: r.heartbeat, acquired: r.time_acquired }
  }

  /** A lease is dead when its heartbeat stopped, or its process is gone from this machine. */
  function dead(lease: Lease): boolean {
    if (now() - lease.heartbeat > staleMs) return true
    return lease.hostname === hostname && lease.pid !== pid && !alive(lease.pid)
  }

  const acquire = db.transaction((sessionID: string): Acquired => {
    const row = q.get.get(sessionID)
    const current = row ? toLease(row) : undefined
    if (current?.holder === holder) return { ok: true, mine: true }
    if (current && !dead(current)) return { ok: false, lease: current }
    const t = now()
    q.insert.run(sessionID, holder, pid, hostname, t, t)
    if (current) q.crashed.run(sessionID, t)
    return current ? { ok: true, mine: false, replaced: current } : { ok: true, mine: false }
  })

  const takeResume = db.transaction((sessionID: string): number | undefined => {
    const row = q.crash.get(sessionID) as { count: number; pending: number } | undefined
    if (!row?.pending) return undefined
    q.unpend.run(sessionID)
    return row.count
  })

  return {
    holder,
    /** Takes the session's lease if it is free or its holder is dead; never waits, never throws for a held lease. */
    acquire: (sessionID: string): Acquired => acquire.immediate(sessionID),
    /**
     * Renews every lease of this holder (one UPDATE). Returns the sessions it no longer holds
     * among `held`: another process took them over after this one stalled.
     */
    renew(held: Iterable<string>): string[] {
      const changed = q.renew.run(now(), holder).changes
      const expected = [...held]
      if (changed >= expected.length) return []
      const still = new Set((q.mine.all(holder) as { session_id: string }[]).map((r) => r.session_id))
      return expected.filter((id) => !still.has(id))
    },
    /** Gives the lease up (only if this holder has it). */
    release(sessionID: string) {
      q.release.run(sessionID, holder)
    },
    releaseAll() {
      q.releaseAll.run(holder)
    },
    get(sessionID: string): Lease | undefined {
      const row = q.get.get(sessionID)
      return row ? toLease(row) : undefined
    },
    /** Leases held by live holders other than this one. */
    heldElsewhere(): Lease[] {
      return q.others.all(holder).map(toLease).filter((l) => !dead(l))
    },
    dead,
    /** Leases whose holder is gone (crashed while it ran their session), not yet taken over. */
    deadHeld: (): Lease[] => q.all.all().map(toLease).filter((l) => l.holder !== holder && dead(l)),
    /** Crashes in a row of the session, and whether a resume is still due; undefined: none since its last normal turn. */
    crashes(sessionID: string): { count: number; pending: boolean } | undefined {
      const row = q.crash.get(sessionID) as { count: number; pending: number } | undefined
      return row ? { count: row.count, pending: row.pending === 1 } : undefined
    },
    /** Sessions whose resume is due (a crash was recorded and nobody resumed them yet). */
    resumesDue: (): string[] => (q.crashesDue.all() as { session_id: string }[]).map((r) => r.session_id),
    /**
     * Takes the due resume of the session: its crashes in a row, and the resume is no longer due.
     * Undefined when none was due (or another process took it first). Call it under the session's lease.
     */
    takeResume: (sessionID: string): number | undefined => takeResume.immediate(sessionID),
    /** A turn of the session finished normally: its crashes in a row start again from zero. */
    clearCrashes(sessionID: string) {
      q.forget.run(sessionID)
    },
  }
}

export type Leases = ReturnType<typeof createLeases>
