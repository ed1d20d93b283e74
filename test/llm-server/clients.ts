// The real provider packages pointed at the scripted server, one entry per wire protocol
// (OpenAI Chat twice: openai-compatible is what parses `reasoning_content`).
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { jsonSchema, streamText, tool, type LanguageModel, type TextStreamPart, type ToolSet } from "ai"
import type { Protocol } from "../lib/llm-server"

;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

export interface Client {
  name: string
  protocol: Protocol
  model(url: string): LanguageModel
  /** Extra call settings the provider needs (anthropic: a max_tokens for an unknown model id). */
  settings: { maxOutputTokens?: number }
  parsesReasoning: boolean
  parsesCacheWrite: boolean
  /** Whether tool arguments stream in pieces (Gemini sends each call whole). */
  streamsToolArgs: boolean
}

export const clients: Client[] = [
  {
    name: "openai-compatible chat",
    protocol: "openai-chat",
    model: (url) => createOpenAICompatible({ name: "mock", baseURL: `${url}/v1`, apiKey: "test", includeUsage: true })("mock-model"),
    settings: {},
    parsesReasoning: true,
    parsesCacheWrite: false,
    streamsToolArgs: true,
  },
  {
    name: "openai chat",
    protocol: "openai-chat",
    model: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: "test" }).chat("gpt-mock"),
    settings: {},
    parsesReasoning: false,
    parsesCacheWrite: true,
    streamsToolArgs: true,
  },
  {
    name: "openai responses",
    protocol: "openai-responses",
    model: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: "test" })("gpt-mock"),
    settings: {},
    parsesReasoning: true,
    parsesCacheWrite: true,
    streamsToolArgs: true,
  },
  {
    name: "anthropic",
    protocol: "anthropic",
    model: (url) => createAnthropic({ baseURL: `${url}/v1`, apiKey: "test" })("claude-mock"),
    settings: { maxOutputTokens: 1024 },
    parsesReasoning: true,
    parsesCacheWrite: true,
    streamsToolArgs: true,
  },
  {
    name: "google",
    protocol: "google",
    model: (url) => createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: "test" })("gemini-mock"),
    settings: {},
    parsesReasoning: true,
    parsesCacheWrite: false,
    streamsToolArgs: false,
  },
]

/** A tool without `execute`: the SDK stops after the call with finishReason "tool-calls". */
export const weatherTool = tool({
  description: "Get the weather",
  inputSchema: jsonSchema<{ city: string; days?: number }>({
    type: "object",
    properties: { city: { type: "string" }, days: { type: "number" } },
    required: ["city"],
  }),
})

export type Part = TextStreamPart<ToolSet>

export interface Run {
  parts: Part[]
  /** What `for await` threw: ai 6 throws (instead of emitting an `error` part) when the socket dies mid-stream. */
  thrown?: unknown
}

/** Runs one streamText call to the end and returns every part (HTTP errors arrive as parts, not throws). */
export async function collect(
  client: Client,
  url: string,
  extra: Partial<Parameters<typeof streamText>[0]> = {},
  onPart?: (part: Part) => void,
): Promise<Run> {
  const result = streamText({
    model: client.model(url),
    prompt: "hi",
    maxRetries: 0,
    ...client.settings,
    onError: () => {},
    ...extra,
  } as Parameters<typeof streamText>[0])
  const run: Run = { parts: [] }
  try {
    for await (const part of result.fullStream) {
      run.parts.push(part as Part)
      onPart?.(part as Part)
    }
  } catch (err) {
    run.thrown = err
  }
  return run
}

export function ofType<T extends Part["type"]>(parts: Part[], type: T): Extract<Part, { type: T }>[] {
  return parts.filter((p): p is Extract<Part, { type: T }> => p.type === type)
}
