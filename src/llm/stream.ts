// One LLM step, straight on the provider model (LanguageModelV3.doStream). The loop owns steps,
// retries and tool execution, so the SDK's streamText (multi-step orchestration, tool running,
// several stream transforms, zod validation of the whole prompt) is not used: it cost about
// 25 µs per streamed chunk and 100-300 ms per step of a long session. The SDK's own helpers
// still build the prompt, the call settings and the usage, and the provider packages still do
// all of the wire work. The stream never throws: failures arrive as `error` events (classify
// them with classifyError), aborts as `abort`.
import { channel } from "node:diagnostics_channel"
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, SharedV3ProviderMetadata } from "@ai-sdk/provider"
import type { FinishReason, LanguageModelUsage, ModelMessage, SystemModelMessage } from "ai"
import { asLanguageModelUsage, convertToLanguageModelPrompt, prepareCallSettings } from "ai/internal"
import { maxOutputTokens } from "./cost"
import { partBatches } from "./lean-chat"
import { variantOptions } from "./variants"
import type { ModelInfo, ResolvedModel } from "./types"

/**
 * Published (diagnostics_channel "wright:llm.request") right before a step's request goes to
 * the provider: benchmarks time the start of a step with it. Free when nobody subscribes.
 */
export const requestChannel = channel("wright:llm.request")

// Warnings (unsupported settings and the like) would print over the TUI.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

/** The tool that malformed calls are rerouted to; never offered to the model. */
export const INVALID_TOOL = "invalid"

export interface ToolSchema {
  description: string
  /** JSON Schema of the tool's input. */
  inputSchema: Record<string, unknown>
}

export interface StreamInput {
  model: ResolvedModel
  system: string[]
  messages: ModelMessage[]
  tools: Record<string, ToolSchema>
  toolChoice?: "auto" | "required" | "none"
  abort: AbortSignal
  temperature?: number
  topP?: number
  topK?: number
  maxOutputTokens?: number
  headers?: Record<string, string>
  providerOptions?: Record<string, any>
  /** Agent-level model options (config `agent.<name>.options`), merged under the SDK's key. */
  modelOptions?: Record<string, unknown>
  /** The model's variant to apply (its options win over the model's and the agent's); unknown names throw before any request. */
  variant?: string
  /** The session the step belongs to: OpenAI's prompt-cache key, so a session's requests land on the same cache. */
  sessionID?: string
}

type Meta = { providerMetadata?: SharedV3ProviderMetadata }

