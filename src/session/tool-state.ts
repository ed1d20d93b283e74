// The tool-state machine, and the only code that moves a tool part's state:
// pending → running → completed | error, where "interrupted" is an error for a call that a
// step's end or a crash cut off. Every transition writes how the call looks to a person
// (`metadata.summary`, see tool/summary.ts) so front ends, local or remote, need no switch over
// tool names. Pure state: the caller persists the part.
import type { FilePart, ToolPart, ToolState, ToolSummary } from "../protocol"

/** How the call looks in a state: `summarize()` bound to the tool and the project. Must not throw. */
export type Describe = (input: Record<string, unknown>, state: ToolState) => ToolSummary

/** Fields laid over whatever the tool reports, in every state (the user's shell shows no title). */
export interface Fixed {
  title?: string
  metadata?: Record<string, unknown>
}

export const INTERRUPTED = "Tool execution aborted"
/** What the model reads for a call that was running when wright's process died (a crash, SIGKILL). */
export const CRASHED =
  "interrupted: wright stopped while this ran (its process died); it may have partly run. Check what it did before running it again."

/** pending (or a new part) → running. */
export function start(part: ToolPart, input: Record<string, unknown>, describe: Describe, fixed: Fixed = {}, now = Date.now()): void {
  part.state = summarized({ status: "running", input, ...fixedTitle(fixed), ...fixedMetadata(fixed), time: { start: now } }, describe)
}

/** A running tool reports progress (ctx.metadata): a new title and/or metadata. False when not running. */
export function progress(part: ToolPart, update: { title?: string; metadata?: Record<string, unknown> }, describe: Describe, fixed: Fixed = {}): boolean {
  if (part.state.status !== "running") return false
  part.state = summarized(
    {
      ...part.state,
      ...(update.title !== undefined ? { title: update.title } : {}),
      ...(update.metadata !== undefined ? { metadata: { ...update.metadata, ...fixed.metadata } } : {}),
      ...fixedTitle(fixed),
    },
    describe,
  )
  return true
}

/** running → completed. */
export function complete(
  part: ToolPart,
  result: { output: string; title: string; metadata: Record<string, unknown>; attachments?: FilePart[] },
  describe: Describe,
  fixed: Fixed = {},
  now = Date.now(),
): void {
  const { input, start } = runningOf(part, now)
  part.state = summarized(
    {
      status: "completed",
      input,
      output: result.output,
      title: fixed.title ?? result.title,
      metadata: { ...result.metadata, ...fixed.metadata },
      time: { start, end: now },
      ...(result.attachments?.length ? { attachments: result.attachments } : {}),
    },
    describe,
  )
}

/** running → error; without `metadata`, what the tool reported while running is kept. */
export function fail(part: ToolPart, error: string, describe: Describe, metadata?: Record<string, unknown>, now = Date.now()): void {
  const { input, start } = runningOf(part, now)
  if (!metadata || Object.keys(metadata).length === 0) metadata = part.state.status === "running" ? part.state.metadata : undefined
  part.state = summarized({ status: "error", input, error, ...(metadata ? { metadata } : {}), time: { start, end: now } }, describe)
}

/**
 * pending | running → error "Tool execution aborted" (or `error`: the crash note), marked
 * `interrupted` (the loop then does not send it back as a call to answer). Without `describe`
 * (crash recovery, where the tool is not at hand) the last summary is kept. False when the
 * call had already settled.
 */
export function interrupt(part: ToolPart, describe?: Describe, now = Date.now(), error = INTERRUPTED): boolean {
  if (part.state.status !== "pending" && part.state.status !== "running") return false
  const { input, start } = runningOf(part, now)
  const previous = part.state.status === "running" ? part.state.metadata?.summary : undefined
  const state: ToolState = { status: "error", input, error, metadata: { interrupted: true, ...(previous ? { summary: previous } : {}) }, time: { start, end: now } }
  part.state = describe ? summarized(state, describe) : state
  return true
}

function runningOf(part: ToolPart, now: number) {
  return { input: part.state.input, start: part.state.status === "running" ? part.state.time.start : now }
}

function fixedTitle(fixed: Fixed) {
  return fixed.title !== undefined ? { title: fixed.title } : {}
}

function fixedMetadata(fixed: Fixed) {
  return fixed.metadata ? { metadata: { ...fixed.metadata } } : {}
}

function summarized(state: Exclude<ToolState, { status: "pending" }>, describe: Describe): ToolState {
  const { summary: _old, ...rest } = state.metadata ?? {}
  const summary = describe(state.input, { ...state, metadata: rest } as ToolState)
  const next = { ...state, metadata: { ...rest, summary } }
  if (next.status === "running" && next.title === undefined) next.title = summary.title
  return next
}
