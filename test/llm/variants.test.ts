// Each provider package's variants, checked where they matter: in the request body that the
// real package sends to the scripted llm-server.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { builtinVariants, createProviders, type ModelConfigInput, type ResolvedModel } from "../../src/llm"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { collect, errorOf } from "./harness"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

/** A reasoning model `id` of a provider speaking `npm`, pointed at the llm-server. */
function resolve(npm: string, id: string, model: ModelConfigInput = {}, options: Record<string, unknown> = {}): Promise<ResolvedModel> {
  const version = npm === "@ai-sdk/google" ? "v1beta" : "v1"
  const providers = createProviders({
    config: {
      provider: {
        fake: {
          npm,
          options: { baseURL: `${server.url}/${version}`, apiKey: "test-key", ...options },
          models: { [id]: { reasoning: true, limit: { context: 200_000, output: 64_000 }, ...model } },
        },
      },
    },
    env: {},
  })
  return providers.get("fake", id)
}

async function bodyWith(model: ResolvedModel, variant: string | undefined, sessionID?: string) {
  server.script(text("ok"))
  await collect(model, { variant, sessionID })
  return server.requests.at(-1)!.body
}

test("variants - openai (responses): reasoningEffort becomes reasoning.effort with a summary and encrypted reasoning kept", async () => {
  const model = await resolve("@ai-sdk/openai", "gpt-5")
  expect(Object.keys(model.info.variants)).toEqual(["minimal", "low", "medium", "high"])
  const body = await bodyWith(model, "high")
  expect(body.reasoning).toEqual({ effort: "high", summary: "auto" })
  expect(body.include).toEqual(["reasoning.encrypted_content"])
  const minimal = await bodyWith(model, "minimal")
  expect(minimal.reasoning.effort).toBe("minimal")
})

test("variants - openai: newer models add none and xhigh by release date", () => {
  const base = { apiID: "gpt-5.2", npm: "@ai-sdk/openai", reasoning: true }
  expect(Object.keys(builtinVariants({ ...base, id: "gpt-5.2", releaseDate: "2025-12-11" }))).toEqual(["none", "low", "medium", "high", "xhigh"])
  expect(Object.keys(builtinVariants({ ...base, id: "gpt-5.1-codex", releaseDate: "2025-11-13" }))).toEqual(["low", "medium", "high"])
  expect(builtinVariants({ ...base, id: "gpt-5-pro" })).toEqual({})
})

test("variants - anthropic: high and max are thinking budgets, and max_tokens leaves room for the text within the model's limit", async () => {
  const model = await resolve("@ai-sdk/anthropic", "claude-test")
  expect(Object.keys(model.info.variants)).toEqual(["high", "max"])
  const high = await bodyWith(model, "high")
  expect(high.thinking).toEqual({ type: "enabled", budget_tokens: 16_000 })
  expect(high.max_tokens).toBe(32_000 + 16_000)
  const max = await bodyWith(model, "max")
  expect(max.thinking).toEqual({ type: "enabled", budget_tokens: 31_999 })
  expect(max.max_tokens).toBeLessThanOrEqual(64_000)

  const small = await resolve("@ai-sdk/anthropic", "claude-small", { limit: { context: 200_000, output: 40_000 } })
  const capped = await bodyWith(small, "max")
  expect(capped.thinking.budget_tokens).toBe(31_999)
  expect(capped.max_tokens).toBe(40_000)
})

test("variants - anthropic: without a variant no thinking is asked for", async () => {
  const body = await bodyWith(await resolve("@ai-sdk/anthropic", "claude-test"), undefined)
  expect(body.thinking).toBeUndefined()
  expect(body.max_tokens).toBe(32_000)
})

test("variants - google: gemini 2.5 takes a thinking budget, gemini 3 a thinking level", async () => {
  const flash = await resolve("@ai-sdk/google", "gemini-2.5-flash")
  expect(Object.keys(flash.info.variants)).toEqual(["high", "max"])
  const budget = await bodyWith(flash, "max")
  expect(budget.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 24_576 })

  const pro = await resolve("@ai-sdk/google", "gemini-3-pro")
  expect(Object.keys(pro.info.variants)).toEqual(["low", "high"])
  const level = await bodyWith(pro, "low")
  expect(level.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: "low" })
})

test("variants - openai-compatible: the effort is sent as reasoning_effort", async () => {
  const model = await resolve("@ai-sdk/openai-compatible", "qwen3")
  expect(Object.keys(model.info.variants)).toEqual(["low", "medium", "high"])
  const body = await bodyWith(model, "medium")
  expect(body.reasoning_effort).toBe("medium")
  const plain = await bodyWith(model, undefined)
  expect(plain.reasoning_effort).toBeUndefined()
})

