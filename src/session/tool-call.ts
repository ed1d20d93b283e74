// Running one tool call for the processor: permission asks wired to the session's rules,
// live metadata updates, the doom-loop check, and turning the outcome (or failure) into
// the part's final state. A tool failure is data for the model, never a crash of the turn.
import type { Agent } from "../agent"
import type { Permissions } from "../permission"
import type { AssistantMessage, FilePart, MessageWithParts, Ruleset, ToolPart } from "../protocol"
import { runTool, type Tool, type ToolContext, type ToolServices } from "../tool"
import { Id } from "../util"
import type { History } from "./history"

export interface ToolCallDeps {
  history: History
  permissions: Permissions
  services: ToolServices
  directory: string
  worktree: string
  outputDir: string
  limits: { maxLines: number; maxBytes: number }
  /** experimental.continue_loop_on_deny: keep looping after a rejection. */
  continueOnDeny?: boolean
}

export interface StepContext {
  assistant: AssistantMessage
  agent: Agent
  /** The agent's rules merged with the session's. */
  ruleset: Ruleset
  abort: AbortSignal
  tools: Map<string, Tool>
  canDelegate: boolean
}

export interface ToolCallStep extends StepContext {
  toolParts: Map<string, ToolPart>
  /** Set when the user rejected something: the loop stops after this step. */
  blocked: boolean
  /** Set after cleanup: late tool results are ignored. */
  closed: boolean
}

export const DOOM_LOOP_THRESHOLD = 3
const STOPPING_ERRORS = new Set(["PermissionRejectedError", "PermissionDeniedError", "QuestionRejectedError"])

export async function runToolCall(deps: ToolCallDeps, step: ToolCallStep, part: ToolPart): Promise<void> {
  if (part.state.status !== "running") return
  const start = part.state.time.start
  const input = part.state.input
  const { assistant } = step
  const tool = step.tools.get(part.tool)

  const ask: ToolContext["ask"] = (req) =>
    deps.permissions.ask(
      {
        sessionID: assistant.sessionID,
        permission: req.permission,
        patterns: req.patterns,
        always: req.always,
        metadata: req.metadata ?? {},
        forceAsk: req.forceAsk,
        named: req.named,
        tool: { messageID: assistant.id, callID: part.callID },
        ruleset: step.ruleset,
      },
      step.abort,
    )

  try {
    if (!tool) throw new Error(`Unknown tool "${part.tool}". Available tools: ${[...step.tools.keys()].join(", ")}`)
    if (isDoomLoop(deps.history.messages(assistant.sessionID), part)) {
      await ask({ permission: "doom_loop", patterns: [part.tool], always: [part.tool], metadata: { tool: part.tool, input } })
    }
    const ctx: ToolContext = {
      sessionID: assistant.sessionID,
      messageID: assistant.id,
      callID: part.callID,
      agent: step.agent.name,
      directory: deps.directory,
      worktree: deps.worktree,
      abort: step.abort,
      ask,
      metadata(update) {
        if (step.closed || part.state.status !== "running") return
        part.state = {
          ...part.state,
          ...(update.title !== undefined ? { title: update.title } : {}),
          ...(update.metadata !== undefined ? { metadata: update.metadata } : {}),
        }
        deps.history.putPart(part, { defer: true })
      },
      services: deps.services,
      outputDir: deps.outputDir,
      limits: deps.limits,
      canDelegate: step.canDelegate,
    }
    const result = await runTool(tool, input, ctx)
    if (step.closed) return
    const attachments: FilePart[] | undefined = result.attachments?.map((a) => ({
      id: Id.ascending("prt"),
      sessionID: assistant.sessionID,
      messageID: assistant.id,
      type: "file",
      ...a,
    }))
    part.state = {
      status: "completed",
      input,
      output: result.output,
      title: result.title,
      metadata: result.metadata,
      time: { start, end: Date.now() },
      ...(attachments?.length ? { attachments } : {}),
    }
  } catch (e) {
    if (step.closed) return
    const error = e instanceof Error ? e : new Error(String(e))
    const metadata = part.state.status === "running" ? part.state.metadata : undefined
    part.state = { status: "error", input, error: error.message, ...(metadata ? { metadata } : {}), time: { start, end: Date.now() } }
    if (STOPPING_ERRORS.has(error.name) && !deps.continueOnDeny) step.blocked = true
  }
  deps.history.putPart(part)
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
