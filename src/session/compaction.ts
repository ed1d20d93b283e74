// Compaction: when a conversation nears the model's context limit (or on /compact), a summary
// turn by the `compaction` agent replaces the older history; the most recent messages are kept
// verbatim. The model then sees [request, summary, kept tail, newer messages]. The system
// prompt and instruction files are rebuilt every step, so they are never summarised away.
import type { Agents } from "../agent"
import type { Bus } from "../bus"
import type { ResolvedModel } from "../llm"
import { ContextOverflowError, type CompactionPart, type MessageWithParts, type Session, type UserMessage } from "../protocol"
import { Id } from "../util"
import type { History } from "./history"
import type { LoopHooks } from "./loop"
import { processStep, type ProcessorDeps } from "./processor"
import request from "./prompt/compaction-request.txt"
import { usableContext } from "./usage"
import { newAssistant } from "./assistant"

export const CONTINUE_TEXT = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."
const TRANSCRIPT_TOOL_CAP = 2000
const PRUNE_PROTECT = 40_000
const PRUNE_MINIMUM = 20_000

export interface CompactionSettings {
  auto?: boolean
  prune?: boolean
  tail_turns?: number
  preserve_recent_tokens?: number
  reserved?: number
}

export interface CompactionDeps {
  history: History
  bus: Bus
  agents: Agents
  processor: ProcessorDeps
  /** Recorded on the summary message, as on every assistant message. */
  directory: string
  worktree: string
  settings: CompactionSettings
  resolveModel(ref: { providerID: string; modelID: string }): Promise<ResolvedModel>
  /**
   * Contract: called once before each compaction's model call (PreCompact hooks, plugins'
   * experimental.session.compacting); resolves context to add to the request, or a prompt
   * that replaces it. Must not reject. Undefined: the default request.
   */
  beforeCompact?(input: { sessionID: string; auto: boolean }): Promise<{ context: string[]; prompt?: string }>
  /**
   * Contract: called after an automatic compaction succeeded, before the synthetic "continue"
   * message is added (plugins' experimental.compaction.autocontinue); false skips it. Must not
   * reject. Undefined: it is added.
   */
  autoContinue?(input: { sessionID: string; agent: string; model: ResolvedModel["info"]; message: UserMessage; overflow: boolean }): Promise<boolean>
}

/** Queues a compaction: a user message carrying a `compaction` part, picked up by the loop. */
export function requestCompaction(history: History, input: { session: Session; user: UserMessage; auto: boolean; overflow?: boolean }) {
  const msg: UserMessage = { id: Id.ascending("msg"), sessionID: input.session.id, role: "user", time: { created: Date.now() }, agent: input.user.agent, model: input.user.model }
  history.putMessage(msg)
  history.putPart({ id: Id.ascending("prt"), sessionID: msg.sessionID, messageID: msg.id, type: "compaction", auto: input.auto, ...(input.overflow ? { overflow: true } : {}) })
  return msg
}

/** Rough token count of messages (chars / 4), as OpenCode estimates. */
export function estimateTokens(messages: MessageWithParts[]): number {
  let chars = 0
  for (const m of messages)
    for (const p of m.parts) {
      if (p.type === "text" || p.type === "reasoning") chars += p.text.length
      else if (p.type === "tool") {
        chars += JSON.stringify(p.state.input).length
        if (p.state.status === "completed" && !p.state.time.compacted) chars += p.state.output.length
        if (p.state.status === "error") chars += p.state.error.length
      }
    }
  return Math.round(chars / 4)
}

function isCompactionRequest(m: MessageWithParts) {
  return m.info.role === "user" && m.parts.some((p) => p.type === "compaction")
}

function isSummary(m: MessageWithParts) {
  return m.info.role === "assistant" && m.info.summary === true
}

/**
 * The history the model sees: everything, or, after a finished compaction, the request, its
 * summary, the kept tail, and what came after. `history` is in id order (as the live history
 * is): the request is looked for back from its summary and the tail back from the request, so
 * a step of a long compacted session does not read every message before them.
 */
export function filterCompacted(history: MessageWithParts[]): MessageWithParts[] {
  for (let j = history.length - 1; j >= 0; j--) {
    const s = history[j]!
    if (!isSummary(s) || s.info.role !== "assistant" || !s.info.finish || s.info.error) continue
    const parentID = s.info.parentID
    let i = j - 1
    while (i >= 0 && history[i]!.info.id !== parentID) i--
    if (i === -1) continue
    const request = history[i]!
    const part = request.parts.find((p): p is CompactionPart => p.type === "compaction")
    const tailStart = part?.tail_start_id
    let from = i
    if (tailStart) while (from > 0 && history[from - 1]!.info.id >= tailStart) from--
    const tail = history.slice(from, i).filter((m) => !isCompactionRequest(m) && !isSummary(m))
    const after = history.slice(i + 1).filter((m) => m !== s)
    return [request, s, ...tail, ...after]
  }
  return history
}

