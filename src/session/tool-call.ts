// The tool-call pipeline: every tool call runs here and nowhere else, whoever started it (the
// model, the user's `!cmd`, a subtask, a file mention). In three phases, after pi's agent loop:
//   prepare  — find the tool, validate the arguments, the doom-loop check (model calls only),
//              then the `beforeExecute` hooks (block with a reason, or rewrite the arguments);
//   execute  — `runTool` with the one ToolContext, whose asks go to the session's rules, or
//              are skipped for work the user started;
//   finalize — attachments, the `afterFinalize` hooks (rewrite the output), the final state.
// A call that cannot run (unknown, invalid, blocked, refused) is an "immediate" outcome and a
// failing tool an "error" outcome: data for the model, never a throw. States move only
// through tool-state.ts. This module does not decide what a step or the loop does next.
import { type Permissions, strictest, vcsConfigPatterns, warmBashAnalysis } from "../permission"
import { stopsLoop, type FilePart, type MessageWithParts, type Ruleset, type ToolPart } from "../protocol"
import { parseArguments, runTool, summarize, type Tool, type ToolContext, type ToolServices } from "../tool"
import { Id } from "../util"
import type { History } from "./history"
import * as ToolState from "./tool-state"

export interface ToolPipelineDeps {
  history: History
  permissions: Permissions
  services: ToolServices
  /** The services one session's calls run with (its writes and processes told as its own); undefined: `services` for every call. Never throws. */
  servicesFor?: (sessionID: string) => ToolServices
  directory: string
  worktree: string
  outputDir: string
  limits: { maxLines: number; maxBytes: number }
  /** experimental.continue_loop_on_deny: a rejection does not stop the loop. */
  continueOnDeny?: boolean
  hooks: ToolHooks
  /**
   * Contract: the rulesets a session's asks must also pass: a subagent's callers' (a child never
   * gets more than its parent). Must not throw. Undefined or []: only the session's own rules.
   */
  ceilings?(sessionID: string): Ruleset[]
}

/** Who started a call. */
export type ToolOrigin = "model" | "shell" | "subtask" | "mention"

/**
 * Who answers the permission asks of a call: the session's rules (the model's calls, which
 * also face the doom-loop check), or nobody, for work the user started (`!cmd`,
 * attached files, @agent subtasks and command subtasks).
 */
export type AskPolicy = { rules: Ruleset } | "user"

/** A call that is not recorded as a tool part (a file mention, whose output is inlined). */
export type CallRef = Pick<ToolPart, "sessionID" | "messageID" | "callID" | "tool">

export interface ToolCall {
  origin: ToolOrigin
  /** The tool part this call moves to running at once, then to completed | error, persisting each change. */
  part: ToolPart | CallRef
  /** The tool to run; undefined is an "immediate" unknown-tool outcome. */
  tool: Tool | undefined
  /** The names offered to the model, for the unknown-tool message. */
  offered?: Iterable<string>
  /** The arguments as the caller sent them, recorded as the call's input. */
  input: Record<string, unknown>
  /** What the tool gets when it differs from what is recorded (the user's `!cmd` has no timeout). */
  args?: Record<string, unknown>
  agent: string
  abort: AbortSignal
  policy: AskPolicy
  /** Whether the agent may use the task tool (changes the truncation hint). */
  canDelegate?: boolean
  /** True once the caller stopped listening (the step closed): late progress and results are dropped. */
  closed?: () => boolean
  /** The error recorded when the call fails after `abort` fired (a subtask says "Cancelled"). */
  abortedError?: string
  /** Fields laid over what the tool reports (the user's shell shows no title, as OpenCode does). */
  fixed?: ToolState.Fixed
}

export type ToolOutcome =
  /** Not run: unknown tool, invalid arguments, a refused doom-loop ask, or blocked by a hook. */
  | { type: "immediate"; error: string; stops: boolean }
  | { type: "completed"; output: string; title: string; metadata: Record<string, unknown>; attachments?: FilePart[] }
  /** The tool failed; `stops` when the user rejected something and the loop should end. */
  | { type: "error"; error: string; stops: boolean }
  /** The caller closed before the call settled: nothing more was written. */
  | { type: "dropped" }

/** What a hook sees of a call. */
export interface ToolCallInfo {
  origin: ToolOrigin
  tool: string
  sessionID: string
  messageID: string
  callID: string
  agent: string
  /** The validated arguments the tool runs with (after earlier hooks' rewrites). */
  args: Record<string, unknown>
}

export interface BeforeExecuteResult {
  /** Do not run the call; `reason` is the error the model (or user) reads. */
  block?: boolean
  reason?: string
  /** Run the tool with these arguments instead; they are validated again. */
  args?: Record<string, unknown>
}

/** What a settled call says; for an error, `output` is the error message. */
export interface ToolFinal {
  status: "completed" | "error"
  output: string
  title: string
  metadata: Record<string, unknown>
}

/**
 * Contract: called in order after prepare, before every call runs (all four origins). May
 * return undefined (no change). A throw blocks the call with the thrown message.
 */
