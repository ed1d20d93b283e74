// The outer loop: one iteration per LLM round-trip. Each iteration looks at the live history,
// decides whether the newest user message has been answered, runs a pending subtask or
// compaction, and otherwise builds the next step (agent, model, tools, system prompt) and
// hands it to the processor. It owns steps; the processor owns the stream of one step.
import type { ModelMessage } from "ai"
import type { Agent, Agents } from "../agent"
import type { Config } from "../config"
import type { Providers, ResolvedModel } from "../llm"
import { disabledTools, merge } from "../permission"
import { sessionNotFound, type AssistantMessage, type MessageWithParts, type Part, type Session, type UserMessage } from "../protocol"
import type { Store } from "../storage"
import type { Tool, ToolRegistry } from "../tool"
import { processStep, type ProcessorDeps, type StepResult } from "./processor"
import buildSwitch from "./prompt/build-switch.txt"
import maxSteps from "./prompt/max-steps.txt"
import planReminder from "./prompt/plan-reminder.txt"
import { planFile, preparePlanDir } from "./plan"
import { toModelMessages } from "./to-model"
import { isOverflow } from "./usage"
import { newAssistant } from "./assistant"
import { Id } from "../util"

/**
 * The loop's policy points; each is provided by the module named after it (system.ts,
 * structured.ts, title.ts, subtask.ts, compaction.ts).
 */
export interface LoopHooks {
  /**
   * Contract: called once per step before the model call; resolves the system messages. May
   * reject (the run fails with that error).
   */
  system(input: { agent: Agent; model: ResolvedModel; user: UserMessage; session: Session }): Promise<string[]>
  /**
   * Contract: called once per step, after the registry's tools are resolved; returns the step's
   * extra tools (StructuredOutput), which replace same-named ones. May throw (the run fails).
   * Undefined: no extra tools.
   */
  extraTools?(input: { agent: Agent; session: Session; user: UserMessage; step: StepState }): Tool[]
  /**
   * Contract: called once per step, after the registry's tools are resolved and before the
   * extra tools; may take tools out of `tools` or put some in (deferred MCP tools and their
   * search tool). Must not throw. Undefined: the resolved tools are sent as they are.
   */
  selectTools?(input: { session: Session; model: ResolvedModel; tools: Map<string, Tool>; history: MessageWithParts[] }): void
  /**
   * Contract: called once per run, before its first step (title generation); must not throw and
   * must not block (background work is its own). `requestReady` resolves once the first model
   * step's request is ready (or a subtask or compaction task starts, or the run ends): network work
   * waits for it, so the step's own request goes out first. Undefined: nothing happens.
   */
  firstStep?(input: { session: Session; user: UserMessage; history: MessageWithParts[]; requestReady: Promise<void> }): void
  /**
   * Contract: called for a queued subtask part instead of a model step; resolves when the task
   * settled (a failure is recorded on its tool part, not thrown). Undefined: subtask parts are ignored.
   */
  subtask?(input: { session: Session; user: UserMessage; part: Extract<Part, { type: "subtask" }>; abort: AbortSignal }): Promise<void>
  /**
   * Contract: called for a queued compaction part instead of a model step; "stop" ends the loop.
   * A provider failure is stored on the summary message, not thrown. Undefined: compaction parts are ignored.
   */
  compact?(input: { session: Session; user: UserMessage; part: Extract<Part, { type: "compaction" }>; history: MessageWithParts[]; abort: AbortSignal }): Promise<"continue" | "stop">
  /**
   * Contract: called when the last step overflowed the context; queues a compaction part that a
   * later iteration picks up. Must not throw. Undefined: no automatic compaction.
   */
  requestCompaction?(input: { session: Session; user: UserMessage; overflow: boolean }): void
  /**
   * Contract: called after every model step; "break" ends the loop (a structured answer, or its
   * error, is on the message), undefined or "continue" leave the decision to the loop. Must not throw.
   */
  afterStep?(input: { assistant: AssistantMessage; user: UserMessage; step: StepState; result: StepResult }): "break" | "continue" | undefined
  /**
   * Contract: called once per iteration with the live history; returns what the model sees
   * (compaction hides what a summary replaced). Pure, must not throw. Undefined: everything.
   */
  visible?(history: MessageWithParts[]): MessageWithParts[]
  /** Contract: called once when the loop ends, also after a failure (pruning old tool outputs); must not throw. */
  afterRun?(input: { sessionID: string }): void
  /**
   * Contract: called once per step before the model call with the parameters it would send;
   * resolves the ones to send (plugins' chat.params and chat.headers). Must not reject.
   * Undefined: the agent's parameters go as they are.
   */
  params?(input: { session: Session; agent: Agent; model: ResolvedModel; user: UserMessage }, params: StepParams): Promise<StepParams>
  /**
   * Contract: called when the newest prompt is answered and the loop would end (Stop and
   * SubagentStop hooks); a string keeps it going, sent to the model as the user's next message.
   * `again` is true once a run was kept going before. Must not reject. Undefined: the loop ends.
   */
  beforeStop?(input: { session: Session; again: boolean }): Promise<string | undefined>
  /**
   * Contract: called once per step with the conversation the model is about to see (a copy
   * may be edited: plugins' experimental.chat.messages.transform); resolves what it sees. The
   * stored history is never changed. Must not reject. Undefined: the conversation as it is.
   */
  messages?(history: MessageWithParts[]): Promise<MessageWithParts[]>
  /**
   * Contract: called once per step after the tools are selected, before the extra tools; may
   * replace entries of `tools` with copies whose description or schema differ (plugins'
   * tool.definition). Must not reject. Undefined: tools go as they are defined.
   */
  toolDefinitions?(tools: Map<string, Tool>): Promise<void>
  /**
   * Contract: called at every step boundary, before the history is read: the session's inbox
   * stores the steering prompts sent meanwhile as user messages, so the next request carries
   * them. Must not reject. Undefined: nothing is delivered mid-run.
   */
  steer?(sessionID: string): Promise<void>
  /**
   * Contract: called at the start of every iteration; returns notes the model is told once
   * (background subagents that settled, background.ts). The loop stores them as a synthetic user
   * message, so the next request carries them. Must not throw. Undefined: none.
   */
  notes?(sessionID: string): string[]
}