/**
 * filterCompacted for the live history of a session, remembering how far it has looked for a
 * summary: a session never compacted is not rescanned from the start at every step.
 */
export function createCompactionView() {
  const seen = new WeakMap<MessageWithParts[], { scanned: number; last?: MessageWithParts; summary: boolean }>()
  return (history: MessageWithParts[]): MessageWithParts[] => {
    let memo = seen.get(history)
    // Messages removed or inserted before what was scanned: look again from the start.
    if (!memo || memo.scanned > history.length || (memo.scanned > 0 && history[memo.scanned - 1] !== memo.last)) memo = { scanned: 0, summary: false }
    for (let j = memo.scanned; j < history.length && !memo.summary; j++) if (isSummary(history[j]!)) memo.summary = true
    memo.scanned = history.length
    memo.last = history[history.length - 1]
    seen.set(history, memo)
    return memo.summary ? filterCompacted(history) : history
  }
}

/**
 * Picks the newest messages to keep verbatim within the token budget; returns the first kept
 * id. The tail starts at a user turn when it holds one (a half turn would lose its request),
 * and never covers everything (then there would be nothing to summarise).
 */
export function chooseTail(candidates: MessageWithParts[], budget: number, maxTurns?: number): string | undefined {
  if (maxTurns !== undefined && maxTurns <= 0) return undefined
  let used = 0
  let first = candidates.length
  let turns = 0
  for (let k = candidates.length - 1; k >= 0; k--) {
    const m = candidates[k]!
    const cost = estimateTokens([m])
    if (used + cost > budget) break
    used += cost
    first = k
    if (m.info.role === "user" && ++turns >= (maxTurns ?? Infinity)) break
  }
  if (first >= candidates.length) return undefined
  const firstUser = candidates.findIndex((m, i) => i >= first && m.info.role === "user")
  if (candidates[first]!.info.role !== "user" && firstUser !== -1) first = firstUser
  if (first === 0) {
    // Everything fits: keep from the second user turn on, so the oldest turn is summarised.
    const second = candidates.findIndex((m, i) => i > 0 && m.info.role === "user")
    if (second === -1) return undefined
    first = second
  }
  return candidates[first]!.info.id
}

export async function processCompaction(
  deps: CompactionDeps,
  input: { session: Session; part: CompactionPart; history: MessageWithParts[]; abort: AbortSignal },
): Promise<"continue" | "stop"> {
  const { history, part, session } = input
  const reqIndex = history.findIndex((m) => m.info.id === part.messageID)
  const requestMsg = history[reqIndex]!
  const requester = requestMsg.info as UserMessage
  const visible = filterCompacted(history.slice(0, reqIndex))
  const prior = visible.find(isSummary)
  const candidates = visible.filter((m) => !isCompactionRequest(m) && !isSummary(m))

  const agent = deps.agents.require("compaction")
  const model = await deps.resolveModel(agent.model ?? requester.model)
  const usable = usableContext(model.info, deps.settings.reserved)
  const budget = deps.settings.preserve_recent_tokens ?? Math.min(15_000, Math.max(2_000, Math.floor(usable * 0.25)))
  const tailStart = chooseTail(candidates, budget, deps.settings.tail_turns)
  const head = tailStart ? candidates.filter((m) => m.info.id < tailStart) : candidates

  const priorText = prior ? prior.parts.map((p) => (p.type === "text" ? p.text : "")).join("") : ""
  const extra = (await deps.beforeCompact?.({ sessionID: session.id, auto: part.auto })) ?? { context: [] }
  const prompt = [
    `Here is the conversation so far:\n<conversation>\n${transcript(head)}\n</conversation>`,
    priorText
      ? `<prior-summary>\n${priorText}\n</prior-summary>\nMerge the prior summary with the conversation: carry forward its objective, constraints and details; where they conflict, the conversation wins; move finished items from Active to Completed; update Next Move.`
      : "",
    extra.prompt ?? request.replace("{{PRIOR}}", priorText ? " together with the summary of what came before it" : ""),
    ...extra.context,
  ]
    .filter(Boolean)
    .join("\n\n")

  const summary = newAssistant({
    sessionID: session.id,
    parentID: requestMsg.info.id,
    agent: "compaction",
    model: { providerID: model.info.providerID, modelID: model.info.id },
    path: { cwd: deps.directory, root: deps.worktree },
    summary: true,
  })
  deps.history.putMessage(summary)
  const result = await processStep(deps.processor, {
    assistant: summary,
    agent,
    ruleset: agent.permission,
    abort: input.abort,
    tools: new Map(),
    canDelegate: false,
    model,
    system: [agent.prompt ?? ""],
    messages: [{ role: "user", content: prompt }],
  })
  if (result === "compact") {
    summary.error = new ContextOverflowError({ message: "Conversation history too large to compact - exceeds model context limit" }).toObject()
    deps.history.putMessage(summary)
    deps.processor.publishError(session.id, summary.error)
    return "stop"
  }
  if (summary.error || result === "stop") return "stop"

  if (tailStart) deps.history.putPart({ ...part, tail_start_id: tailStart })
  const last = history.slice(0, reqIndex).findLast((m) => m.info.role === "user" && !isCompactionRequest(m))?.info as UserMessage | undefined
  const resume = part.auto && (!deps.autoContinue || (await deps.autoContinue({ sessionID: session.id, agent: last?.agent ?? requester.agent, model: model.info, message: last ?? requester, overflow: part.overflow === true })))
  if (resume) {
    const msg: UserMessage = { id: Id.ascending("msg"), sessionID: session.id, role: "user", time: { created: Date.now() }, agent: last?.agent ?? requester.agent, model: last?.model ?? requester.model }
    deps.history.putMessage(msg)
    deps.history.putPart({ id: Id.ascending("prt"), sessionID: session.id, messageID: msg.id, type: "text", text: CONTINUE_TEXT, synthetic: true, metadata: { compaction_continue: true } })
  }
  deps.bus.publish("session.compacted", { sessionID: session.id })
  return "continue"
}