/** What one step streams to the processor (field names follow the AI SDK's stream parts). */
export type StreamEvent =
  | { type: "start-step" }
  | ({ type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end"; id: string } & Meta)
  | ({ type: "text-delta" | "reasoning-delta"; id: string; delta: string } & Meta)
  | ({ type: "tool-input-start"; id: string; toolName: string } & Meta)
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-input-end"; id: string }
  | ({ type: "tool-call"; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean } & Meta)
  | ({ type: "finish-step"; finishReason: FinishReason; rawFinishReason?: string; usage: LanguageModelUsage } & Meta)
  | { type: "finish"; finishReason: FinishReason; totalUsage: LanguageModelUsage }
  | { type: "error"; error: unknown }
  | { type: "abort" }

/** One step's events one by one (see streamBatches). */
export async function* stream(input: StreamInput): AsyncGenerator<StreamEvent> {
  for await (const events of streamBatches(input)) yield* events
}

/**
 * One step's events in batches: those that arrived together (a network read's worth of
 * streamed deltas) come in one array, so a consumer pays one await per batch instead of one
 * per delta. Never throws, like stream().
 */
export async function* streamBatches(input: StreamInput): AsyncGenerator<StreamEvent[]> {
  const { info, language } = input.model
  const offered = Object.entries(input.tools).filter(([name]) => name !== INVALID_TOOL)
  const names = new Set(offered.map(([name]) => name))
  try {
    const system: SystemModelMessage[] = input.system.filter((s) => s !== "").map((content) => ({ role: "system", content }))
    const cached = cacheBreakpoints(info, system, input.messages)
    // Our history was built from validated parts, so it is converted without the SDK's
    // per-call zod validation of every message.
    const prompt = await toProviderPrompt(cached.system, cached.messages)
    const tools: LanguageModelV3FunctionTool[] | undefined = offered.length
      ? offered.map(([name, t]) => ({ type: "function", name, description: t.description, inputSchema: t.inputSchema as LanguageModelV3FunctionTool["inputSchema"] }))
      : undefined
    const sdkOptions = providerOptions(info, input)
    const options: LanguageModelV3CallOptions = {
      ...prepareCallSettings({
        maxOutputTokens: input.maxOutputTokens ?? withThinking(maxOutputTokens(info), info, sdkOptions?.[sdkKey(info)]),
        temperature: info.capabilities.temperature ? input.temperature : undefined,
        topP: input.topP,
        topK: input.topK,
      }),
      prompt,
      tools,
      toolChoice: tools ? { type: input.toolChoice ?? "auto" } : undefined,
      abortSignal: input.abort,
      headers: { ...info.headers, ...input.headers },
      providerOptions: sdkOptions,
    }
    if (requestChannel.hasSubscribers) requestChannel.publish({ providerID: info.providerID, modelID: info.id, messages: prompt.length })
    const { stream: parts } = await language.doStream(options)
    yield [{ type: "start-step" }]
    const batched = partBatches(parts)
    const reader = batched ? undefined : parts.getReader()
    const next = batched ?? (async () => {
      const { done, value } = await reader!.read()
      return done ? undefined : [value]
    })
    try {
      while (true) {
        const batch = await next()
        if (!batch) break
        const events: StreamEvent[] = []
        for (const value of batch) {
          const event = translate(value, names)
          if (event) events.push(event)
          if (value.type === "finish") events.push({ type: "finish", finishReason: value.finishReason.unified, totalUsage: asLanguageModelUsage(value.usage) })
        }
        if (events.length > 0) yield events
      }
    } finally {
      reader?.releaseLock()
    }
    if (input.abort.aborted) yield [{ type: "abort" }]
  } catch (error) {
    yield [input.abort.aborted ? { type: "abort" } : { type: "error", error }]
  }
}

type ProviderPrompt = Awaited<ReturnType<typeof convertToLanguageModelPrompt>>
/** Each self-contained group of model messages, converted once while its objects are reused (kept on its first message). */
const CONVERTED = Symbol("wright.provider-prompt")
type Convertible = ModelMessage & { [CONVERTED]?: { members: ModelMessage[]; out: ProviderPrompt } }

/**
 * The last prompt built for a conversation (found by its first message): its messages, where
 * the group starting at each one begins in `body` (-1 inside a group), and the converted body.
 */
interface PreviousPrompt {
  members: ModelMessage[]
  starts: number[]
  body: ProviderPrompt
}
const previousPrompts = new WeakMap<ModelMessage, PreviousPrompt>()

/**
 * The SDK's prompt conversion, per group: a user message, or an assistant message with the
 * tool results that follow it (the converter checks that every call has its result). The
 * session layer hands the same message objects for unchanged history, so a step of a long
 * session converts only what is new; the groups before the first message that differs from
 * the last prompt of the same conversation are taken from it (found by comparing the two
 * lists), without reading each group again.
 */
async function toProviderPrompt(system: SystemModelMessage[], messages: ModelMessage[]): Promise<ProviderPrompt> {
  const convert = (msgs: ModelMessage[]) => convertToLanguageModelPrompt({ prompt: { messages: msgs }, supportedUrls: {}, download: undefined })
  const found = messages.length ? previousPrompts.get(messages[0]!) : undefined
  const from = found ? reusable(found, messages) : 0
  // The last prompt's arrays are cut where it stops being valid and extended in place.
  const prev: PreviousPrompt = from ? found! : { members: [], starts: [], body: [] }
  const { starts, body } = prev
  if (from < prev.members.length) body.length = starts[from]!
  starts.length = from
  prev.members.length = from
  for (let i = from; i < messages.length; i++) prev.members.push(messages[i]!)
  // Groups not converted yet are converted together, one SDK call per run of them (the first
  // step of a long session is one call, not one per message), then split back into groups.
  let pending: { index: number; first: Convertible; members: ModelMessage[] }[] = []
  const convertPending = async () => {
    if (!pending.length) return
    const groups = pending
    pending = []
    const fresh = groups.length > 1 ? splitGroups(await convert(groups.flatMap((g) => g.members)).catch(() => undefined), groups.length) : undefined
    for (let g = 0; g < groups.length; g++) {
      const converted = fresh?.[g] ?? (await convert(groups[g]!.members))
      groups[g]!.first[CONVERTED] = { members: groups[g]!.members, out: converted }
      starts[groups[g]!.index] = body.length
      for (const m of converted) body.push(m)
    }
  }
  // Forgotten while it is being rebuilt: a conversion that throws leaves nothing half done behind.
  if (messages.length) previousPrompts.delete(messages[0]!)
  for (let i = from; i < messages.length; ) {
    let j = i + 1
    if (messages[i]!.role === "assistant") while (j < messages.length && messages[j]!.role === "tool") j++
    starts.push(-1)
    for (let k = i + 1; k < j; k++) starts.push(-1)
    const first = messages[i] as Convertible
    const hit = first[CONVERTED]
    if (hit && sameRun(hit.members, messages, i, j)) {
      // Awaited only when there is something to convert: an await per cached group is a
      // microtask each, most of a long session's step (10,000 messages: ~3 ms).
      if (pending.length) await convertPending()
      starts[i] = body.length
      for (const m of hit.out) body.push(m)
    } else pending.push({ index: i, first, members: messages.slice(i, j) })
    i = j
  }
  await convertPending()
  if (messages.length) previousPrompts.set(messages[0]!, prev)
  const out: ProviderPrompt = system.map((m) => ({ role: "system", content: m.content, providerOptions: m.providerOptions }))
  return out.concat(body)
}

/**
 * Where the last prompt's body can be cut and reused: the start of a group before which every
 * message is the same object as last time and the group before is whole in both prompts (the
 * next message starts a group in both).
 */
function reusable(prev: PreviousPrompt, messages: ModelMessage[]): number {
  const max = Math.min(messages.length, prev.members.length)
  let k = 0
  while (k < max && messages[k] === prev.members[k]) k++
  const startsGroup = (i: number) => (i >= prev.members.length || prev.starts[i] !== -1) && (i >= messages.length || messages[i]!.role !== "tool")
  while (k > 0 && !startsGroup(k)) k--
  // Index 0 always starts a group; step back to the group start at or before k.
  while (k > 0 && prev.starts[k] === -1) k--
  return k
}

/**
 * The converted prompt of several groups, cut where each group starts: a group's first
 * message becomes one non-tool message and its tool messages one tool message after it.
 * Undefined when the count does not match (then each group is converted on its own).
 */
function splitGroups(prompt: ProviderPrompt | undefined, count: number): ProviderPrompt[] | undefined {
  if (!prompt) return undefined
  const groups: ProviderPrompt[] = []
  for (const m of prompt) {
    if (m.role !== "tool" || !groups.length) groups.push([m])
    else groups[groups.length - 1]!.push(m)
  }
  return groups.length === count ? groups : undefined
}

function sameRun(members: ModelMessage[], messages: ModelMessage[], from: number, to: number) {
  if (members.length !== to - from) return false
  for (let k = 0; k < members.length; k++) if (members[k] !== messages[from + k]) return false
  return true
}

/** One provider stream part as the processor's event; parts it has no use for are dropped. */
function translate(part: LanguageModelV3StreamPart, tools: Set<string>): StreamEvent | undefined {
  switch (part.type) {
    case "text-start":
    case "text-end":
    case "reasoning-start":
    case "reasoning-end":
      return { type: part.type, id: part.id, providerMetadata: part.providerMetadata }
    case "text-delta":
    case "reasoning-delta":
      // The provider's part already has this shape: passed on as it is (one per streamed chunk).
      return part
    case "tool-input-start":
      return { type: "tool-input-start", id: part.id, toolName: part.toolName, providerMetadata: part.providerMetadata }
    case "tool-input-delta":
      return { type: "tool-input-delta", id: part.id, delta: part.delta }
    case "tool-input-end":
      return { type: "tool-input-end", id: part.id }
    case "tool-call":
      return toolCall(part, tools)
    case "finish":
      return {
        type: "finish-step",
        finishReason: part.finishReason.unified,
        rawFinishReason: part.finishReason.raw,
        usage: asLanguageModelUsage(part.usage),
        providerMetadata: part.providerMetadata,
      }
    case "error":
      return { type: "error", error: part.error }
    default:
      return undefined
  }
}

/**
 * The model's call, with its JSON input parsed. Models sometimes capitalise a tool name
 * ("Read"): a name that matches once lowercased is fixed. A call to a tool that was not
 * offered, or with input that is not JSON, becomes a call to `invalid` with `{tool, error}`,
 * so the model is told what went wrong and the loop goes on.
 */
function toolCall(part: Extract<LanguageModelV3StreamPart, { type: "tool-call" }>, tools: Set<string>): StreamEvent {
  const base = { type: "tool-call" as const, toolCallId: part.toolCallId, providerMetadata: part.providerMetadata, providerExecuted: part.providerExecuted }
  let name = part.toolName
  if (!tools.has(name) && tools.has(name.toLowerCase())) name = name.toLowerCase()
  if (!tools.has(name)) {
    const available = [...tools].join(", ") || "none"
    return { ...base, toolName: INVALID_TOOL, input: { tool: part.toolName, error: `Model tried to call unavailable tool '${part.toolName}'. Available tools: ${available}.` } }
  }
  const raw = part.input.trim()
  if (raw === "") return { ...base, toolName: name, input: {} }
  try {
    return { ...base, toolName: name, input: JSON.parse(raw) }
  } catch (e) {
    return { ...base, toolName: INVALID_TOOL, input: { tool: name, error: `JSON parsing failed for the arguments of '${name}': ${(e as Error).message}. Text: ${raw.slice(0, 500)}` } }
  }
}

/**
 * Under the SDK's provider key, in order (later wins): the session's prompt-cache key, model
 * options from config, the agent's, the variant's; then the caller's own options.
 */
function providerOptions(info: ModelInfo, input: StreamInput): Record<string, any> | undefined {
  const given = input.providerOptions
  const merged = {
    ...cacheKey(info, input.sessionID),
    ...info.options,
    ...input.modelOptions,
    ...(input.variant ? variantOptions(info, input.variant) : {}),
  }
  if (Object.keys(merged).length === 0) return given
  const key = sdkKey(info)
  return { ...given, [key]: { ...merged, ...given?.[key] } }
}

/**
 * OpenAI routes requests with the same `prompt_cache_key` to the same cache, so one session's
 * steps share their prefix. Set for the openai package (and Azure), and for any provider whose
 * options say `setCacheKey: true` (openai-compatible sends the raw body field).
 */
function cacheKey(info: ModelInfo, sessionID: string | undefined): Record<string, unknown> {
  if (!sessionID) return {}
  if (info.npm === "@ai-sdk/openai" || info.npm === "@ai-sdk/azure") return { promptCacheKey: sessionID }
  if (info.setCacheKey === true) return { prompt_cache_key: sessionID }
  return {}
}

/**
 * Anthropic adds the thinking budget to max_tokens: keep text + thinking within the model's
 * output limit (the budget is the user's explicit choice, so the text share gives way).
 */
function withThinking(standard: number, info: ModelInfo, options: Record<string, any> | undefined): number {
  const thinking = options?.thinking
  if (info.npm !== "@ai-sdk/anthropic" && info.npm !== "@ai-sdk/google-vertex/anthropic") return standard
  if (thinking?.type !== "enabled" || typeof thinking.budgetTokens !== "number") return standard
  const cap = info.limit.output || standard
  if (thinking.budgetTokens + standard <= cap) return standard
  return Math.max(1, cap - thinking.budgetTokens)
}

const EPHEMERAL = { anthropic: { cacheControl: { type: "ephemeral" } } }

/**
 * Anthropic caches a prompt prefix only up to explicit breakpoints: mark the first system
 * message (stable across steps) and the last two messages (the growing conversation).
 */
function cacheBreakpoints(info: ModelInfo, system: SystemModelMessage[], messages: ModelMessage[]) {
  if (info.npm !== "@ai-sdk/anthropic") return { system, messages }
  const mark = <M extends ModelMessage>(m: M): M => ({ ...m, providerOptions: { ...m.providerOptions, ...EPHEMERAL } })
  return {
    system: system.map((m, i) => (i === 0 ? mark(m) : m)),
    messages: messages.map((m, i) => (i >= messages.length - 2 ? mark(m) : m)),
  }
}

/** The `providerOptions` key each bundled package reads; openai-compatible reads the provider's id. */
const SDK_KEYS: Record<string, string> = {
  "@ai-sdk/anthropic": "anthropic",
  "@ai-sdk/openai": "openai",
  "@ai-sdk/google": "google",
  "@ai-sdk/google-vertex": "vertex",
  "@ai-sdk/google-vertex/anthropic": "anthropic",
  "@ai-sdk/amazon-bedrock": "bedrock",
  "@ai-sdk/azure": "azure",
  "@ai-sdk/mistral": "mistral",
  "@ai-sdk/groq": "groq",
  "@ai-sdk/xai": "xai",
}

function sdkKey(info: ModelInfo): string {
  return SDK_KEYS[info.npm] ?? info.providerID
}
