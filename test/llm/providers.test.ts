import { afterAll, beforeAll, expect, test } from "vitest"
import { createProviders } from "../../src/llm"
import { BadRequestError, ProviderAuthError, ProviderModelNotFoundError } from "../../src/protocol"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { collect, textOf } from "./harness"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterAll(() => server.close())

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p
  } catch (e) {
    return e as Error
  }
  throw new Error("expected a rejection")
}

test("providers - a provider is active when its key is in the environment or it is configured", () => {
  const providers = createProviders({
    config: { provider: { local: { options: { baseURL: "http://localhost:11434/v1" }, models: { qwen3: {} } } } },
    env: { ANTHROPIC_API_KEY: "sk-ant", OPENAI_API_KEY: "" },
  })
  const ids = providers.list().map((p) => p.id)
  expect(ids).toContain("anthropic")
  expect(ids).toContain("local")
  expect(ids).not.toContain("openai")
  expect(providers.list().find((p) => p.id === "anthropic")?.source).toBe("env")
  expect(providers.all().map((p) => p.id)).toEqual(expect.arrayContaining(["openai", "google", "openrouter", "groq", "local"]))
})

test("providers - disabled_providers and enabled_providers filter the active list", () => {
  const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", GEMINI_API_KEY: "g" }
  const disabled = createProviders({ config: { disabled_providers: ["openai"] }, env })
  expect(disabled.list().map((p) => p.id)).toEqual(["anthropic", "google"])
  const enabled = createProviders({ config: { enabled_providers: ["google"] }, env })
  expect(enabled.list().map((p) => p.id)).toEqual(["google"])
})

test("providers - GEMINI_API_KEY activates google like GOOGLE_GENERATIVE_AI_API_KEY", () => {
  const providers = createProviders({ config: {}, env: { GEMINI_API_KEY: "g" } })
  expect(providers.list().map((p) => p.id)).toEqual(["google"])
})

test("providers - a missing key names the env variable to set", async () => {
  const providers = createProviders({ config: {}, env: {} })
  const e = await rejection(providers.get("anthropic", "claude-sonnet-4-5"))
  expect(ProviderAuthError.is(e)).toBe(true)
  expect(e.message).toContain("ANTHROPIC_API_KEY")
  const google = await rejection(providers.get("google", "gemini-2.5-pro"))
  expect(google.message).toContain("GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY")
})

test("providers - an unknown model suggests close ids and lists the provider's models", async () => {
  const providers = createProviders({ config: {}, env: { ANTHROPIC_API_KEY: "a" } })
  const e = await rejection(providers.get("anthropic", "claude-sonet-4-5"))
  expect(ProviderModelNotFoundError.is(e)).toBe(true)
  expect(e.message).toContain("Model not found: anthropic/claude-sonet-4-5")
  expect(e.message).toContain("Did you mean: anthropic/claude-sonnet-4-5")
  expect(e.message).toContain("claude-haiku-4-5")
  expect(ProviderModelNotFoundError.is(e) && e.data.suggestions).toContain("claude-sonnet-4-5")
})

test("providers - an unknown provider lists the configured providers", async () => {
  const providers = createProviders({
    config: { provider: { local: { options: { baseURL: "http://localhost:1234/v1" }, models: { m: {} } } } },
    env: { OPENAI_API_KEY: "o" },
  })
  const e = await rejection(providers.get("antropic", "claude-sonnet-4-5"))
  expect(ProviderModelNotFoundError.is(e)).toBe(true)
  expect(e.message).toContain('Unknown provider "antropic"')
  expect(e.message).toContain("Configured providers: openai, local")
  expect(ProviderModelNotFoundError.is(e) && e.data.suggestions).toContain("anthropic")
})

test("providers - a disabled provider says why it is unavailable", async () => {
  const providers = createProviders({ config: { disabled_providers: ["openai"] }, env: { OPENAI_API_KEY: "o" } })
  const e = await rejection(providers.get("openai", "gpt-5"))
  expect(e.message).toContain("disabled_providers")
})

test("providers - parseModel splits at the first slash and rejects a string without one", () => {
  const providers = createProviders({ config: {}, env: {} })
  expect(providers.parseModel("openrouter/anthropic/claude-sonnet-4.5")).toEqual({ providerID: "openrouter", modelID: "anthropic/claude-sonnet-4.5" })
  expect(() => providers.parseModel("gpt-5")).toThrow(BadRequestError)
  expect(() => providers.parseModel("gpt-5")).toThrow(/expected "provider\/model"/)
})