/** One line per item, tool results cut to 2000 characters. */
export function transcript(messages: MessageWithParts[]): string {
  const lines: string[] = []
  for (const m of messages) {
    const who = m.info.role === "user" ? "User" : "Assistant"
    for (const p of m.parts) {
      if (p.type === "text" && p.text.trim() && !p.ignored) lines.push(`[${who}]: ${p.text}`)
      else if (p.type === "reasoning" && p.text.trim()) lines.push(`[Assistant reasoning]: ${p.text}`)
      else if (p.type === "file") lines.push(`[Attached ${p.mime}: ${p.filename ?? p.url.slice(0, 80)}]`)
      else if (p.type === "tool") {
        lines.push(`[Assistant tool call]: ${p.tool}(${JSON.stringify(p.state.input)})`)
        if (p.state.status === "completed")
          lines.push(p.state.time.compacted ? "[Old tool result content cleared]" : `[Tool result]: ${cap(p.state.output)}`)
        else if (p.state.status === "error") lines.push(`[Tool error]: ${cap(p.state.error)}`)
      }
    }
  }
  return lines.join("\n")
}

function cap(s: string) {
  return s.length > TRANSCRIPT_TOOL_CAP ? s.slice(0, TRANSCRIPT_TOOL_CAP) + " [truncated]" : s
}

/**
 * Clears old tool outputs (they become "[Old tool result content cleared]" for the model):
 * skipping the last two user turns and the newest 40K tokens of output, and only when at
 * least 20K tokens would be freed. Skill outputs are kept.
 */
export function prune(history: History, sessionID: string): number {
  const msgs = history.messages(sessionID)
  let turns = 0
  let seen = 0
  const candidates: { part: Extract<MessageWithParts["parts"][number], { type: "tool" }>; tokens: number }[] = []
  outer: for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!
    if (m.info.role === "user") turns++
    if (turns < 2) continue
    if (isSummary(m)) break
    for (let j = m.parts.length - 1; j >= 0; j--) {
      const p = m.parts[j]!
      if (p.type !== "tool" || p.state.status !== "completed" || p.tool === "skill") continue
      if (p.state.time.compacted) break outer
      const tokens = Math.round(p.state.output.length / 4)
      seen += tokens
      if (seen > PRUNE_PROTECT) candidates.push({ part: p, tokens })
    }
  }
  const total = candidates.reduce((a, c) => a + c.tokens, 0)
  if (total < PRUNE_MINIMUM) return 0
  const now = Date.now()
  for (const { part } of candidates) {
    if (part.state.status !== "completed") continue
    part.state = { ...part.state, time: { ...part.state.time, compacted: now } }
    history.putPart(part)
  }
  return total
}

/** The loop hooks compaction provides: the visible history, queued and automatic compactions, pruning after a run. */
export function compactionHooks(deps: CompactionDeps): Required<Pick<LoopHooks, "visible" | "compact" | "requestCompaction" | "afterRun">> {
  return {
    visible: createCompactionView(),
    compact: (input) => processCompaction(deps, input),
    requestCompaction: ({ session, user, overflow }) => void requestCompaction(deps.history, { session, user, auto: true, overflow }),
    afterRun({ sessionID }) {
      if (deps.settings.prune !== false) prune(deps.history, sessionID)
    },
  }
}