/** What a step sends besides the messages and tools. */
export interface StepParams {
  temperature?: number
  topP?: number
  topK?: number
  maxOutputTokens?: number
  options: Record<string, unknown>
  headers: Record<string, string>
}

export interface StepState {
  number: number
  structured?: unknown
  /** Shared by every step of one loop run. */
  run: { invalidStructured: number }
}

export interface LoopDeps extends ProcessorDeps {
  /** The project directory and git worktree, recorded on every assistant message. */
  directory: string
  worktree: string
  store: Store
  agents: Agents
  providers: Providers
  registry: ToolRegistry
  config: Config
  hooks: LoopHooks
  /** History → model messages; the App passes a cached converter (see createModelMessageCache). */
  modelMessages?: typeof toModelMessages
  /**
   * Tools only this session is offered (its own MCP servers, see session-mcp.ts); filtered by the
   * same rules as the registry's, never shadowing them. Must not throw. Undefined: none.
   */
  sessionTools?(sessionID: string): Tool[]
}

/** Finds the newest user message, assistant message, finished assistant, and queued tasks. */
export function latest(history: MessageWithParts[]) {
  let user: UserMessage | undefined
  let assistant: MessageWithParts | undefined
  let finished: AssistantMessage | undefined
  const tasks: Extract<Part, { type: "subtask" | "compaction" }>[] = []
  for (let i = history.length - 1; i >= 0; i--) {
    const msg = history[i]!
    if (!user && msg.info.role === "user") user = msg.info
    if (!assistant && msg.info.role === "assistant") assistant = msg
    if (!finished && msg.info.role === "assistant" && msg.info.finish) finished = msg.info
    if (user && finished) break
    if (!finished) for (const p of msg.parts) if (p.type === "subtask" || p.type === "compaction") tasks.push(p)
  }
  return { user, assistant, finished, tasks }
}

