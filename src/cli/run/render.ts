import { emptyTokens, ToolSummary, type BusEvent, type Tokens, type ToolPart } from "../../protocol"
import { terminalSafe } from "../../util"
import { bold, cyan, dim, green, red, yellow } from "../ui"

export interface Renderer {
  event(e: BusEvent): void
  /** A line for the user on stderr (a warning, a permission ask); it starts on its own line. */
  notice(line: string): void
  error(sessionID: string, error: { name: string; data: Record<string, unknown> }): void
  finish(): void
}

type Out = { stdout: (s: string) => void; stderr: (s: string) => void }

export type Usage = { cost: number; tokens: Tokens }

/**
 * `--format json`: one JSON object per line for steps, finished text, settled tools and errors,
 * in OpenCode's shapes (`{type, timestamp, sessionID, part}`) and order: each `text`,
 * `reasoning` (with --thinking) and `tool_use` of a step comes between its `step_start` and its
 * `step_finish` (the core puts a step's finish once its calls settled). Only the run's own
 * session is shown, as OpenCode does: a subagent's steps would interleave with the step whose
 * task call runs them; its work reaches the task call's output. A `step_finish` line also
 * carries `session`: the session's cost and tokens (cache reads and writes included) summed so
 * far, starting from `totals` (what a resumed session had).
 */
export function jsonRenderer(out: Out, opts: { thinking?: boolean; sessions: Set<string>; root?: string; totals?: Map<string, Usage> }): Renderer {
  const emitted = new Set<string>()
  const totals = opts.totals ?? new Map<string, Usage>()
  const add = (sessionID: string, cost: number, t: Tokens): Usage => {
    const was = totals.get(sessionID) ?? { cost: 0, tokens: emptyTokens() }
    const next = {
      cost: was.cost + cost,
      tokens: {
        input: was.tokens.input + t.input,
        output: was.tokens.output + t.output,
        reasoning: was.tokens.reasoning + t.reasoning,
        cache: { read: was.tokens.cache.read + t.cache.read, write: was.tokens.cache.write + t.cache.write },
      },
    }
    totals.set(sessionID, next)
    return next
  }
  const line = (type: string, sessionID: string, data: Record<string, unknown>) =>
    out.stdout(JSON.stringify({ type, timestamp: Date.now(), sessionID, ...data }) + "\n")
  let diff: Extract<BusEvent, { type: "session.diff" }>["properties"] | undefined
  return {
    event(e) {
      // Stdout carries JSON alone: a retry is told on stderr, as in the text format.
      if (e.type === "session.status" && e.properties.sessionID === opts.root && e.properties.status.type === "retry") out.stderr(retryLine(e.properties.status))
      if (e.type === "session.diff" && e.properties.sessionID === opts.root) diff = e.properties
      if (e.type !== "message.part.updated") return
      const part = e.properties.part
      if (!opts.sessions.has(part.sessionID) || (opts.root !== undefined && part.sessionID !== opts.root)) return
      const key = `${part.id}:${part.type === "tool" ? part.state.status : ""}`
      const once = (type: string, extra: () => Record<string, unknown> = () => ({})) => {
        if (emitted.has(key)) return
        emitted.add(key)
        line(type, part.sessionID, { part, ...extra() })
      }
      if (part.type === "step-start") once("step_start")
      else if (part.type === "step-finish") once("step_finish", () => ({ session: add(part.sessionID, part.cost, part.tokens) }))
      else if (part.type === "text" && part.time?.end !== undefined && !part.synthetic) once("text")
      else if (part.type === "reasoning" && part.time?.end !== undefined && opts.thinking) once("reasoning")
      else if (part.type === "tool" && (part.state.status === "completed" || part.state.status === "error") && !pruned(part)) once("tool_use")
    },
    notice(s) {
      out.stderr(s)
    },
    error(sessionID, error) {
      line("error", sessionID, { error })
    },
    finish() {
      // The session's changed files, once, at the end (what `/diff` shows, without the contents).
      if (diff) line("files_changed", diff.sessionID, { files: diff.diff.map(({ file, status, additions, deletions }) => ({ file, status, additions, deletions })) })
    },
  }
}

/**
 * The default format: the answer streams to stdout; tool activity and errors go to stderr.
 * Text from the model or a repository never drives the terminal: its control characters are
 * shown, not obeyed (terminalSafe), in every stderr line and in the answer when stdout is a
 * terminal (`tty`); an answer piped elsewhere keeps its exact bytes.
 */
