// A cheaper check of OpenAI Chat Completions stream chunks for @ai-sdk/openai-compatible. The
// package validates every streamed chunk with its zod union (chunk | error), which was the
// largest single cost of a long answer (about half of the package's time per delta). Nearly
// every chunk is the same plain shape: a choice whose delta carries text or reasoning as a
// string. Those are checked here by hand, field for field as the package's schema would; any
// other chunk (usage, tool calls, refusals, content arrays, errors, anything unexpected) goes
// to the package's own schema, so what it accepts and rejects is unchanged.
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { asSchema, jsonSchema } from "ai"

type Chunk = Record<string, unknown>

const optString = (v: unknown) => v == null || typeof v === "string"
const isObject = (v: unknown): v is Chunk => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * True when the package's chunk schema would accept `value` and give it back unchanged in every
 * field its stream transform reads (id, created, model, choices[].delta, choices[].finish_reason).
 */
export function isPlainChatChunk(value: unknown): boolean {
  if (!isObject(value) || "error" in value || value.usage != null) return false
  if (!optString(value.id) || !optString(value.model) || !(value.created == null || typeof value.created === "number")) return false
  const choices = value.choices
  if (!Array.isArray(choices)) return false
  for (const choice of choices) {
    if (!isObject(choice) || !optString(choice.finish_reason)) return false
    const delta = choice.delta
    if (delta == null) continue
    if (!isObject(delta)) return false
    if (!(delta.role == null || delta.role === "assistant" || delta.role === "")) return false
    if (!optString(delta.content) || !optString(delta.reasoning_content) || !optString(delta.reasoning)) return false
    // The schema rewrites a non-string refusal and checks each tool call: its own business.
    if (delta.refusal != null || delta.tool_calls != null) return false
  }
  return true
}

/**
 * Gives an openai-compatible chat model the fast chunk check in front of its own schema. A model
 * of any other kind (or a package version without `chunkSchema`) is returned untouched.
 */
export function withPlainChunkCheck(model: LanguageModelV3): LanguageModelV3 {
  const target = model as LanguageModelV3 & { chunkSchema?: unknown }
  if (target.chunkSchema === undefined || target.chunkSchema === null) return model
  // asSchema once: the package would wrap its zod schema again for every chunk.
  const full = asSchema(target.chunkSchema as Parameters<typeof asSchema>[0])
  target.chunkSchema = jsonSchema(() => full.jsonSchema as never, {
    validate: (value) => (isPlainChatChunk(value) ? { success: true, value } : full.validate!(value)),
  })
  return model
}
