import type { Bus } from "../bus"
import { BusyError, type SessionStatus } from "../protocol"

/** Session status: absent means idle. Every change is published; idle also as `session.idle`. */
export function createStatus(bus: Bus) {
  const map = new Map<string, SessionStatus>()
  return {
    get: (sessionID: string): SessionStatus => map.get(sessionID) ?? { type: "idle" },
    all: () => Object.fromEntries(map),
    set(sessionID: string, status: SessionStatus) {
      if (status.type === "idle") map.delete(sessionID)
      else map.set(sessionID, status)
      bus.publish("session.status", { sessionID, status })
      if (status.type === "idle") bus.publish("session.idle", { sessionID })
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
 * interleave steps.
 */
export function createRunner(deps: { status: Status; loop: (sessionID: string, abort: AbortSignal) => Promise<void>; onError?: (sessionID: string, e: unknown) => void }) {
  const runs = new Map<string, Run>()

  async function drive(sessionID: string, run: Run) {
    try {
      do {
        run.again = false
        await deps.loop(sessionID, run.controller.signal)
      } while (run.again && !run.controller.signal.aborted)
    } catch (e) {
      deps.onError?.(sessionID, e)
      throw e
    } finally {
      runs.delete(sessionID)
      deps.status.set(sessionID, { type: "idle" })
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