test("variants - config adds a variant, overrides a built-in one key by key, and disables another", async () => {
  const model = await resolve("@ai-sdk/anthropic", "claude-test", {
    variants: {
      quick: { thinking: { type: "enabled", budgetTokens: 2_048 } },
      high: { thinking: { budgetTokens: 8_000 } },
      max: { disabled: true },
    },
  })
  expect(Object.keys(model.info.variants)).toEqual(["high", "quick"])
  expect((await bodyWith(model, "high")).thinking).toEqual({ type: "enabled", budget_tokens: 8_000 })
  expect((await bodyWith(model, "quick")).thinking).toEqual({ type: "enabled", budget_tokens: 2_048 })
})

test("variants - a variant wins over the model's and the agent's options", async () => {
  const model = await resolve("@ai-sdk/openai-compatible", "qwen3", { options: { reasoningEffort: "low" } })
  server.script(text("ok"))
  await collect(model, { variant: "high", modelOptions: { reasoningEffort: "medium" } })
  expect(server.requests[0]!.body.reasoning_effort).toBe("high")
})

test("variants - a model without variants says so, naming the model; nothing is sent", async () => {
  const model = await resolve("@ai-sdk/openai-compatible", "plain", { reasoning: false })
  expect(model.info.variants).toEqual({})
  const error = errorOf(await collect(model, { variant: "high" })) as Error
  expect(error.message).toContain("Model fake/plain has no variants")
  expect(error.message).toContain("provider.fake.models.plain.variants")
  expect(server.requests).toHaveLength(0)

  const known = await resolve("@ai-sdk/anthropic", "claude-test")
  const unknown = errorOf(await collect(known, { variant: "ultra" })) as Error
  expect(unknown.message).toBe('Model fake/claude-test has no variant "ultra" (variant). Its variants: high, max.')
})

test("cache key - openai requests carry the session id as prompt_cache_key; other providers only with setCacheKey", async () => {
  const openai = await resolve("@ai-sdk/openai", "gpt-5")
  expect((await bodyWith(openai, undefined, "ses_abc")).prompt_cache_key).toBe("ses_abc")
  const chat = await resolve("@ai-sdk/openai", "gpt-5", {}, { chatCompletions: true })
  expect(server.requests.length).toBe(1)
  const chatBody = await bodyWith(chat, undefined, "ses_chat")
  expect(server.requests.at(-1)!.path).toBe("/v1/chat/completions")
  expect(chatBody.prompt_cache_key).toBe("ses_chat")

  const compatible = await resolve("@ai-sdk/openai-compatible", "qwen3")
  expect((await bodyWith(compatible, undefined, "ses_abc")).prompt_cache_key).toBeUndefined()
  const opted = await resolve("@ai-sdk/openai-compatible", "qwen3", {}, { setCacheKey: true })
  expect((await bodyWith(opted, undefined, "ses_abc")).prompt_cache_key).toBe("ses_abc")
})

test("variants - the packages without a wire in the llm-server get the option names they read", () => {
  const v = (npm: string, id: string, apiID = id) => builtinVariants({ id, apiID, npm, reasoning: true })
  // @ai-sdk/amazon-bedrock: reasoningConfig, a budget for Claude, an effort for Nova.
  expect(v("@ai-sdk/amazon-bedrock", "claude-sonnet", "anthropic.claude-sonnet-4-20250514-v1:0").max).toEqual({ reasoningConfig: { type: "enabled", budgetTokens: 31_999 } })
  expect(v("@ai-sdk/amazon-bedrock", "nova-premier", "amazon.nova-premier-v1:0").high).toEqual({ reasoningConfig: { type: "enabled", maxReasoningEffort: "high" } })
  // @ai-sdk/groq and @ai-sdk/xai: reasoningEffort (sent as reasoning_effort).
  expect(Object.keys(v("@ai-sdk/groq", "qwen3-32b"))).toEqual(["none", "low", "medium", "high"])
  expect(v("@ai-sdk/xai", "grok-4").low).toEqual({ reasoningEffort: "low" })
  // @ai-sdk/azure: OpenAI's Responses options.
  expect(Object.keys(v("@ai-sdk/azure", "gpt-5"))).toEqual(["minimal", "low", "medium", "high"])
  // Vertex's Gemini is Google's thinking config.
  expect(v("@ai-sdk/google-vertex", "gemini-2.5-pro").high).toEqual({ thinkingConfig: { includeThoughts: true, thinkingBudget: 16_000 } })
  // Families that always (or never) reason, and models that do not reason, have none.
  expect(v("@ai-sdk/openai-compatible", "deepseek-reasoner")).toEqual({})
  expect(builtinVariants({ id: "claude-3-haiku", apiID: "claude-3-haiku", npm: "@ai-sdk/anthropic", reasoning: false })).toEqual({})
})
