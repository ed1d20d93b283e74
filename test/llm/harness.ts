// Shared set-up for llm tests: a provider entry pointing at the scripted LLM server, and a
// helper that runs one `stream()` step and collects its parts.
import type { StreamEvent } from "../../src/llm"
import { createProviders, stream, type ProviderConfigInput, type ResolvedModel, type StreamInput } from "../../src/llm"
import type { LLMServer } from "../lib/llm-server"

/** Every wire protocol a provider entry can speak, as config selects it. */
export const PROTOCOLS = [
  { label: "openai-compatible chat", npm: "@ai-sdk/openai-compatible", options: {}, path: "/v1/chat/completions" },
  { label: "openai responses", npm: "@ai-sdk/openai", options: {}, path: "/v1/responses" },
  { label: "openai chat", npm: "@ai-sdk/openai", options: { chatCompletions: true }, path: "/v1/chat/completions" },
  { label: "anthropic messages", npm: "@ai-sdk/anthropic", options: {}, path: "/v1/messages" },
  { label: "google gemini", npm: "@ai-sdk/google", options: {}, path: "/v1beta/models/test-model:streamGenerateContent" },
] as const

export function fakeProvider(server: LLMServer, npm: string, options: Record<string, unknown> = {}): ProviderConfigInput {
  // @ai-sdk/google appends `/models/{id}:streamGenerateContent` to its base, which ends in the API version.
  const version = npm === "@ai-sdk/google" ? "v1beta" : "v1"
  return {
    npm,
    options: { baseURL: `${server.url}/${version}`, apiKey: "test-key", ...options },
    models: { "test-model": { name: "Test", limit: { context: 100_000, output: 4_000 } } },
  }
}

export async function resolveFake(server: LLMServer, npm: string, options: Record<string, unknown> = {}): Promise<ResolvedModel> {
  const providers = createProviders({ config: { provider: { fake: fakeProvider(server, npm, options) } }, env: {} })
  return providers.get("fake", "test-model")
}

export const READ_TOOL = {
  read: {
    description: "Read a file",
    inputSchema: { type: "object", properties: { filePath: { type: "string" } }, required: ["filePath"] },
  },
}

export async function collect(model: ResolvedModel, extra: Partial<StreamInput> = {}): Promise<StreamEvent[]> {
  const parts: StreamEvent[] = []
  const input: StreamInput = {
    model,
    system: ["You are a test."],
    messages: [{ role: "user", content: "hello" }],
    tools: READ_TOOL,
    abort: new AbortController().signal,
    ...extra,
  }
  for await (const part of stream(input)) parts.push(part)
  return parts
}

export function textOf(parts: StreamEvent[]): string {
  return parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("")
}

export function errorOf(parts: StreamEvent[]): unknown {
  const part = parts.find((p) => p.type === "error")
  if (!part || part.type !== "error") throw new Error(`no error part in: ${parts.map((p) => p.type).join(", ")}`)
  return part.error
}
