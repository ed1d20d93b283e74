// Resume after a crash. A session whose process died while it worked (it held the session's
// lease: a step streaming, tool calls running, or a prompt not yet answered) is carried on by
// the next process that opens it: the TUI, `serve` (at start, for its project's sessions), and
// `run --resume`. Taking over the dead holder's lease (storage/lease.ts) closed the open step
// (its partial text kept, running calls failed with a note to the model, see ToolState.CRASHED)
// and recorded the crash; here the process that holds the lease takes the due resume, once, and
// runs the loop, which continues from the last stored message. Bounded: after MAX_CRASHES
// crashes in a row (no turn finished normally between them) it stops and says so instead.
// It never waits for a lease: a session another live process runs is that process's to run.
import type { Bus } from "../bus"
import type { MessageWithParts, Session } from "../protocol"
import type { Logger } from "../util"
import type { History } from "./history"
import type { SessionLeases } from "./lease"
import type { Runner } from "./runner"
import { SHELL_NOTE } from "./shell-note"

/** Crashes in a row after which a session is not resumed again (the user's next message resets it). */
export const MAX_CRASHES = 3

/**
 * `resumed`: the loop runs again (`done` resolves when it is idle). `stopped`: crashed
 * MAX_CRASHES times in a row, not resumed; the last step says so. `idle`: nothing to resume.
 * `running`: this process runs it already. `busy`: another live process holds it.
 */
export type ResumeOutcome = "resumed" | "stopped" | "idle" | "running" | "busy"

export function stoppedMessage(count: number) {
  return `Not resumed: wright stopped ${count} times in a row while this session was working (resumed ${count - 1} times after crashes). Send a message to continue.`
}

export function createResume(deps: {
  history: History
  leases: SessionLeases
  runner: Runner
  bus: Bus
  /** Contract: starts (or joins) the session's loop and resolves when it is idle; may reject (the run failed). */
  run: (sessionID: string) => Promise<void>
  /** Contract: the stored session, undefined when there is none; must not throw. */
  session: (sessionID: string) => Session | undefined
  /** Contract: whether the session belongs to this App's project (serve resumes only those); must not throw. */
  mine: (session: Session) => boolean
  log?: Logger
}) {
  const { history, leases, runner } = deps

  /** `done`: when `resumed`, resolves once the loop is idle. `error`: when `stopped`, what the user is told. */
  function resume(sessionID: string): { outcome: ResumeOutcome; done?: Promise<void>; error?: string } {
    if (runner.busy(sessionID)) return { outcome: "running" }
    // The first load closes what a dead holder left open (history's claim), recording the crash.
    const msgs = history.messages(sessionID)
    // The common case, a session that ended normally: no lease left behind and no resume due.
    // Told from a read, so opening a session (the TUI asks each time) writes nothing.
    if (!leases.stored.get(sessionID) && !leases.stored.crashes(sessionID)?.pending) return { outcome: "idle" }
    if (!leases.tryHold(sessionID)) return { outcome: "busy" }
    let handedOver = false
    try {
      const count = leases.stored.takeResume(sessionID)
      if (count === undefined) return { outcome: "idle" }
      // A subagent's session is its parent's task call, which the parent's resume answers (the
      // call failed with the crash note); the user's own `!cmd` has no model turn to carry on.
      if (deps.session(sessionID)?.parentID || userCommand(msgs)) {
        leases.stored.clearCrashes(sessionID)
        return { outcome: "idle" }
      }
      if (count >= MAX_CRASHES) return { outcome: "stopped", error: stop(sessionID, count) }
      deps.log?.info("resuming a session its process left working", { sessionID, crashes: count })
      // The runner takes the lease this process holds now, and releases it when idle.
      handedOver = true
      return { outcome: "resumed", done: deps.run(sessionID) }
    } finally {
      if (!handedOver) leases.release(sessionID)
    }
  }

  /** The step the crash closed says why it is not resumed, and clients hear it as an error. */
  function stop(sessionID: string, count: number): string {
    const message = stoppedMessage(count)
    const msgs = history.messages(sessionID)
    const user = msgs.findLast((m) => m.info.role === "user")
    const last = msgs.at(-1)?.info
    // Only the step the crash cut off (an answer of an earlier turn keeps its own outcome). Still
    // a MessageAbortedError: its partial answer stays in what the model sees next.
    if (last?.role === "assistant" && last.parentID === user?.info.id && last.error?.name === "MessageAbortedError")
      history.putMessage({ ...last, error: { name: "MessageAbortedError", data: { message } } })
    deps.bus.publish("session.error", { sessionID, error: { name: "UnknownError", data: { message } } })
    deps.log?.warn("not resuming a session that crashed too often", { sessionID, crashes: count })
    return message
  }

  /**
   * Resumes a top-level session of this project without waiting for it; true when it was
   * resumed. Must not throw: failures, then or later, are logged.
   */
  function background(sessionID: string): boolean {
    try {
      const session = deps.session(sessionID)
      if (!session || session.parentID || !deps.mine(session)) return false
      const r = resume(sessionID)
      r.done?.catch((error) => deps.log?.warn("a resumed session failed", { sessionID, error }))
      return r.outcome === "resumed"
    } catch (error) {
      deps.log?.warn("resuming a session failed", { sessionID, error })
      return false
    }
  }

  return {
    resume,
    /**
     * Resumes every top-level session of this App's project that was working when its process
     * died: leases of dead holders not taken over yet, and resumes recorded but not taken.
     * Returns the sessions resumed. Must not throw; failures are logged.
     */
    resumeAll(): string[] {
      const ids = new Set<string>()
      try {
        for (const l of leases.stored.deadHeld()) ids.add(l.sessionID)
        for (const id of leases.stored.resumesDue()) ids.add(id)
      } catch (error) {
        deps.log?.warn("listing sessions to resume failed", { error })
        return []
      }
      return [...ids].filter(background)
    },
    /** The lease follower saw the holder of a session shown here die: carry it on (see background). */
    background,
  }
}

export type Resume = ReturnType<typeof createResume>

/** The newest prompt is the user's own `!cmd` (its step is a command, not the model's). */
function userCommand(msgs: MessageWithParts[]) {
  const user = msgs.findLast((m) => m.info.role === "user")
  return user !== undefined && user.parts.some((p) => p.type === "text" && p.synthetic && p.text === SHELL_NOTE)
}