test("providers - defaultModel prefers config.model, then the first active provider's best model", () => {
  expect(createProviders({ config: { model: "openai/gpt-4.1" }, env: {} }).defaultModel()).toEqual({ providerID: "openai", modelID: "gpt-4.1" })
  const anthropic = createProviders({ config: {}, env: { ANTHROPIC_API_KEY: "a" } }).defaultModel()
  expect(anthropic.providerID).toBe("anthropic")
  expect(anthropic.modelID).toMatch(/^claude-sonnet-4/)
  const openai = createProviders({ config: {}, env: { OPENAI_API_KEY: "o" } }).defaultModel()
  expect(openai.modelID).toMatch(/^gpt-5/)
  const google = createProviders({ config: {}, env: { GEMINI_API_KEY: "g" } }).defaultModel()
  expect(google.modelID).toMatch(/^gemini-3-pro/)
  // An aggregator's gpt-5 family: the flagship, not its cheapest sibling.
  expect(createProviders({ config: {}, env: { OPENROUTER_API_KEY: "r" } }).defaultModel().modelID).toBe("openai/gpt-5")
  expect(createProviders({ config: {}, env: {} }).defaultModel("google/gemini-2.5-flash").modelID).toBe("gemini-2.5-flash")
})

test("providers - defaultModel keeps to configured providers when there are any", () => {
  const providers = createProviders({
    config: { provider: { local: { options: { baseURL: "http://localhost:1234/v1" }, models: { "qwen3-coder": {}, "llama-3": {} } } } },
    env: { ANTHROPIC_API_KEY: "a" },
  })
  expect(providers.defaultModel()).toEqual({ providerID: "local", modelID: "qwen3-coder" })
})

test("providers - defaultModel with nothing configured explains how to configure", () => {
  const providers = createProviders({ config: {}, env: {} })
  expect(() => providers.defaultModel()).toThrow(/ANTHROPIC_API_KEY.*"provider"/s)
})

test("providers - smallModel picks the provider's small family, or config.small_model", () => {
  const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", GEMINI_API_KEY: "g" }
  const providers = createProviders({ config: {}, env })
  expect(providers.smallModel("anthropic")?.modelID).toMatch(/^claude-haiku-4-5/)
  expect(providers.smallModel("openai")?.modelID).toBe("gpt-5-nano")
  expect(providers.smallModel("google")?.modelID).toBe("gemini-2.5-flash")
  expect(providers.smallModel("nowhere")).toBeUndefined()
  const configured = createProviders({ config: { small_model: "openai/gpt-4o-mini" }, env })
  expect(configured.smallModel("anthropic")).toEqual({ providerID: "openai", modelID: "gpt-4o-mini" })
})

test("providers - a configured model unknown to the catalog gets defaults overridden by config", () => {
  const providers = createProviders({
    config: {
      provider: {
        local: { name: "Local", options: { baseURL: "http://localhost:1234/v1" }, models: { tiny: {}, big: { id: "big-v2", limit: { context: 32_000 }, cost: { input: 1 } } } },
        anthropic: { models: { "claude-sonnet-4-5": { limit: { output: 16_000 } } } },
      },
    },
    env: {},
  })
  const local = providers.all().find((p) => p.id === "local")!
  expect(local.npm).toBe("@ai-sdk/openai-compatible")
  expect(local.models.tiny!.limit).toEqual({ context: 128_000, output: 8_192 })
  expect(local.models.tiny!.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 })
  expect(local.models.big).toMatchObject({ apiID: "big-v2", limit: { context: 32_000, output: 8_192 }, cost: { input: 1, output: 0 } })
  const sonnet = providers.all().find((p) => p.id === "anthropic")!.models["claude-sonnet-4-5"]!
  expect(sonnet.limit).toEqual({ context: 200_000, output: 16_000 })
  expect(sonnet.cost.input).toBe(3)
})

