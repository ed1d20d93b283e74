import { readFileSync } from "node:fs"
import { expect, test } from "vitest"
import { catalogProviders, computeCost, createProviders, maxOutputTokens, usageToTokens, type ModelInfo } from "../../src/llm"
import { parseCatalog, serializeCatalog, snapshotFile } from "../../src/llm/catalog"
import { BUNDLED_PACKAGES, defaultBaseURL } from "../../src/llm/endpoints"

test("catalog - every snapshot provider is reachable: a bundled package or a base URL, env keys (or a sign-in), sane limits and prices", () => {
  const providers = catalogProviders()
  expect(providers.length).toBeGreaterThanOrEqual(40)
  for (const provider of providers) {
    const npm = provider.npm ?? "@ai-sdk/openai-compatible"
    const reachable = (BUNDLED_PACKAGES as readonly string[]).includes(npm) && npm !== "@ai-sdk/openai-compatible"
    if (!reachable) expect(provider.api ?? defaultBaseURL(npm), `${provider.id} (${npm}) has no endpoint`).toMatch(/^https?:\/\//)
    // GitHub Copilot is reached by signing in (wright auth login github-copilot), never with a variable.
    if (provider.id === "github-copilot") expect(provider.env).toEqual([])
    else expect(provider.env.length, provider.id).toBeGreaterThan(0)
    for (const [key, m] of Object.entries(provider.models)) {
      const where = `${provider.id}/${key}`
      expect(m.id, where).toBe(key)
      expect(m.limit.output, where).toBeGreaterThanOrEqual(0)
      expect(m.cost?.input ?? 0, where).toBeGreaterThanOrEqual(0)
    }
  }
})

test("catalog - the file form round-trips, and a provider's models are parsed only when read", () => {
  const text = readFileSync(snapshotFile(), "utf8")
  const parsed = parseCatalog(text)
  expect(JSON.parse(JSON.stringify(parsed))).toEqual(JSON.parse(text))
  expect(serializeCatalog(parsed)).toBe(text)
  const anthropic = Object.getOwnPropertyDescriptor(parsed.anthropic, "models")
  expect(typeof anthropic?.get).toBe("function")
  expect(parsed.anthropic!.models["claude-sonnet-4-5"]?.limit.context).toBe(200_000)
  // Any other JSON (an api.json saved by hand) is read whole.
  expect(parseCatalog(JSON.stringify({ a: { id: "a", name: "A", env: [], models: {} } }))).toEqual({ a: { id: "a", name: "A", env: [], models: {} } })
})

test("catalog - covers the common current models", () => {
  const all = createProviders({ config: {}, env: {} }).all()
  const has = (p: string, m: string) => all.find((x) => x.id === p)?.models[m] !== undefined
  for (const m of ["claude-opus-4-1", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-3-7-sonnet-latest", "claude-3-5-sonnet-latest"]) expect(has("anthropic", m), m).toBe(true)
  for (const m of ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini", "gpt-5-codex"]) expect(has("openai", m), m).toBe(true)
  for (const m of ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-3-pro-preview"]) expect(has("google", m), m).toBe(true)
  const npm = (p: string) => all.find((x) => x.id === p)?.npm
  for (const p of ["openrouter", "deepseek", "togetherai", "cerebras"]) expect([p, npm(p)]).toEqual([p, expect.stringMatching(/^@ai-sdk\/(openai-compatible|togetherai|cerebras)$/)])
  expect(["groq", "mistral", "xai", "azure", "amazon-bedrock", "google-vertex"].map(npm)).toEqual(["@ai-sdk/groq", "@ai-sdk/mistral", "@ai-sdk/xai", "@ai-sdk/azure", "@ai-sdk/amazon-bedrock", "@ai-sdk/google-vertex"])
})

function model(over: Partial<ModelInfo> = {}): ModelInfo {
  return {
    providerID: "p",
    id: "m",
    apiID: "m",
    name: "m",
    npm: "@ai-sdk/openai-compatible",
    limit: { context: 200_000, output: 64_000 },
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    capabilities: { toolCall: true, reasoning: false, attachment: false, temperature: true },
    options: {},
    headers: {},
    variants: {},
    ...over,
  }
}

test("computeCost - bills each token kind at its rate per million, reasoning as output", () => {
  const cost = computeCost(model(), { input: 1_000_000, output: 100_000, reasoning: 100_000, cacheRead: 1_000_000, cacheWrite: 100_000 })
  expect(cost).toBeCloseTo(3 + 15 * 0.2 + 0.3 + 0.375, 10)
  expect(computeCost(model(), { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 })).toBe(0)
})

test("computeCost - long-context rates apply past 200K prompt tokens", () => {
  const gemini = model({ cost: { input: 1.25, output: 10, cacheRead: 0, cacheWrite: 0, over200k: { input: 2.5, output: 15, cacheRead: 0, cacheWrite: 0 } } })
  expect(computeCost(gemini, { input: 100_000, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 })).toBeCloseTo(0.125, 10)
  expect(computeCost(gemini, { input: 300_000, output: 10_000, reasoning: 0, cacheRead: 0, cacheWrite: 0 })).toBeCloseTo(0.75 + 0.15, 10)
})

test("maxOutputTokens - the model's output limit, capped at 32000", () => {
  expect(maxOutputTokens(model({ limit: { context: 128_000, output: 8_192 } }))).toBe(8_192)
  expect(maxOutputTokens(model({ limit: { context: 200_000, output: 64_000 } }))).toBe(32_000)
  expect(maxOutputTokens(model({ limit: { context: 128_000, output: 0 } }))).toBe(32_000)
})

test("usageToTokens - splits cache out of input and reasoning out of output", () => {
  const tokens = usageToTokens({
    inputTokens: 1200,
    inputTokenDetails: { noCacheTokens: 150, cacheReadTokens: 1000, cacheWriteTokens: 50 },
    outputTokens: 40,
    outputTokenDetails: { textTokens: 30, reasoningTokens: 10 },
    totalTokens: 1240,
  })
  expect(tokens).toEqual({ input: 150, output: 30, reasoning: 10, cacheRead: 1000, cacheWrite: 50 })
  const sparse = usageToTokens({
    inputTokens: 100,
    inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 60, cacheWriteTokens: undefined },
    outputTokens: 9,
    outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
    totalTokens: 109,
  })
  expect(sparse).toEqual({ input: 40, output: 9, reasoning: 0, cacheRead: 60, cacheWrite: 0 })
})
