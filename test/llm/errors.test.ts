import { APICallError } from "ai"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { classifyError, createProviders } from "../../src/llm"
import { ProviderAuthError } from "../../src/protocol"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { collect, errorOf, PROTOCOLS, resolveFake } from "./harness"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

async function failure(npm: string, reply: Parameters<LLMServer["script"]>[0], options: Record<string, unknown> = {}) {
  server.script(reply)
  const parts = await collect(await resolveFake(server, npm, options))
  expect(parts.some((p) => p.type === "finish")).toBe(false)
  return classifyError(errorOf(parts), "fake")
}

describe.each(PROTOCOLS)("$label", ({ npm, options }) => {
  test("classifyError - HTTP 401 is a ProviderAuthError", async () => {
    const e = await failure(npm, { error: { status: 401 } }, options)
    expect(e.name).toBe("ProviderAuthError")
    expect(e.name === "ProviderAuthError" && e.data.providerID).toBe("fake")
  })

  test("classifyError - HTTP 429 is retryable and keeps retry-after", async () => {
    const e = await failure(npm, { error: { status: 429, headers: { "retry-after": "7" } } }, options)
    expect(e).toMatchObject({ name: "APIError", data: { statusCode: 429, isRetryable: true } })
    expect(e.name === "APIError" && e.data.responseHeaders?.["retry-after"]).toBe("7")
  })

  test("classifyError - HTTP 500 is retryable", async () => {
    const e = await failure(npm, { error: { status: 500 } }, options)
    expect(e).toMatchObject({ name: "APIError", data: { statusCode: 500, isRetryable: true } })
  })

  test("classifyError - a stream cut mid-answer is retryable", async () => {
    const e = await failure(npm, { text: ["a ", "long ", "answer ", "that ", "never ", "ends"], cutAfter: 4 }, options)
    expect(e).toMatchObject({ name: "APIError", data: { isRetryable: true } })
  })

  test("classifyError - no response headers within headerTimeout is a retryable header timeout", async () => {
    const e = await failure(npm, { hang: "before-headers" }, { ...options, headerTimeout: 200 })
    expect(e).toMatchObject({ name: "APIError", data: { isRetryable: true } })
    expect(e.data.message).toContain("header timeout")
    await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(0)
  })

  test("classifyError - a stream silent for chunkTimeout is a retryable chunk timeout", async () => {
    const e = await failure(npm, { text: ["a ", "long ", "answer ", "that ", "stalls"], hang: 4 }, { ...options, chunkTimeout: 200 })
    expect(e).toMatchObject({ name: "APIError", data: { isRetryable: true } })
    expect(e.data.message).toContain("chunk timeout")
    await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(0)
  })
})

test("classifyError - a request over its total timeout is a retryable timeout", async () => {
  const e = await failure("@ai-sdk/openai-compatible", { text: ["a", "b", "c", "d", "e", "f"], delayMs: 100 }, { timeout: 250 })
  expect(e).toMatchObject({ name: "APIError", data: { isRetryable: true } })
  expect(e.data.message).toContain("total timeout")
})

test("classifyError - HTTP 400 context_length_exceeded is a ContextOverflowError", async () => {
  const body = { error: { message: "This model's maximum context length is 8192 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } }
  const e = await failure("@ai-sdk/openai-compatible", { error: { status: 400, body } })
  expect(e.name).toBe("ContextOverflowError")
  expect(e.name === "ContextOverflowError" && e.data.responseBody).toContain("context_length_exceeded")
})

test("classifyError - Anthropic's 'prompt is too long' is a ContextOverflowError", async () => {
  const body = { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } }
  const e = await failure("@ai-sdk/anthropic", { error: { status: 400, body } })
  expect(e.name).toBe("ContextOverflowError")
})

test("classifyError - Gemini's 'input token count exceeds the maximum' is a ContextOverflowError", async () => {
  const message = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  const e = await failure("@ai-sdk/google", { error: { status: 400, body: { error: { code: 400, message, status: "INVALID_ARGUMENT" } } } })
  expect(e.name).toBe("ContextOverflowError")
})

test("classifyError - Gemini's rejected API key (HTTP 400, API_KEY_INVALID) is a ProviderAuthError", async () => {
  const body = {
    error: {
      code: 400,
      message: "API key not valid. Please pass a valid API key.",
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }],
    },
  }
  const e = await failure("@ai-sdk/google", { error: { status: 400, body } })
  expect(e.name).toBe("ProviderAuthError")
  expect(e.data.message).toContain("API key not valid")
})