export function textRenderer(out: Out, opts: { thinking?: boolean; root: string; sessions: Set<string>; tty?: boolean }): Renderer {
  const shown = new Set<string>()
  const reasoningParts = new Set<string>()
  let lastTextPart: string | undefined
  let wroteText = false
  let endsWithNewline = true
  // Streamed text is written once per turn of the event loop, not once per delta; anything
  // written to stderr first flushes it, so the two streams stay in order on a terminal.
  let pending = ""
  const flush = () => {
    if (!pending) return
    out.stdout(pending)
    pending = ""
  }
  const text = (s: string) => {
    if (!pending) setImmediate(flush)
    pending += s
    wroteText = true
    endsWithNewline = s.endsWith("\n")
  }
  const stderr = (s: string) => {
    flush()
    out.stderr(s)
  }
  return {
    event(e) {
      if (e.type === "message.part.delta") {
        if (e.properties.sessionID !== opts.root) return
        if (reasoningParts.has(e.properties.partID)) {
          if (opts.thinking) stderr(dim(terminalSafe(e.properties.delta)))
          return
        }
        if (lastTextPart !== e.properties.partID) {
          if (wroteText && !endsWithNewline) text("\n")
          if (wroteText && lastTextPart) text("\n")
          lastTextPart = e.properties.partID
        }
        text(opts.tty ? terminalSafe(e.properties.delta) : e.properties.delta)
        return
      }
      if (e.type === "session.status" && e.properties.sessionID === opts.root && e.properties.status.type === "retry") {
        if (wroteText && !endsWithNewline) text("\n")
        stderr(retryLine(e.properties.status))
      }
      if (e.type !== "message.part.updated") return
      const part = e.properties.part
      if (!opts.sessions.has(part.sessionID)) return
      if (part.type === "reasoning") reasoningParts.add(part.id)
      if (part.type === "tool") toolLine(part)
    },
    notice(s) {
      if (wroteText && !endsWithNewline) text("\n")
      stderr(s)
    },
    error(_sessionID, error) {
      if (wroteText && !endsWithNewline) text("\n")
      const message = typeof error.data?.message === "string" ? error.data.message : error.name
      stderr(`${red("Error:")} ${terminalSafe(message)}\n`)
    },
    finish() {
      if (wroteText && !endsWithNewline) text("\n")
      flush()
    },
  }

  function toolLine(part: ToolPart) {
    const status = part.state.status
    if (status !== "completed" && status !== "error") return
    if (pruned(part)) return
    if (shown.has(part.id)) return
    shown.add(part.id)
    const child = part.sessionID !== opts.root ? dim("  ↳") : ""
    if (wroteText && !endsWithNewline) text("\n")
    const failed = status === "completed" ? summaryOf(part)?.failed : undefined
    if (failed) stderr(`${child}${red("✗")} ${callLine(part)}\n  ${yellow(firstLine(failed))}\n`)
    else if (status === "completed") stderr(`${child}${green("✓")} ${callLine(part)}\n`)
    else stderr(`${child}${red("✗")} ${callLine(part)}\n  ${yellow(firstLine(part.state.status === "error" ? part.state.error : ""))}\n`)
    // The discard guard (session/discard-guard.ts) kept what the command threw away: the user hears of it too.
    const discarded = status === "completed" ? (part.state.metadata?.discarded as { files?: string[] } | undefined)?.files : undefined
    if (discarded?.length) stderr(`  ${yellow(`discarded uncommitted changes to ${terminalSafe(discarded.join(", "))}`)}; undo brings them back\n`)
  }
}

/**
 * An old call whose output pruning just cleared (after a run, in the same session): an update of
 * history, never a call of this run.
 */
function pruned(part: ToolPart): boolean {
  return part.state.status === "completed" && part.state.time.compacted !== undefined
}

/**
 * The call as its tool summarised it (`state.metadata.summary`); without a summary (an old
 * server) the tool's name and the title it reported.
 */
function callLine(part: ToolPart): string {
  const summary = summaryOf(part)
  if (summary) return terminalSafe(summary.title)
  const own = "title" in part.state ? part.state.title : ""
  return own ? `${bold(terminalSafe(part.tool))} ${dim(firstLine(own))}` : bold(terminalSafe(part.tool))
}

function summaryOf(part: ToolPart): ToolSummary | undefined {
  const summary = ToolSummary.safeParse("metadata" in part.state ? part.state.metadata?.summary : undefined)
  return summary.success ? summary.data : undefined
}

/** The first line of untrusted text, at most 200 characters, safe to print. */
function firstLine(s: string) {
  const line = terminalSafe(s.split(/\r?\n/)[0] ?? "")
  return line.length > 200 ? line.slice(0, 200) + "…" : line
}

/** The loop waits before asking the provider again: when, which attempt, and why. */
function retryLine(status: { attempt: number; message: string; next: number }, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((status.next - now) / 1000))
  return `${yellow("Retrying")} in ${seconds}s (attempt ${status.attempt}): ${firstLine(status.message)}\n`
}

export function header(agent: string, model: string) {
  return `${cyan(">")} ${agent} ${dim("·")} ${model}\n`
}
