// Catalogue providers used by id with a key, each through its own package family, against the
// scripted llm-server: only `provider.<id>.options.baseURL` is set in config, so the
// catalogue's npm package, model metadata and key variable are what choose the wire.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { createProviders, type ProviderConfigInput } from "../../src/llm"
import { ProviderAuthError } from "../../src/protocol"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { collect, textOf } from "./harness"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

const at = (version = "v1"): ProviderConfigInput => ({ options: { baseURL: `${server.url}/${version}` } })

/** Each case: a catalogue provider and model, its key variable, the wire it must speak and how the key must arrive. */
const CASES = [
  { id: "deepseek", model: "deepseek-chat", env: { DEEPSEEK_API_KEY: "k-deepseek" }, path: "/v1/chat/completions", auth: ["authorization", "Bearer k-deepseek"], npm: "@ai-sdk/openai-compatible" },
  { id: "openrouter", model: "anthropic/claude-sonnet-4.5", env: { OPENROUTER_API_KEY: "k-or" }, path: "/v1/chat/completions", auth: ["authorization", "Bearer k-or"], npm: "@ai-sdk/openai-compatible" },
  // Catalogue packages wright does not bundle: reached as OpenAI-compatible at their endpoint.
  { id: "togetherai", model: "openai/gpt-oss-120b", env: { TOGETHER_API_KEY: "k-together" }, path: "/v1/chat/completions", auth: ["authorization", "Bearer k-together"], npm: "@ai-sdk/togetherai" },
  { id: "cerebras", model: "gpt-oss-120b", env: { CEREBRAS_API_KEY: "k-cerebras" }, path: "/v1/chat/completions", auth: ["authorization", "Bearer k-cerebras"], npm: "@ai-sdk/cerebras" },
  { id: "groq", model: "llama-3.3-70b-versatile", env: { GROQ_API_KEY: "k-groq" }, path: "/v1/chat/completions", auth: ["authorization", "Bearer k-groq"], npm: "@ai-sdk/groq" },
  { id: "mistral", model: "devstral-medium-latest", env: { MISTRAL_API_KEY: "k-mistral" }, path: "/v1/chat/completions", auth: ["authorization", "Bearer k-mistral"], npm: "@ai-sdk/mistral" },
  { id: "xai", model: "grok-code-fast-1", env: { XAI_API_KEY: "k-xai" }, path: "/v1/responses", auth: ["authorization", "Bearer k-xai"], npm: "@ai-sdk/xai" },
  // Azure's resource name is a setting listed before the key: it must never be sent as the key.
  { id: "azure", model: "gpt-4.1", env: { AZURE_RESOURCE_NAME: "my-resource", AZURE_API_KEY: "k-azure" }, path: "/v1/responses", auth: ["api-key", "k-azure"], npm: "@ai-sdk/azure" },
  { id: "openai", model: "gpt-5-mini", env: { OPENAI_API_KEY: "k-openai" }, path: "/v1/responses", auth: ["authorization", "Bearer k-openai"], npm: "@ai-sdk/openai" },
  { id: "anthropic", model: "claude-haiku-4-5", env: { ANTHROPIC_API_KEY: "k-anthropic" }, path: "/v1/messages", auth: ["x-api-key", "k-anthropic"], npm: "@ai-sdk/anthropic" },
] as const

test.each(CASES)("catalogue - $id ($npm) answers by id with its key through the base URL", async (c) => {
  const providers = createProviders({ config: { provider: { [c.id]: at() } }, env: c.env })
  const model = await providers.get(c.id, c.model)
  expect(model.info.npm).toBe(c.npm)
  server.script(text(`hello from ${c.id}`))
  const parts = await collect(model)
  expect(textOf(parts)).toBe(`hello from ${c.id}`)
  const [req] = server.requests
  expect(req!.path).toBe(c.path)
  expect(req!.headers[c.auth[0]]).toBe(c.auth[1])
  expect(req!.body.model).toBe(c.model)
  expect(JSON.stringify(req!.headers)).not.toContain("my-resource")
})

test("catalogue - Google Vertex (Gemini) in express mode sends the key to the generateContent wire", async () => {
  const providers = createProviders({
    config: { provider: { "google-vertex": at("v1beta") } },
    env: { GOOGLE_VERTEX_PROJECT: "my-project", GOOGLE_APPLICATION_CREDENTIALS: "/nonexistent.json" },
  })
  // A key from config (or the key store) is a Vertex express-mode API key.
  const withKey = createProviders({
    config: { provider: { "google-vertex": { options: { ...at("v1beta").options, apiKey: "k-vertex" } } } },
    env: { GOOGLE_VERTEX_PROJECT: "my-project" },
  })
  expect((await providers.get("google-vertex", "gemini-2.5-flash")).info.npm).toBe("@ai-sdk/google-vertex")
  server.script(text("hello from vertex"))
  const parts = await collect(await withKey.get("google-vertex", "gemini-2.5-flash"))
  expect(textOf(parts)).toBe("hello from vertex")
  const [req] = server.requests
  expect(req!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent")
  expect(req!.headers["x-goog-api-key"]).toBe("k-vertex")
})

test("catalogue - Amazon Bedrock signs with the access keys for the region, picks the inference profile, takes model options under its key", async () => {
  const seen: { url: string; headers: Headers; body: any }[] = []
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) })
    return new Response(JSON.stringify({ message: "scripted refusal" }), { status: 403, headers: { "content-type": "application/json" } })
  }) as typeof globalThis.fetch
  const id = "anthropic.claude-sonnet-4-20250514-v1:0"
  const providers = createProviders({
    config: { provider: { "amazon-bedrock": { models: { [id]: { options: { additionalModelRequestFields: { top_k: 5 } } } } } } },
    env: { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret", AWS_REGION: "eu-west-1" },
    fetch,
  })
  expect(providers.list().map((p) => p.id)).toContain("amazon-bedrock")
  const model = await providers.get("amazon-bedrock", id)
  const parts = await collect(model)
  expect(parts.some((p) => p.type === "error")).toBe(true)
  expect(seen).toHaveLength(1)
  expect(seen[0]!.url).toBe("https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream")
  expect(seen[0]!.headers.get("authorization")).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\/aws4_request/)
  expect(seen[0]!.body.additionalModelRequestFields).toMatchObject({ top_k: 5 })
})

test("catalogue - a provider missing its account settings says which one to set", async () => {
  const azure = createProviders({ config: {}, env: { AZURE_API_KEY: "k" } })
  const e = await azure.get("azure", "gpt-4.1").catch((err: Error) => err)
  expect(ProviderAuthError.is(e)).toBe(true)
  expect((e as Error).message).toContain("AZURE_RESOURCE_NAME")
  const bedrock = createProviders({ config: {}, env: { AWS_REGION: "us-east-1" } })
  const b = await bedrock.get("amazon-bedrock", "anthropic.claude-sonnet-4-20250514-v1:0").catch((err: Error) => err)
  expect((b as Error).message).toMatch(/AWS_ACCESS_KEY_ID|API key/)
  const vertex = createProviders({ config: {}, env: { GOOGLE_APPLICATION_CREDENTIALS: "/x.json" } })
  const v = await vertex.get("google-vertex", "gemini-2.5-flash").catch((err: Error) => err)
  expect((v as Error).message).toContain("GOOGLE_VERTEX_PROJECT")
})