export type BeforeExecute = (call: ToolCallInfo) => BeforeExecuteResult | undefined | Promise<BeforeExecuteResult | undefined>

/**
 * Contract: called in order after a call that ran settled, before its state is written; returns
 * field-wise overrides or undefined (no change). Not called for immediate outcomes. A throw
 * turns the call into an error with the thrown message.
 */
export type AfterFinalize = (call: ToolCallInfo, result: ToolFinal) => Partial<Pick<ToolFinal, "output" | "title" | "metadata">> | undefined | Promise<Partial<Pick<ToolFinal, "output" | "title" | "metadata">> | undefined>

/** The named points plugins and command hooks attach to; empty lists until they do. */
export interface ToolHooks {
  beforeExecute: BeforeExecute[]
  afterFinalize: AfterFinalize[]
}

export interface ToolPipeline {
  /** Runs one call through prepare → execute → finalize. Never throws. */
  run(call: ToolCall): Promise<ToolOutcome>
  /**
   * Contract: called when a step's first tool call arrives, before it waits for the step's
   * snapshot; starts loading what the offered tools load on first use (the bash analysis), so
   * that work overlaps the snapshot's git processes. Never throws.
   */
  warm(offered: Iterable<string>): void
  /** Marks a call its step left pending or running as interrupted, and persists it; false when it had settled. */
  interrupt(part: ToolPart, tool: Tool | undefined): boolean
  hooks: ToolHooks
}

export const DOOM_LOOP_THRESHOLD = 3

export function createToolPipeline(deps: ToolPipelineDeps): ToolPipeline {
  let warmed = false
  return {
    run: (call) => runCall(deps, call),
    warm(offered) {
      if (warmed || ![...offered].includes("bash")) return
      warmed = true
      warmBashAnalysis()
    },
    interrupt(part, tool) {
      if (!ToolState.interrupt(part, describer(deps, tool, part.tool))) return false
      deps.history.putPart(part)
      return true
    },
    hooks: deps.hooks,
  }
}

function describer(deps: ToolPipelineDeps, tool: Tool | undefined, name: string): ToolState.Describe {
  const project = { directory: deps.directory, worktree: deps.worktree }
  return (input, state) => summarize(tool, name, input, state, project)
}

type Prepared = { type: "prepared"; tool: Tool; info: ToolCallInfo; ctx: ToolContext } | Extract<ToolOutcome, { type: "immediate" }>

async function runCall(deps: ToolPipelineDeps, call: ToolCall): Promise<ToolOutcome> {
  const part = "state" in call.part ? call.part : undefined
  const describe = describer(deps, call.tool, call.part.tool)
  // Synchronous up to here: a caller sees the part running as soon as run() returns.
  if (part) {
    ToolState.start(part, call.input, describe, call.fixed)
    deps.history.putPart(part)
  }
  const closed = () => call.closed?.() === true

  let prepared: Prepared
  try {
    prepared = await prepare(deps, call, describe)
  } catch (e) {
    prepared = { type: "immediate", error: messageOf(e), stops: stops(deps, e) }
  }
  if (closed()) return { type: "dropped" }
  if (prepared.type === "immediate") {
    if (part) settle(deps, part, () => ToolState.fail(part, prepared.error, describe))
    return prepared
  }

  let final: ToolFinal
  let attachments: FilePart[] | undefined
  let stopping = false
  try {
    const result = await runTool(prepared.tool, prepared.info.args, prepared.ctx)
    if (closed()) return { type: "dropped" }
    attachments = result.attachments?.map((a) => ({ id: Id.ascending("prt"), sessionID: call.part.sessionID, messageID: call.part.messageID, type: "file", ...a }))
    final = { status: "completed", output: result.output, title: result.title, metadata: result.metadata }
  } catch (e) {
    if (closed()) return { type: "dropped" }
    stopping = stops(deps, e)
    const metadata = part?.state.status === "running" ? part.state.metadata : undefined
    final = { status: "error", output: call.abort.aborted && call.abortedError ? call.abortedError : messageOf(e), title: "", metadata: metadata ?? {} }
  }
  return finalize(deps, call, part, prepared.info, final, { attachments, stopping, describe })
}

/** Validation, the doom-loop check, the beforeExecute hooks; the context the tool runs with. */
async function prepare(deps: ToolPipelineDeps, call: ToolCall, describe: ToolState.Describe): Promise<Prepared> {
  const { tool, part } = call
  if (!tool) {
    const offered = call.offered ? [...call.offered] : undefined
    const error = offered ? `Unknown tool "${part.tool}". Available tools: ${offered.join(", ")}` : `The ${part.tool} tool is not available to this session`
    return { type: "immediate", error, stops: false }
  }
  const ctx = toolContext(deps, call, describe)
  if (call.policy !== "user" && "state" in part && isDoomLoop(deps.history.messages(part.sessionID), part)) {
    await ctx.ask({ permission: "doom_loop", patterns: [part.tool], always: [part.tool], metadata: { tool: part.tool, input: call.input } })
  }
  let args = parseArguments(tool, call.args ?? call.input) as Record<string, unknown>
  const info = (): ToolCallInfo => ({ origin: call.origin, tool: part.tool, sessionID: part.sessionID, messageID: part.messageID, callID: part.callID, agent: call.agent, args })
  for (const hook of deps.hooks.beforeExecute) {
    const verdict = await hook(info())
    if (verdict?.block) return { type: "immediate", error: verdict.reason ?? `The ${part.tool} call was blocked before it ran.`, stops: false }
    if (verdict?.args) args = parseArguments(tool, verdict.args) as Record<string, unknown>
  }
  return { type: "prepared", tool, info: info(), ctx }
}