/** True when the newest user message has a final answer with no tool calls left to send back. */
export function answered(history: MessageWithParts[]): boolean {
  const { user, assistant } = latest(history)
  if (!user || !assistant || assistant.info.role !== "assistant") return false
  const info = assistant.info
  if (info.parentID !== user.id) return false
  if (!info.finish || info.finish === "tool-calls" || info.finish === "unknown") return false
  // Some providers finish with "stop" although the step called tools: their results must go back.
  return !assistant.parts.some((p) => p.type === "tool" && !p.metadata?.providerExecuted && !isInterrupted(p))
}

function isInterrupted(p: Part) {
  return p.type === "tool" && p.state.status === "error" && p.state.metadata?.interrupted === true
}

export async function runLoop(deps: LoopDeps, sessionID: string, abort: AbortSignal): Promise<void> {
  const { history, hooks } = deps
  let step = 0
  let ready!: () => void
  const requestReady = new Promise<void>((r) => (ready = r))
  const run = { invalidStructured: 0 }
  let kept = false
  try {
    await iterate()
  } finally {
    ready()
    hooks.afterRun?.({ sessionID })
  }

  async function iterate() {
  while (!abort.aborted) {
    if (hooks.steer) await hooks.steer(sessionID)
    const session = deps.store.sessions.get(sessionID)
    if (!session) throw sessionNotFound(sessionID)
    const msgs = history.messages(sessionID)
    const { user, finished, tasks } = latest(msgs)
    // After a compaction the model sees the summary and the kept tail, not the whole history.
    const visible = hooks.visible ? hooks.visible(msgs) : msgs
    if (!user) throw new Error(`Session ${sessionID} has no user message to answer`)
    const notes = hooks.notes?.(sessionID) ?? []
    if (notes.length) {
      const note: UserMessage = { ...user, id: Id.ascending("msg"), time: { created: Date.now() } }
      history.putMessage(note)
      history.putPart({ id: Id.ascending("prt"), sessionID, messageID: note.id, type: "text", text: notes.join("\n\n"), synthetic: true })
      continue
    }
    if (answered(msgs)) {
      const more = hooks.beforeStop ? await hooks.beforeStop({ session, again: kept }) : undefined
      if (!more || abort.aborted) break
      kept = true
      const next: UserMessage = { id: Id.ascending("msg"), sessionID, role: "user", time: { created: Date.now() }, agent: user.agent, model: user.model }
      history.putMessage(next)
      history.putPart({ id: Id.ascending("prt"), sessionID, messageID: next.id, type: "text", text: more, synthetic: true })
      continue
    }

    step++
    if (step === 1) hooks.firstStep?.({ session, user, history: msgs, requestReady })

    const task = tasks.pop()
    if (task?.type === "subtask" && hooks.subtask) {
      ready()
      await hooks.subtask({ session, user, part: task, abort })
      continue
    }
    if (task?.type === "compaction" && hooks.compact) {
      ready()
      if ((await hooks.compact({ session, user, part: task, history: msgs, abort })) === "stop") break
      continue
    }

    const agent = deps.agents.require(user.agent)
    const model = await deps.providers.get(user.model.providerID, user.model.modelID)
    if (finished && !finished.summary && hooks.requestCompaction && isOverflow(finished.tokens, model.info, deps.compaction)) {
      hooks.requestCompaction({ session, user, overflow: false })
      continue
    }
    const isLastStep = step >= (agent.steps ?? Infinity)

    const assistant = newAssistant({
      sessionID,
      parentID: user.id,
      agent: agent.name,
      model: { providerID: model.info.providerID, modelID: model.info.id, variant: user.model.variant },
      path: { cwd: deps.directory, root: deps.worktree },
    })
    history.putMessage(assistant)

    const state: StepState = { number: step, run }
    if (agent.name === "plan") await preparePlanDir(deps.worktree)
    const ruleset = merge(agent.permission, session.permission ?? [])
    const tools = resolveTools(deps.registry, model.info.id, ruleset, user, deps.sessionTools?.(sessionID))
    hooks.selectTools?.({ session, model, tools, history: visible })
    if (hooks.toolDefinitions) await hooks.toolDefinitions(tools)
    for (const t of hooks.extraTools?.({ agent, session, user, step: state }) ?? []) tools.set(t.id, t)

    const system = await hooks.system({ agent, model, user, session })
    // The new assistant message is the last one; everything before it is the conversation.
    const earlier = visible[visible.length - 1]?.info.id === assistant.id ? visible.slice(0, -1) : visible.filter((m) => m.info.id !== assistant.id)
    const convert = deps.modelMessages ?? toModelMessages
    const shown = hooks.messages ? await hooks.messages(earlier) : earlier
    const messages = withReminders(convert(shown, { providerID: model.info.providerID, modelID: model.info.id, attachments: model.info.capabilities.attachment }), agent, shown, sessionID)
    if (isLastStep) messages.push({ role: "assistant", content: maxSteps })

    const base: StepParams = { temperature: agent.temperature, topP: agent.topP, options: { ...agent.options }, headers: {} }
    const params = hooks.params ? await hooks.params({ session, agent, model, user }, base) : base

    ready()
    const result = await processStep(deps, {
      assistant,
      agent,
      ruleset,
      abort,
      tools,
      canDelegate: tools.has("task"),
      model,
      system,
      messages,
      toolChoice: isLastStep ? "none" : tools.has("StructuredOutput") ? "required" : undefined,
      temperature: params.temperature,
      topP: params.topP,
      topK: params.topK,
      maxOutputTokens: params.maxOutputTokens,
      headers: Object.keys(params.headers).length ? params.headers : undefined,
      modelOptions: Object.keys(params.options).length ? params.options : undefined,
    })

    const next = hooks.afterStep?.({ assistant, user, step: state, result })
    if (next === "break") break
    if (result === "stop") break
    if (result === "compact") hooks.requestCompaction?.({ session, user, overflow: !assistant.finish })
    if (isLastStep && result === "continue" && assistant.finish !== "tool-calls") break
  }
  }
}

