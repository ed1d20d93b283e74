// Background subagents. A `task` call with `background: true` starts its child session and
// returns at once; this registry keeps each such child's state and result for `task_status`,
// and the note its parent gets when it settles. A note is delivered once, at the parent's next
// step (the loop's `notes` hook). A parent that is idle when its child settles is woken to read
// it (a run that is still going takes the note at its next step instead), unless the child was
// aborted: an abort (the parent's, the process's shutdown) must not start new work.
// Aborting the parent aborts its running children, background ones too (service.abort); a
// process that exits takes its in-process children with it (`run --detach` says so).

/** What `task_status` reports of a child. */
export type ChildState =
  | { status: "running" }
  | { status: "completed"; output: string }
  | { status: "failed"; error: string; aborted: boolean }

export interface BackgroundChild {
  childID: string
  parentID: string
  description: string
  state: ChildState
  /** Settles (never rejects) when the child does. */
  done: Promise<void>
}

export interface BackgroundDeps {
  /** Runs the parent's loop, or marks its running loop to go once more (service.run). May reject: logged. */
  run(sessionID: string): Promise<void>
  /** Contract: called when a wake-up run failed; must not throw. */
  onError?(sessionID: string, e: unknown): void
}

export function createBackground(deps: BackgroundDeps) {
  const children = new Map<string, BackgroundChild>()
  const notes = new Map<string, string[]>()

  function settle(child: BackgroundChild, state: Exclude<ChildState, { status: "running" }>) {
    child.state = state
    notes.set(child.parentID, [...(notes.get(child.parentID) ?? []), noteFor(child)])
    if (state.status === "failed" && state.aborted) return
    deps.run(child.parentID).catch((e) => deps.onError?.(child.parentID, e))
  }

  return {
    /**
     * Tracks a child started in the background. `work` resolves with the child's final text, or
     * rejects with its failure (an `aborted` property marks an abort).
     */
    start(input: { childID: string; parentID: string; description: string; work: Promise<string> }): BackgroundChild {
      const child: BackgroundChild = { childID: input.childID, parentID: input.parentID, description: input.description, state: { status: "running" }, done: Promise.resolve() }
      child.done = input.work.then(
        (output) => settle(child, { status: "completed", output }),
        (e: unknown) => settle(child, { status: "failed", error: e instanceof Error ? e.message : String(e), aborted: (e as { aborted?: boolean })?.aborted === true }),
      )
      children.set(child.childID, child)
      return child
    },
    get: (childID: string) => children.get(childID),
    /** The parent's children still running in the background. */
    running: (parentID: string) => [...children.values()].filter((c) => c.parentID === parentID && c.state.status === "running"),
    /** Contract (the loop's `notes` hook): the notes waiting for the session, each handed out once. Never throws. */
    take(sessionID: string): string[] {
      const list = notes.get(sessionID) ?? []
      notes.delete(sessionID)
      return list
    },
  }
}
export type Background = ReturnType<typeof createBackground>

/** The text of a child's state, as task and task_status return it and the parent's note says. */
export function describeChild(childID: string, state: ChildState): string {
  if (state.status === "running") return `<task id="${childID}" state="running">\nThe subagent is still working in the background. You will be told when it finishes; task_status with this id reads its state.\n</task>`
  if (state.status === "completed") return `<task id="${childID}" state="completed">\n<task_result>\n${state.output}\n</task_result>\n</task>`
  return `<task id="${childID}" state="failed">\n<task_error>\n${state.error}\n</task_error>\n</task>`
}

function noteFor(child: BackgroundChild): string {
  return `<task_notification>\nThe background task "${child.description}" finished.\n${describeChild(child.childID, child.state)}\n</task_notification>`
}