test("classifyError - Gemini's 429 RESOURCE_EXHAUSTED is retryable", async () => {
  const body = { error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } }
  const e = await failure("@ai-sdk/google", { error: { status: 429, body } })
  expect(e).toMatchObject({ name: "APIError", data: { statusCode: 429, isRetryable: true } })
})

test("classifyError - HTTP 413 is a ContextOverflowError", async () => {
  const e = await failure("@ai-sdk/openai-compatible", { error: { status: 413, body: "Request Entity Too Large" } })
  expect(e.name).toBe("ContextOverflowError")
})

test("classifyError - a plain HTTP 400 is not retryable and carries the provider's message", async () => {
  const body = { error: { message: "Invalid value for 'tools'", type: "invalid_request_error" } }
  const e = await failure("@ai-sdk/openai-compatible", { error: { status: 400, body } })
  expect(e).toMatchObject({ name: "APIError", data: { statusCode: 400, isRetryable: false } })
  expect(e.data.message).toContain("Invalid value for 'tools'")
})

test("classifyError - x-should-retry: false overrides a 5xx", async () => {
  const e = await failure("@ai-sdk/openai-compatible", { error: { status: 503, headers: { "x-should-retry": "false" } } })
  expect(e).toMatchObject({ name: "APIError", data: { statusCode: 503, isRetryable: false } })
})

test("classifyError - an unreachable endpoint is retryable", async () => {
  const providers = createProviders({
    config: { provider: { down: { options: { baseURL: "http://127.0.0.1:1/v1" }, models: { m: {} } } } },
    env: {},
  })
  const parts = await collect(await providers.get("down", "m"))
  expect(classifyError(errorOf(parts), "down")).toMatchObject({ name: "APIError", data: { isRetryable: true } })
})

test("classifyError - stream error payloads: overload retryable, quota final, overflow by code", () => {
  const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
  expect(classifyError(overloaded, "anthropic")).toMatchObject({ name: "APIError", data: { isRetryable: true, message: "Overloaded" } })
  const quota = { type: "error", code: "insufficient_quota", message: "You exceeded your current quota" }
  expect(classifyError(quota, "openai")).toMatchObject({ name: "APIError", data: { isRetryable: false } })
  const overflow = { type: "response.failed", response: { error: { code: "context_length_exceeded", message: "Your input exceeds the context window of this model." } } }
  expect(classifyError(overflow, "openai").name).toBe("ContextOverflowError")
  const auth = { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }
  expect(classifyError(auth, "anthropic").name).toBe("ProviderAuthError")
})

test("classifyError - aborts, network errors, named errors and the rest", () => {
  expect(classifyError(new DOMException("This operation was aborted", "AbortError"), "x").name).toBe("MessageAbortedError")
  const reset = new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) })
  expect(classifyError(reset, "x")).toMatchObject({ name: "APIError", data: { isRetryable: true } })
  expect(classifyError(new Error("socket hang up"), "x")).toMatchObject({ name: "APIError", data: { isRetryable: true } })
  const auth = new ProviderAuthError({ providerID: "anthropic", message: "No API key" })
  expect(classifyError(auth, "anthropic")).toEqual({ name: "ProviderAuthError", data: { providerID: "anthropic", message: "No API key" } })
  expect(classifyError(new Error("something odd"), "x")).toEqual({ name: "UnknownError", data: { message: "something odd" } })
})

test("classifyError - a 401 names the env variable that holds the key", () => {
  const e = new APICallError({ message: "invalid x-api-key", url: "https://api.anthropic.com/v1/messages", requestBodyValues: {}, statusCode: 401 })
  const out = classifyError(e, "anthropic")
  expect(out.name).toBe("ProviderAuthError")
  expect(out.data.message).toContain("ANTHROPIC_API_KEY")
})

test("classifyError - OpenAI's 404 counts as retryable, other providers' does not", () => {
  const e = new APICallError({ message: "Not Found", url: "u", requestBodyValues: {}, statusCode: 404, isRetryable: false })
  expect(classifyError(e, "openai")).toMatchObject({ name: "APIError", data: { isRetryable: true } })
  expect(classifyError(e, "anthropic")).toMatchObject({ name: "APIError", data: { isRetryable: false } })
})
