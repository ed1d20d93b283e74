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

/** A string literal's inside that JSON.parse must decode (quotes, escapes, control characters). */
const NEEDS_DECODE = /["\\\u0000-\u001f]/
/** Learnt frames that never matched again before this stream stops learning. */
const MAX_IDLE_LEARNS = 4

/**
 * The streamed chunks of one answer are the same JSON text around a different content string
 * (`{"id":"chatcmpl-1",…,"delta":{"content":"…"},"finish_reason":null}]}`). After one such
 * chunk was parsed and found plain, the text before and after its content literal is kept, and
 * a later chunk with exactly that text around one JSON string literal is read without parsing
 * the whole object: it parses to the learnt chunk with another content, so the package would
 * make a single text delta of it (or nothing, for an empty string). Anything else misses and
 * goes through the full parse.
 */
export class PlainTextFrames {
  private prefix = ""
  private suffix = ""
  private idleLearns = 0
  private hit = false

  /** The content of `data` when it is the learnt frame around one string literal; undefined when it is not. */
  text(data: string): string | undefined {
    const p = this.prefix.length
    const s = this.suffix.length
    if (p === 0 || data.length < p + s + 2) return undefined
    if (data.substring(0, p) !== this.prefix || !data.endsWith(this.suffix)) return undefined
    const literal = data.substring(p, data.length - s)
    if (literal.charCodeAt(0) !== 34 || literal.charCodeAt(literal.length - 1) !== 34 || literal.length < 2) return undefined
    const inside = literal.slice(1, -1)
    this.hit = true
    if (!NEEDS_DECODE.test(inside)) return inside
    try {
      const value: unknown = JSON.parse(literal)
      return typeof value === "string" ? value : undefined
    } catch {
      return undefined
    }
  }

  /**
   * Learns the frame of `data`, whose parse `value` isPlainChatChunk accepted, when it carries
   * one choice whose delta has nothing but a content string and no finish reason. The slot is
   * proven by parsing the frame around another string: it must give back `value` but for the content.
   */
  learn(data: string, value: unknown): void {
    if (this.hit) this.idleLearns = 0
    this.hit = false
    if (this.idleLearns >= MAX_IDLE_LEARNS) return
    const choices = (value as { choices?: unknown[] }).choices
    if (!Array.isArray(choices) || choices.length !== 1) return
    const choice = choices[0] as { delta?: Record<string, unknown>; finish_reason?: unknown }
    const delta = choice.delta
    if (choice.finish_reason != null || delta == null || typeof delta.content !== "string" || Object.keys(delta).some((k) => k !== "content" && k !== "role")) return
    this.idleLearns++
    this.prefix = ""
    const key = data.lastIndexOf('"content":')
    if (key < 0) return
    let start = key + 10
    while (data[start] === " " || data[start] === "\t" || data[start] === "\n" || data[start] === "\r") start++
    if (data[start] !== '"') return
    let end = start + 1
    while (end < data.length && data[end] !== '"') end += data[end] === "\\" ? 2 : 1
    if (end >= data.length) return
    const prefix = data.slice(0, start)
    const suffix = data.slice(end + 1)
    const probe = "\u0001probe\"\\"
    let parsed: { choices?: Array<{ delta?: Record<string, unknown> }> }
    try {
      parsed = JSON.parse(prefix + JSON.stringify(probe) + suffix)
    } catch {
      return
    }
    const slot = parsed.choices?.[0]?.delta
    if (!slot || slot.content !== probe) return
    slot.content = delta.content
    if (JSON.stringify(parsed) !== JSON.stringify(value)) return
    this.prefix = prefix
    this.suffix = suffix
  }
}
