import type { Bus } from "../bus"
import { BusyError, type SessionStatus } from "../protocol"

/**
 * Session status: absent means idle. Every change is published; idle also as `session.idle`.
 * A session another process runs (it holds the lease) shows as busy with its `holder`; when this
 * process has a status of its own for it (a prompt waiting for that lease), its own status wins,
 * still naming the holder while it is busy.
 */
export function createStatus(bus: Bus) {
  const map = new Map<string, SessionStatus>()
  const elsewhere = new Map<string, SessionStatus>()
  const get = (sessionID: string): SessionStatus => {
    const own = map.get(sessionID)
    const other = elsewhere.get(sessionID)
    if (own?.type === "busy" && other?.type === "busy" && other.holder) return { ...own, holder: other.holder }
    return own ?? other ?? { type: "idle" }
  }
  const publish = (sessionID: string, status: SessionStatus) => {
    bus.publish("session.status", { sessionID, status })
    if (status.type === "idle") bus.publish("session.idle", { sessionID })
  }
  return {
    get,
    all: () => Object.fromEntries([...elsewhere, ...map]),
    set(sessionID: string, status: SessionStatus) {
      if (status.type === "idle") map.delete(sessionID)
      else map.set(sessionID, status)
      publish(sessionID, get(sessionID))
    },
    /** Another process started (`holder`) or stopped (undefined) running the session. */
    setElsewhere(sessionID: string, holder: { pid: number; hostname: string } | undefined) {
      const own = map.get(sessionID)
      if (holder) elsewhere.set(sessionID, { type: "busy", holder })
      else elsewhere.delete(sessionID)
      // Clients hear of it unless this process's own status hides it entirely (retry, idle…).
      // An echo: the holder logged its own status (see bus echo).
      if (!own || own.type === "busy") bus.echo(() => publish(sessionID, get(sessionID)))
    },
  }
}
export type Status = ReturnType<typeof createStatus>

interface Run {
  controller: AbortController
  done: Promise<void>
  /** A new user message arrived while running: check once more before going idle. */
  again: boolean
}

/**
 * One loop per session at a time. A prompt that arrives while the session runs joins the
 * running loop (its message is already stored, so the loop sees it); two runs never
 * interleave steps. Across processes the lease does the same: a prompt to a session another
 * process runs waits for its lease, then runs the loop, which answers it.
 */
export function createRunner(deps: {
  status: Status
  loop: (sessionID: string, abort: AbortSignal) => Promise<void>
  onError?: (sessionID: string, e: unknown) => void
  /**
   * The cross-process lease. `hold` contract: resolves true once this process holds the
   * session (waiting while another one does), false when `abort` fired first; never rejects.
   * `release` must not throw.
   * Undefined: this process alone uses the database.
   */
  lease?: { hold(sessionID: string, abort: AbortSignal): Promise<boolean>; release(sessionID: string): void }
  /**
   * The session's inbox. `next` contract: called when the loop would go idle; stores the oldest
   * waiting prompt as a new turn and resolves true (the loop runs again), false when there is
   * none; must not reject. `idle`: called once the run is over and the lease released (`ended`:
   * it finished, not aborted or failed), so a prompt another process stored meanwhile still
   * finds a runner; must not throw. Undefined: no inbox.
   */
  inbox?: { next(sessionID: string): Promise<boolean>; idle(sessionID: string, ended: boolean): void }
}) {
  const runs = new Map<string, Run>()

  async function drive(sessionID: string, run: Run) {
    let ended = false
    try {
      if (deps.lease && !(await deps.lease.hold(sessionID, run.controller.signal))) return
      do {
        run.again = false
        await deps.loop(sessionID, run.controller.signal)
        // Queued prompts are new turns, one at a time, while the session would go idle.
        if (!run.again && !run.controller.signal.aborted && deps.inbox) run.again = await deps.inbox.next(sessionID)
      } while (run.again && !run.controller.signal.aborted)
      ended = !run.controller.signal.aborted
    } catch (e) {
      deps.onError?.(sessionID, e)
      throw e
    } finally {
      deps.lease?.release(sessionID)
      runs.delete(sessionID)
      deps.status.set(sessionID, { type: "idle" })
      deps.inbox?.idle(sessionID, ended)
    }
  }

  return {
    busy: (sessionID: string) => runs.has(sessionID),
    /** Runs the loop for the session, or joins the running one; resolves when it is idle. */
    ensure(sessionID: string): Promise<void> {
      const existing = runs.get(sessionID)
      if (existing) {
        existing.again = true
        return existing.done
      }
      const run: Run = { controller: new AbortController(), done: Promise.resolve(), again: false }
      runs.set(sessionID, run)
      deps.status.set(sessionID, { type: "busy" })
      run.done = drive(sessionID, run)
      return run.done
    },
    /** The abort signal of the running loop, for work that must stop with it. */
    signal: (sessionID: string) => runs.get(sessionID)?.controller.signal,
    abort(sessionID: string): boolean {
      const run = runs.get(sessionID)
      if (!run) return false
      run.controller.abort(new Error("The operation was aborted."))
      return true
    },
    /** Resolves once the session's run has ended (at once when none runs), or after `ms`. Never rejects. */
    async settled(sessionID: string, ms: number): Promise<void> {
      const run = runs.get(sessionID)
      if (!run) return
      let timer: NodeJS.Timeout | undefined
      await Promise.race([run.done.catch(() => {}), new Promise<void>((r) => (timer = setTimeout(r, ms)))])
      clearTimeout(timer)
    },
    assertIdle(sessionID: string) {
      if (runs.has(sessionID)) throw new BusyError({ sessionID, message: `Session ${sessionID} is busy` })
    },
    async shutdown() {
      for (const run of runs.values()) run.controller.abort(new Error("shutting down"))
      await Promise.allSettled([...runs.values()].map((r) => r.done))
    },
  }
}
export type Runner = ReturnType<typeof createRunner>
