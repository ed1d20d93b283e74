// Model variants: named sets of provider options (how hard a model reasons), as OpenCode's
// variants are. A reasoning model gets its provider package's usual efforts; config
// `provider.<id>.models.<id>.variants` adds, overrides (merged key by key) or disables
// (`disabled: true`) them. A variant's options go under the package's providerOptions key, after
// the model's and the agent's options, so the variant wins.
import { BadRequestError } from "../protocol"
import type { ModelInfo } from "./types"

export type Variants = Record<string, Record<string, unknown>>

const EFFORTS = ["low", "medium", "high"]
const THINKING = (budget: number) => ({ thinking: { type: "enabled", budgetTokens: budget } })
const ANTHROPIC_BUDGETS: Variants = { high: THINKING(16_000), max: THINKING(31_999) }

/** What the model offers before config: nothing unless it reasons. */
export function builtinVariants(model: { id: string; apiID: string; npm: string; releaseDate?: string; reasoning: boolean }): Variants {
  if (!model.reasoning) return {}
  const id = model.id.toLowerCase()
  // These families reason always or not at all: nothing to choose.
  if (["deepseek", "minimax", "glm", "mistral"].some((s) => id.includes(s))) return {}
  const each = (efforts: string[], options: (effort: string) => Record<string, unknown>) => Object.fromEntries(efforts.map((e) => [e, options(e)]))
  const openai = (effort: string) => ({ reasoningEffort: effort, reasoningSummary: "auto", include: ["reasoning.encrypted_content"] })
  switch (model.npm) {
    case "@ai-sdk/openai": {
      if (id === "gpt-5-pro") return {}
      return each(openaiEfforts(id, model.releaseDate ?? ""), openai)
    }
    case "@ai-sdk/azure": {
      if (id === "o1-mini") return {}
      return each(id === "gpt-5" || id.includes("gpt-5-") ? ["minimal", ...EFFORTS] : EFFORTS, openai)
    }
    case "@ai-sdk/anthropic":
    case "@ai-sdk/google-vertex/anthropic":
      return structuredClone(ANTHROPIC_BUDGETS)
    case "@ai-sdk/amazon-bedrock":
      if (model.apiID.includes("anthropic")) {
        return { high: { reasoningConfig: { type: "enabled", budgetTokens: 16_000 } }, max: { reasoningConfig: { type: "enabled", budgetTokens: 31_999 } } }
      }
      return each(EFFORTS, (e) => ({ reasoningConfig: { type: "enabled", maxReasoningEffort: e } }))
    case "@ai-sdk/google":
    case "@ai-sdk/google-vertex":
      // Gemini 2.5 takes a token budget, later models a level.
      if (id.includes("2.5")) {
        return {
          high: { thinkingConfig: { includeThoughts: true, thinkingBudget: 16_000 } },
          max: { thinkingConfig: { includeThoughts: true, thinkingBudget: 24_576 } },
        }
      }
      return each(["low", "high"], (e) => ({ thinkingConfig: { includeThoughts: true, thinkingLevel: e } }))
    case "@ai-sdk/groq":
      return each(["none", ...EFFORTS], (e) => ({ reasoningEffort: e }))
    case "@ai-sdk/openai-compatible":
    case "@ai-sdk/xai":
    case "@ai-sdk/cerebras":
    case "@ai-sdk/togetherai":
    case "@ai-sdk/deepinfra":
      // openai-compatible sends this as `reasoning_effort`.
      return each(EFFORTS, (e) => ({ reasoningEffort: e }))
  }
  return {}
}

function openaiEfforts(id: string, released: string): string[] {
  if (id.includes("codex")) return id.includes("5.2") ? [...EFFORTS, "xhigh"] : [...EFFORTS]
  const out = [...EFFORTS]
  if (id === "gpt-5" || id.includes("gpt-5-")) out.unshift("minimal")
  if (released >= "2025-11-13") out.unshift("none")
  if (released >= "2025-12-04") out.push("xhigh")
  return out
}

/** The built-in variants with config's merged over them (object values deeply), minus the disabled ones. */
export function withConfigVariants(base: Variants, given: Record<string, Record<string, unknown>> | undefined): Variants {
  if (!given) return base
  const out: Variants = { ...base }
  for (const [name, value] of Object.entries(given)) {
    const { disabled, ...options } = value
    if (disabled === true) delete out[name]
    else out[name] = deepMerge(out[name] ?? {}, options)
  }
  return out
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a }
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k]
    out[k] = isObject(prev) && isObject(v) ? deepMerge(prev, v) : v
  }
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The options of the model's variant `name`. Throws a BadRequestError naming the model, the
 * source of the choice (`--variant`, `agent.build.variant`…) and the variants there are.
 */
export function variantOptions(model: Pick<ModelInfo, "providerID" | "id" | "variants">, name: string, source = "variant"): Record<string, unknown> {
  const hit = model.variants[name]
  if (hit) return hit
  throw new BadRequestError({ message: variantError(model, name, source) })
}

export function variantError(model: Pick<ModelInfo, "providerID" | "id" | "variants">, name: string, source: string): string {
  const ref = `${model.providerID}/${model.id}`
  const names = Object.keys(model.variants)
  if (names.length === 0) {
    return `Model ${ref} has no variants, so ${source} "${name}" cannot apply. Drop ${source}, or define variants under provider.${model.providerID}.models.${model.id}.variants in your config.`
  }
  return `Model ${ref} has no variant "${name}" (${source}). Its variants: ${names.join(", ")}.`
}
