// The inner loop: one LLM call for one step. It folds the provider's stream into parts
// (text, reasoning, tool calls, step markers), publishes every change at once, persists
// parts as they settle, hands each tool call to the tool-call pipeline as it arrives,
// retries retryable provider errors, and answers the outer loop with "continue", "stop" or
// "compact". It never decides whether the conversation is over; the outer loop does.
import type { ModelMessage } from "ai"
import { classifyError, streamBatches, type ResolvedModel } from "../llm"
import {
  MessageAbortedError,
  type AssistantMessage,
  type MessageError,
  type Part,
  type Ruleset,
  type ReasoningPart,
  type TextPart,
  type ToolPart,
  type Tokens,
} from "../protocol"
import type { Agent } from "../agent"
import type { Tool } from "../tool"
import { Id } from "../util"
import type { History } from "./history"
import type { StepSnapshot, StepSnapshots } from "./snapshot"
import { RETRY_MAX_ATTEMPTS, isRetryable, retryDelay, sleep } from "./retry"
import type { ToolPipeline } from "./tool-call"
import { costOf, isOverflow, tokensOf } from "./usage"

export type StepResult = "continue" | "stop" | "compact"

export interface ProcessorDeps {
  history: History
  /** Runs the model's tool calls (the one tool-call pipeline). */
  toolCalls: ToolPipeline
  /** Contract: called on every attempt (busy) and before each retry wait; must not throw. */
  setStatus(sessionID: string, status: { type: "busy" } | { type: "retry"; attempt: number; message: string; next: number }): void
  /** Contract: called once per failed step with the error stored on the message (not for aborts); must not throw. */
  publishError(sessionID: string, error: MessageError): void
  /** Contract: called after every finished step with its cost and tokens; must not throw. Undefined: totals are not kept. */
  onUsage?(sessionID: string, cost: number, tokens: Tokens): void
  compaction: { auto?: boolean; reserved?: number }
  /** Tracks the worktree at the step's boundaries (patch parts, undo). Undefined: no snapshots. */
  snapshots?: StepSnapshots
  /**
   * Contract: called when a text part has streamed in full, before it is saved as finished
   * (plugins' experimental.text.complete); resolves the text to keep. Must not reject.
   * Undefined: the text as streamed.
   */
  textComplete?(input: { sessionID: string; messageID: string; partID: string }, text: string): Promise<string>
  /** Test seam for retry waits. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

/** What one step runs with, besides the model and messages. */
export interface StepContext {
  assistant: AssistantMessage
  agent: Agent
  /** The agent's rules merged with the session's. */
  ruleset: Ruleset
  abort: AbortSignal
  tools: Map<string, Tool>
  canDelegate: boolean
}

export interface StepInput extends StepContext {
  assistant: AssistantMessage
  model: ResolvedModel
  system: string[]
  messages: ModelMessage[]
  toolChoice?: "auto" | "required" | "none"
  temperature?: number
  topP?: number
  topK?: number
  maxOutputTokens?: number
  headers?: Record<string, string>
  modelOptions?: Record<string, unknown>
}

/** How long cleanup waits for in-flight tool calls to settle after the stream ends badly. */
const TOOL_SETTLE_MS = 250

export async function processStep(deps: ProcessorDeps, input: StepInput): Promise<StepResult> {
  const { history } = deps
  const { assistant, abort } = input
  const sid = assistant.sessionID
  const running = new Map<string, Promise<void>>()
  const toolParts = new Map<string, ToolPart>()
  // blocked: the user rejected something, the loop stops after this step; closed: cleanup ran, late results are ignored.
  const step = { blocked: false, closed: false }
  let needsCompaction = false
  // Started once per step, when the model begins its first tool call (while it still streams);
  // an answer without tools costs no snapshot work. A retry reuses it.
  let snapshot: StepSnapshot | undefined
  let finishPart: (Part & { type: "step-finish" }) | undefined
  let startPart: (Part & { type: "step-start" }) | undefined
  let stepEnd: { reason: string; cost: number; tokens: Tokens } | undefined
  const beginSnapshot = () => {
    if (snapshot || !deps.snapshots) return
    const started = (snapshot = deps.snapshots.begin(sid))
    // The tree lands on the step-start part once tracked.
    void started.before.then((tree) => {
      const part = startPart
      if (!tree || !part || !history.message(sid, assistant.id)?.parts.some((p) => p.id === part.id)) return
      put({ ...part, snapshot: tree })
    })
  }

  for (let attempt = 1; ; attempt++) {
    const created: Part[] = []
    let toolsStarted = false
    deps.setStatus(sid, { type: "busy" })
    try {
      // In batches: the deltas of one network read cost one await, not one each.
      const batches = streamBatches({
        model: input.model,
        system: input.system,
        messages: input.messages,
        tools: Object.fromEntries([...input.tools.values()].map((t) => [t.id, { description: t.description, inputSchema: t.jsonSchema }])),
        toolChoice: input.toolChoice,
        abort,
        temperature: input.temperature,
        topP: input.topP,
        topK: input.topK,
        maxOutputTokens: input.maxOutputTokens,
        headers: input.headers,
        modelOptions: input.modelOptions,
        variant: assistant.variant,
        sessionID: sid,
      })
      const open = new Map<string, TextPart | ReasoningPart>()
      events: for await (const batch of batches) for (const event of batch) {
        if (abort.aborted) throw abort.reason
        switch (event.type) {
          case "start-step": {
            startPart = put({ id: Id.ascending("prt"), sessionID: sid, messageID: assistant.id, type: "step-start" as const })
            created.push(startPart)
            break
          }
          case "text-start":
          case "reasoning-start": {
            const part =
              event.type === "text-start"
                ? ({ id: Id.ascending("prt"), sessionID: sid, messageID: assistant.id, type: "text", text: "", time: { start: Date.now() } } as TextPart)
                : ({ id: Id.ascending("prt"), sessionID: sid, messageID: assistant.id, type: "reasoning", text: "", time: { start: Date.now() } } as ReasoningPart)
            if (event.providerMetadata) part.metadata = event.providerMetadata
            open.set(event.id, part)
            created.push(put(part))
            break
          }
          case "text-delta":
          case "reasoning-delta": {
            const part = open.get(event.id)
            if (!part) break
            if (event.providerMetadata) part.metadata = { ...part.metadata, ...(event.providerMetadata as Record<string, unknown>) }
            if (!event.delta) break
            part.text += event.delta
            history.delta(part, event.delta)
            break
          }
          case "text-end":
          case "reasoning-end": {
            const part = open.get(event.id)
            if (!part) break
            open.delete(event.id)
            if (event.providerMetadata) part.metadata = { ...part.metadata, ...(event.providerMetadata as Record<string, unknown>) }
            if (part.type === "text" && deps.textComplete) part.text = await deps.textComplete({ sessionID: sid, messageID: assistant.id, partID: part.id }, part.text)
            part.time = { start: part.time?.start ?? Date.now(), end: Date.now() }
            put(part)
            break
          }
          case "tool-input-start": {
            beginSnapshot()
            const part: ToolPart = {
              id: Id.ascending("prt"),
              sessionID: sid,
              messageID: assistant.id,
              type: "tool",
              callID: event.id,
              tool: event.toolName,
              state: { status: "pending", input: {}, raw: "" },
            }
            toolParts.set(event.id, part)
            created.push(put(part))
            break
          }
          case "tool-input-delta": {
            const part = toolParts.get(event.id)
            if (part?.state.status === "pending") part.state.raw += event.delta
            break
          }
          case "tool-call": {
            let part = toolParts.get(event.toolCallId)
            if (!part) {
              part = { id: Id.ascending("prt"), sessionID: sid, messageID: assistant.id, type: "tool", callID: event.toolCallId, tool: event.toolName, state: { status: "pending", input: {}, raw: "" } }
              toolParts.set(event.toolCallId, part)
              created.push(part)
            }
            const raw = event.input
            const args = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { value: raw }
            part.tool = event.toolName
            toolsStarted = true
            beginSnapshot()
            deps.toolCalls.warm(input.tools.keys())
            const run = () => deps.toolCalls.run({
              origin: "model",
              part,
              tool: input.tools.get(part.tool),
              offered: input.tools.keys(),
              input: args,
              agent: input.agent.name,
              abort,
              policy: { rules: input.ruleset },
              canDelegate: input.canDelegate,
              closed: () => step.closed,
            })
            // A tool may change files: it waits until the worktree's state before the step is recorded.
            const call = snapshot ? snapshot.before.then(run) : run()
            running.set(
              event.toolCallId,
              call.then((outcome) => {
                if ((outcome.type === "error" || outcome.type === "immediate") && outcome.stops) step.blocked = true
              }),
            )
            break
          }
          case "finish-step": {
            const tokens = tokensOf(event.usage)
            const cost = costOf(input.model.info, tokens)
            assistant.finish = event.finishReason
            assistant.cost += cost
            assistant.tokens = tokens
            history.putMessage(assistant)
            // The step-finish part closes the step: it is put once the step's tool calls have
            // settled (below), so every reader sees a step's calls before its end and usage.
            stepEnd = { reason: event.finishReason, cost, tokens }
            if (!assistant.summary && isOverflow(tokens, input.model.info, deps.compaction)) needsCompaction = true
            break
          }
          case "error":
            throw event.error
          case "abort":
            throw abort.reason ?? new Error("aborted")
        }
        if (needsCompaction) break events
      }
      for (const part of open.values()) {
        part.time = { start: part.time?.start ?? Date.now(), end: Date.now() }
        put(part)
      }
      await Promise.allSettled(running.values())
      break
    } catch (e) {
      const error: MessageError = abort.aborted
        ? new MessageAbortedError({ message: "The operation was aborted." }).toObject()
        : classifyError(e, input.model.info.providerID)
      if (error.name === "ContextOverflowError" && deps.compaction.auto !== false) {
        needsCompaction = true
        break
      }
      if (!abort.aborted && !toolsStarted && isRetryable(error) && attempt <= RETRY_MAX_ATTEMPTS) {
        // Nothing ran yet: drop what this attempt streamed and ask again.
        stepEnd = undefined
        for (const part of created) {
          history.removePart(sid, assistant.id, part.id)
          if (part.type === "tool") toolParts.delete(part.callID)
        }
        const delay = retryDelay(error, attempt)
        deps.setStatus(sid, { type: "retry", attempt, message: errorMessage(error), next: Date.now() + delay })
        try {
          await (deps.sleep ?? sleep)(delay, abort)
          continue
        } catch {
          assistant.error = new MessageAbortedError({ message: "The operation was aborted." }).toObject()
          break
        }
      }
      if (toolsStarted && !abort.aborted && isRetryable(error)) {
        // The model's calls already ran: keep them and let the loop send their results back.
        await Promise.allSettled(running.values())
        assistant.finish = assistant.finish ?? "tool-calls"
        break
      }
      assistant.error = error
      if (error.name !== "MessageAbortedError") deps.publishError(sid, error)
      break
    }
  }

  await settle()
  if (stepEnd) {
    finishPart = put({ id: Id.ascending("prt"), sessionID: sid, messageID: assistant.id, type: "step-finish", ...stepEnd })
    deps.onUsage?.(sid, stepEnd.cost, stepEnd.tokens)
  }
  snapshot?.end((patch) => {
    if (finishPart) put({ ...finishPart, snapshot: patch.after })
    put({ id: Id.ascending("prt"), sessionID: sid, messageID: assistant.id, type: "patch", ...patch })
  })
  // Aborted while tools ran (the stream itself had ended): the step is still an aborted one.
  if (abort.aborted && !assistant.error) assistant.error = new MessageAbortedError({ message: "The operation was aborted." }).toObject()
  assistant.time.completed = Date.now()
  history.putMessage(assistant)
  if (needsCompaction) return "compact"
  if (step.blocked || assistant.error) return "stop"
  return "continue"

  function put<P extends Part>(part: P): P {
    history.putPart(part)
    return part
  }

  /** Waits briefly for tools still running, then marks the rest as interrupted. */
  async function settle() {
    const pending = [...running.values()]
    if (pending.length) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.allSettled(pending), new Promise((r) => (timer = setTimeout(r, TOOL_SETTLE_MS)))])
      clearTimeout(timer)
    }
    step.closed = true
    for (const part of toolParts.values()) deps.toolCalls.interrupt(part, input.tools.get(part.tool))
    for (const p of history.message(sid, assistant.id)?.parts ?? [])
      if ((p.type === "text" || p.type === "reasoning") && p.time && p.time.end === undefined) {
        p.time.end = Date.now()
        put(p)
      }
  }
}

export function errorMessage(error: MessageError): string {
  const message = (error.data as { message?: unknown }).message
  return typeof message === "string" ? message : error.name
}

