// The task tool: runs a subagent in a child session (parentID = the caller's session) with
// the subagent's model and permissions, waits for it, and returns its last text. Depth is
// limited, the child is aborted with its parent, and a task can be resumed by its id. With
// `background: true` it returns at once with the child's id; background.ts keeps the child's
// state (read by task_status, task-status.ts) and tells the parent when it settles.
import { z } from "zod"
import type { Agent, Agents } from "../agent"
import { merge } from "../permission"
import type { Ruleset, Session } from "../protocol"
import { defineTool, Summary, type Tool } from "../tool"
import { describeChild, type Background } from "./background"
import type { Store } from "../storage"
import type { History } from "./history"
import type { SessionService } from "./service"
import description from "./task.txt"

export const TaskParameters = z.object({
  description: z.string().describe("A short (3-5 words) description of the task"),
  prompt: z.string().describe("The complete brief for the subagent"),
  subagent_type: z.string().describe("Which agent to run"),
  task_id: z.string().optional().describe("Resume an earlier task: the id it returned"),
  command: z.string().optional().describe("The slash command that started this task, if any"),
  background: z
    .boolean()
    .optional()
    .describe("Run the subagent in the background: return at once with its task id and go on working; you are told when it finishes (task_status reads its state)"),
})

export interface TaskDeps {
  agents: Agents
  sessions: SessionService
  /** config.subagent_depth (default 1). */
  depthLimit: number
  /** The rules in force for the calling session (agent + session), for inheritance. */
  callerRules(sessionID: string, agent: string): Ruleset
  /** `experimental.primary_tools`: tools only primary agents get; denied in every child, as in OpenCode. */
  primaryTools?: string[]
  /** Where background children are kept. Undefined: `background` is refused. */
  background?: Background
}

export function createTaskTool(deps: TaskDeps): Tool<typeof TaskParameters> {
  const subagents = deps.agents.list().filter((a) => a.mode !== "primary" && !a.hidden)
  const listing = subagents.map((a) => `- ${a.name}: ${a.description ?? "(no description)"}`).join("\n")
  return defineTool({
    id: "task",
    description: `${description}${listing || "(none configured)"}`,
    parameters: TaskParameters,
    summary(input) {
      const what = Summary.textOf(input.description)
      const agent = Summary.textOf(input.subagent_type)
      const title = what ? Summary.oneLine(what, 80) : "Task"
      // Every front end (run, the TUI, ACP) shows that the call returned while the subagent works on.
      const where = input.background === true ? ", in the background" : ""
      return { title: agent ? `${title} (@${agent}${where})` : `${title}${where && ` (${where.slice(2)})`}`, kind: "think", locations: [] }
    },
    async execute(args, ctx) {
      const agent = deps.agents.get(args.subagent_type)
      // The model may only delegate to subagents; a user's subtask (a command) may name any agent.
      if (!agent || agent.hidden || (agent.mode === "primary" && ctx.agent !== "user")) {
        const names = subagents.map((a) => a.name).join(", ")
        throw new Error(`Unknown agent type: ${args.subagent_type} is not a valid agent type. Available: ${names || "none"}`)
      }
      const depth = depthOf(deps.sessions, ctx.sessionID)
      if (depth >= deps.depthLimit)
        throw new Error(`Subagent depth limit reached (${deps.depthLimit}). Increase "subagent_depth" in config to allow deeper nesting, or do this work yourself.`)
      // A task the user asked for by @mention is already approved.
      if (ctx.agent !== "user") await ctx.ask({ permission: "task", patterns: [args.subagent_type], always: ["*"], metadata: { description: args.description, subagent_type: args.subagent_type } })

      const child = resolveChild(deps, ctx.sessionID, ctx.agent, args, agent)
      ctx.metadata({ title: args.description, metadata: { sessionId: child.id, agent: agent.name } })
      const parentModel = modelOf(deps.sessions, ctx.sessionID, ctx.messageID)
      // A subagent on the parent's model thinks as hard as the parent (its variant too).
      const model = agent.model ?? (parentModel && { providerID: parentModel.providerID, modelID: parentModel.modelID })
      const variant = agent.model ? undefined : parentModel?.variant
      const work = () =>
        runChild(deps.sessions, child.id, {
          agent: agent.name,
          ...(model ? { model } : {}),
          ...(variant ? { variant } : {}),
          parts: [{ type: "text", text: args.prompt }],
        })
      const metadata = { sessionId: child.id, agent: agent.name, ...(args.background ? { background: true } : {}) }
      if (args.background) {
        if (!deps.background) throw new Error("Background tasks are not available here; run the task without background")
        if (deps.sessions.busy(child.id)) throw new Error(`Task ${child.id} is still running; wait for it (task_status) before sending it more`)
        // The child is not this step's: it outlives the call, and the parent's abort reaches it through the session.
        deps.background.start({ childID: child.id, parentID: ctx.sessionID, description: args.description, work: work() })
        return { title: args.description, output: describeChild(child.id, { status: "running" }), metadata }
      }
      const onAbort = () => deps.sessions.abort(child.id)
      ctx.abort.addEventListener("abort", onAbort, { once: true })
      try {
        if (ctx.abort.aborted) throw new Error("Cancelled")
        const answer = await work()
        return { title: args.description, output: describeChild(child.id, { status: "completed", output: answer }), metadata }
      } finally {
        ctx.abort.removeEventListener("abort", onAbort)
      }
    },
  })
}