async function finalize(
  deps: ToolPipelineDeps,
  call: ToolCall,
  part: ToolPart | undefined,
  info: ToolCallInfo,
  final: ToolFinal,
  extra: { attachments?: FilePart[]; stopping: boolean; describe: ToolState.Describe },
): Promise<ToolOutcome> {
  try {
    for (const hook of deps.hooks.afterFinalize) {
      const over = await hook(info, final)
      // Field-wise: a hook rewrites what the call says, never whether it failed.
      if (over) final = { ...final, ...(over.output !== undefined ? { output: over.output } : {}), ...(over.title !== undefined ? { title: over.title } : {}), ...(over.metadata ? { metadata: over.metadata } : {}) }
    }
  } catch (e) {
    final = { status: "error", output: messageOf(e), title: "", metadata: final.metadata }
  }
  if (call.closed?.()) return { type: "dropped" }
  const { attachments, stopping, describe } = extra
  if (final.status === "completed") {
    if (part) settle(deps, part, () => ToolState.complete(part, { ...final, attachments }, describe, call.fixed))
    return { type: "completed", output: final.output, title: final.title, metadata: final.metadata, ...(attachments?.length ? { attachments } : {}) }
  }
  if (part) settle(deps, part, () => ToolState.fail(part, final.output, describe, final.metadata))
  return { type: "error", error: final.output, stops: stopping }
}

function settle(deps: ToolPipelineDeps, part: ToolPart, transition: () => void) {
  transition()
  deps.history.putPart(part)
}

/** The one ToolContext: asks under the call's policy, progress into the running part. */
function toolContext(deps: ToolPipelineDeps, call: ToolCall, describe: ToolState.Describe): ToolContext {
  const { part, policy } = call
  const recorded = "state" in part ? part : undefined
  return {
    sessionID: part.sessionID,
    messageID: part.messageID,
    callID: part.callID,
    agent: call.agent,
    directory: deps.directory,
    worktree: deps.worktree,
    abort: call.abort,
    ask:
      policy === "user"
        ? async () => {}
        : async (req) => {
            const ask = (r: typeof req) =>
              deps.permissions.ask(
                {
                  sessionID: part.sessionID,
                  permission: r.permission,
                  patterns: r.patterns,
                  always: r.always,
                  metadata: r.metadata ?? {},
                  forceAsk: r.forceAsk,
                  named: r.named,
                  tool: { messageID: part.messageID, callID: part.callID },
                  ruleset: strictest(r, [policy.rules, ...(deps.ceilings?.(part.sessionID) ?? [])], deps.permissions.approved()),
                },
                call.abort,
              )
            // A write to git's own configuration or hooks, by whichever tool, is also a vcs_config ask.
            const vcs = req.permission === "edit" ? vcsConfigPatterns(req.patterns, deps.worktree) : []
            if (vcs.length > 0) await ask({ permission: "vcs_config", patterns: vcs, always: vcs, metadata: { ...req.metadata, files: vcs } })
            await ask(req)
          },
    metadata(update) {
      if (!recorded || call.closed?.()) return
      if (ToolState.progress(recorded, update, describe, call.fixed)) deps.history.putPart(recorded, { defer: true })
    },
    services: deps.servicesFor?.(part.sessionID) ?? deps.services,
    outputDir: deps.outputDir,
    limits: deps.limits,
    canDelegate: call.canDelegate ?? false,
    byUser: policy === "user",
  }
}

function stops(deps: ToolPipelineDeps, e: unknown): boolean {
  return stopsLoop(e) && !deps.continueOnDeny
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** The same tool with the same input, three calls running, across the current turn's steps. */
export function isDoomLoop(history: MessageWithParts[], current: ToolPart): boolean {
  const key = JSON.stringify(current.state.input)
  let seen = 0
  for (let i = history.length - 1; i >= 0; i--) {
    const msg = history[i]!
    if (msg.info.role === "user") break
    for (let j = msg.parts.length - 1; j >= 0; j--) {
      const p = msg.parts[j]!
      if (p.type !== "tool" || p.id === current.id) continue
      if (p.tool !== current.tool || p.state.status === "pending" || JSON.stringify(p.state.input) !== key) return false
      if (++seen >= DOOM_LOOP_THRESHOLD - 1) return true
    }
  }
  return false
}
