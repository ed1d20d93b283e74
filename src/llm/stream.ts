// One LLM step over the AI SDK. The loop owns steps and retries, so the SDK gets
// `maxRetries: 0`, one step, and tools WITHOUT `execute`: the stream ends after the model's
// tool calls (finish reason `tool-calls`) and the processor runs them itself. The stream never
// throws: failures arrive as `error` parts (classify them with classifyError), aborts as `abort`.
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { convertToLanguageModelPrompt } from "ai/internal"
import { jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel, type JSONSchema7, type ModelMessage, type SystemModelMessage, type TextStreamPart, type ToolCallRepairFunction, type ToolSet } from "ai"
import { maxOutputTokens } from "./cost"
import type { ModelInfo, ResolvedModel } from "./types"

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
  maxOutputTokens?: number
  headers?: Record<string, string>
  providerOptions?: Record<string, any>
  /** Agent-level model options (config `agent.<name>.options`), merged under the SDK's key. */
  modelOptions?: Record<string, unknown>
}

export function stream(input: StreamInput): AsyncIterable<TextStreamPart<any>> {
  const { info, language } = input.model
  const tools = toToolSet(input.tools)
  const system: SystemModelMessage[] = input.system.filter((s) => s !== "").map((content) => ({ role: "system", content }))
  const cached = cacheBreakpoints(info, system, input.messages)
  const result = streamText({
    model: withPrompt(language, cached.system, cached.messages),
    // The real prompt is put in place by withPrompt; this stand-in only satisfies the SDK.
    messages: [{ role: "user", content: "." }],
    tools,
    toolChoice: tools ? input.toolChoice : undefined,
    abortSignal: input.abort,
    maxRetries: 0,
    stopWhen: stepCountIs(1),
    temperature: info.capabilities.temperature ? input.temperature : undefined,
    topP: input.topP,
    maxOutputTokens: input.maxOutputTokens ?? maxOutputTokens(info),
    headers: { ...info.headers, ...input.headers },
    providerOptions: providerOptions(info, input.providerOptions, input.modelOptions),
    experimental_repairToolCall: repairCase,
    // Errors arrive as `error` parts for the processor; do not also print them.
    onError: () => {},
  })
  return rerouteInvalid(result.fullStream)
}

/**
 * streamText validates every message with zod on every call: 100-300 ms for a session of a
 * few thousand messages, paid again at each step. Our history was built from validated parts,
 * so the prompt is converted with the SDK's own converter, without validation, and handed to
 * the model through a middleware.
 */
function withPrompt(language: LanguageModelV3, system: SystemModelMessage[], messages: ModelMessage[]): LanguageModelV3 {
  const prompt = convertToLanguageModelPrompt({
    prompt: { system: system.length ? system : undefined, messages },
    supportedUrls: {},
    download: undefined,
  })
  // Conversion errors surface through the stream like any provider error.
  prompt.catch(() => {})
  return wrapLanguageModel({
    model: language,
    middleware: { specificationVersion: "v3", transformParams: async ({ params }) => ({ ...params, prompt: await prompt }) },
  })
}

function toToolSet(schemas: Record<string, ToolSchema>): ToolSet | undefined {
  const entries = Object.entries(schemas).filter(([name]) => name !== INVALID_TOOL)
  if (entries.length === 0) return undefined
  return Object.fromEntries(
    entries.map(([name, s]) => [name, tool({ description: s.description, inputSchema: jsonSchema(s.inputSchema as JSONSchema7) })]),
  )
}

/** Models sometimes capitalise a tool name ("Read"); a name that matches once lowercased is fixed. */
const repairCase: ToolCallRepairFunction<ToolSet> = async ({ toolCall, tools }) => {
  const lower = toolCall.toolName.toLowerCase()
  if (lower !== toolCall.toolName && lower in tools) return { ...toolCall, toolName: lower }
  return null
}

/**
 * A call the SDK could not parse (unknown tool, malformed input) becomes a call to `invalid`
 * with `{tool, error}`, so the processor answers it like any tool and the model can correct
 * itself; the SDK's own `tool-error` for it is dropped. A stream that breaks after output began
 * makes the SDK throw instead of emitting an `error` part; that becomes an `error` part too, so
 * every provider failure reaches the processor the same way.
 */
async function* rerouteInvalid(parts: AsyncIterable<TextStreamPart<ToolSet>>): AsyncIterable<TextStreamPart<any>> {
  const rerouted = new Set<string>()
  try {
    for await (const part of parts) {
      if (part.type === "tool-call" && part.invalid) {
        rerouted.add(part.toolCallId)
        const error = part.error instanceof Error ? part.error.message : String(part.error)
        yield {
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: INVALID_TOOL,
          input: { tool: part.toolName, error },
          dynamic: true,
          providerMetadata: part.providerMetadata,
        }
        continue
      }
      if (part.type === "tool-error" && rerouted.has(part.toolCallId)) continue
      yield part
    }
  } catch (error) {
    yield { type: "error", error }
  }
}

/** Model options from config, then the agent's, go under the SDK's provider key; the caller's options win. */
function providerOptions(info: ModelInfo, given: Record<string, any> | undefined, agent: Record<string, unknown> | undefined): Record<string, any> | undefined {
  const merged = { ...info.options, ...agent }
  if (Object.keys(merged).length === 0) return given
  const key = sdkKey(info)
  return { ...given, [key]: { ...merged, ...given?.[key] } }
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

function sdkKey(info: ModelInfo): string {
  if (info.npm === "@ai-sdk/anthropic") return "anthropic"
  if (info.npm === "@ai-sdk/openai") return "openai"
  if (info.npm === "@ai-sdk/google") return "google"
  return info.providerID
}