/** Runs the child's turn; resolves with its last text, rejects with its failure (`aborted: true` on an abort). */
async function runChild(sessions: SessionService, childID: string, input: Parameters<SessionService["prompt"]>[1]): Promise<string> {
  const result = await sessions.prompt(childID, input)
  const info = result.info
  if (info.role === "assistant" && info.error) {
    const message = (info.error.data as { message?: string }).message ?? info.error.name
    throw Object.assign(new Error(`Subagent failed (task_id: ${childID}): ${message}`), { aborted: info.error.name === "MessageAbortedError" })
  }
  const text = result.parts.findLast((p) => p.type === "text" && !p.synthetic)
  return text?.type === "text" ? text.text : "(the subagent finished without a text answer)"
}

function resolveChild(deps: TaskDeps, parentID: string, callerAgent: string, args: z.infer<typeof TaskParameters>, agent: Agent): Session {
  if (args.task_id) {
    let existing: Session | undefined
    try {
      existing = deps.sessions.get(args.task_id)
    } catch {
      existing = undefined
    }
    if (!existing || existing.parentID !== parentID) throw new Error(`No task with id ${args.task_id} belongs to this session; start a new task without task_id`)
    return existing
  }
  return deps.sessions.create({
    parentID,
    title: `${args.description} (@${agent.name} subagent)`,
    permission: childRules(deps.callerRules(parentID, callerAgent), agent, deps.primaryTools),
  })
}

/**
 * The child keeps the caller's denies and external-directory rules; task and todowrite are
 * denied inside unless the subagent's own rules mention them; `primaryTools` are denied outright.
 */
export function childRules(caller: Ruleset, agent: Agent, primaryTools: string[] = []): Ruleset {
  const inherited = caller.filter((r) => r.action === "deny" || r.permission === "external_directory")
  const extra: Ruleset = []
  for (const key of ["task", "task_status", "todowrite", "todoread"]) {
    // task_status goes with task: a child that may not start tasks has none to read.
    const own = key === "task_status" ? "task" : key
    const allowed = agent.permission.some((r) => r.permission === own && r.action !== "deny")
    if (!allowed) extra.push({ permission: key, pattern: "*", action: "deny" })
  }
  for (const key of primaryTools) extra.push({ permission: key, pattern: "*", action: "deny" })
  return merge(inherited, extra)
}

/**
 * The rules of a session's callers, nearest first: each parent's as it stood when it called
 * (its latest agent's rules and its session rules). A child's asks must pass them all.
 */
export function callerCeilings(deps: { history: History; store: Store; agents: Agents }, sessionID: string): Ruleset[] {
  const out: Ruleset[] = []
  const seen = new Set([sessionID])
  for (let parent = deps.store.sessions.get(sessionID)?.parentID; parent && !seen.has(parent); parent = deps.store.sessions.get(parent)?.parentID) {
    seen.add(parent)
    const agent = deps.history.messages(parent).findLast((m) => m.info.role === "assistant")?.info.agent
    out.push(merge(deps.agents.get(agent ?? "")?.permission ?? [], deps.store.sessions.get(parent)?.permission ?? []))
  }
  return out
}

function depthOf(sessions: SessionService, sessionID: string): number {
  let depth = 0
  let current = sessions.get(sessionID)
  while (current.parentID) {
    depth++
    current = sessions.get(current.parentID)
  }
  return depth
}

function modelOf(sessions: SessionService, sessionID: string, messageID: string) {
  try {
    const msg = sessions.message(sessionID, messageID).info
    if (msg.role === "assistant") return { providerID: msg.providerID, modelID: msg.modelID, variant: msg.variant }
    return msg.model
  } catch {
    return undefined
  }
}