test("providers - whitelist and blacklist trim a provider's models", () => {
  const providers = createProviders({
    config: { provider: { openai: { whitelist: ["gpt-5", "gpt-5-mini"] }, anthropic: { blacklist: ["claude-3-5-haiku-latest"] } } },
    env: {},
  })
  expect(Object.keys(providers.all().find((p) => p.id === "openai")!.models).sort()).toEqual(["gpt-5", "gpt-5-mini"])
  expect(providers.all().find((p) => p.id === "anthropic")!.models["claude-3-5-haiku-latest"]).toBeUndefined()
})

test("providers - public provider info never carries the API key or headers", () => {
  const providers = createProviders({
    config: { provider: { local: { options: { baseURL: "http://x/v1", apiKey: "secret", headers: { Authorization: "Bearer secret" } }, models: { m: {} } } } },
    env: {},
  })
  expect(JSON.stringify(providers.list())).not.toContain("secret")
})

test("providers - a local openai-compatible provider works without a key", async () => {
  server.script({ text: "local answer" })
  const providers = createProviders({
    config: { provider: { ollama: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${server.url}/v1` }, models: { "qwen3:8b": {} } } } },
    env: {},
  })
  const parts = await collect(await providers.get("ollama", "qwen3:8b"))
  expect(textOf(parts)).toBe("local answer")
  expect(server.requests.at(-1)!.body.model).toBe("qwen3:8b")
  expect(server.requests.at(-1)!.headers.authorization).toBeUndefined()
  expect(server.failures).toEqual([])
})

test("providers - a catalog provider pointed at a custom baseURL sends the env key there", async () => {
  server.script({ text: "proxied" })
  const providers = createProviders({
    config: { provider: { openai: { options: { baseURL: `${server.url}/v1` } } } },
    env: { OPENAI_API_KEY: "sk-from-env" },
  })
  const parts = await collect(await providers.get("openai", "gpt-5-mini"))
  expect(textOf(parts)).toBe("proxied")
  const req = server.requests.at(-1)!
  expect(req.path).toBe("/v1/responses")
  expect(req.headers.authorization).toBe("Bearer sk-from-env")
  expect(req.body.model).toBe("gpt-5-mini")
})

test("providers - each package is reached through its own SDK: google, openai responses, compatible chat", async () => {
  const providers = createProviders({ config: {}, env: { GEMINI_API_KEY: "g", OPENAI_API_KEY: "o", GROQ_API_KEY: "q" } })
  const identity = async (p: string, m: string) => {
    const { language } = await providers.get(p, m)
    if (typeof language === "string") throw new Error("expected a model object")
    return { provider: language.provider, modelId: language.modelId }
  }
  expect(await identity("google", "gemini-2.5-flash")).toEqual({ provider: "google.generative-ai", modelId: "gemini-2.5-flash" })
  expect(await identity("openai", "gpt-5")).toEqual({ provider: "openai.responses", modelId: "gpt-5" })
  expect(await identity("groq", "llama-3.3-70b-versatile")).toEqual({ provider: "groq.chat", modelId: "llama-3.3-70b-versatile" })
})

test("providers - config model fields beyond limits: family, release date, long-context price", () => {
  const providers = createProviders({
    config: {
      provider: {
        local: {
          options: { baseURL: "http://x/v1" },
          models: { m: { family: "gpt-nano", release_date: "2030-01-01", cost: { input: 1, output: 2, context_over_200k: { input: 2, output: 4 } } } },
        },
      },
    },
    env: {},
  })
  const m = providers.all().find((p) => p.id === "local")!.models.m!
  expect(m.cost.over200k).toEqual({ input: 2, output: 4, cacheRead: 0, cacheWrite: 0 })
  expect(providers.smallModel("local")).toEqual({ providerID: "local", modelID: "m" })
})

test("providers - an openai-compatible provider without a baseURL names the missing field", async () => {
  const providers = createProviders({ config: { provider: { mine: { models: { m: {} } } } }, env: {} })
  await expect(providers.get("mine", "m")).rejects.toThrow(/provider\.mine\.options\.baseURL is required/)
})

test("providers - a non-numeric timeout names the field", async () => {
  const providers = createProviders({
    config: { provider: { mine: { options: { baseURL: "http://x/v1", chunkTimeout: "soon" as unknown as number }, models: { m: {} } } } },
    env: {},
  })
  await expect(providers.get("mine", "m")).rejects.toThrow(/provider\.mine\.options\.chunkTimeout must be a number/)
})