/** Registry tools for the model, minus those the rules deny outright or the prompt turned off. */
export function resolveTools(registry: ToolRegistry, modelID: string, ruleset: ReturnType<typeof merge>, user: UserMessage, own: Tool[] = []): Map<string, Tool> {
  const shared = registry.forModel(modelID)
  const taken = new Set(shared.map((t) => t.id))
  const offered = [...shared, ...own.filter((t) => !taken.has(t.id))]
  const disabled = disabledTools(
    offered.map((t) => t.id),
    ruleset,
  )
  const map = new Map<string, Tool>()
  for (const t of offered) {
    if (t.id !== "invalid" && (disabled.has(t.id) || user.tools?.[t.id] === false)) continue
    map.set(t.id, t)
  }
  return map
}

function withReminders(messages: ModelMessage[], agent: Agent, history: MessageWithParts[], sessionID: string): ModelMessage[] {
  let reminder: string | undefined
  if (agent.name === "plan") reminder = planReminder.replace("{{plan}}", planFile(sessionID))
  else {
    const previous = history.findLast((m) => m.info.role === "assistant")
    if (previous?.info.role === "assistant" && previous.info.agent === "plan" && agent.name !== "plan") reminder = buildSwitch
  }
  if (!reminder) return messages
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role !== "user") continue
    const content = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content
    messages[i] = { ...m, content: [...content, { type: "text", text: reminder }] }
    break
  }
  return messages
}
