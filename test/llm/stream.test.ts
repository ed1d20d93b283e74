import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { stream } from "../../src/llm"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { collect, PROTOCOLS, resolveFake, textOf } from "./harness"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

describe.each(PROTOCOLS)("$label", ({ npm, options, path }) => {
  test("stream - streams text and ends the step with finish reason stop", async () => {
    server.script({ text: "Hello there, friend.", usage: { input: 120, output: 8 } })
    const parts = await collect(await resolveFake(server, npm, options))
    expect(server.requests[0]!.path).toBe(path)
    expect(textOf(parts)).toBe("Hello there, friend.")
    const step = parts.find((p) => p.type === "finish-step")
    expect(step?.type === "finish-step" && step.finishReason).toBe("stop")
    expect(step?.type === "finish-step" && step.usage.inputTokens).toBe(120)
  })

  test("stream - a tool call ends the step with finish reason tool-calls and is not executed", async () => {
    server.script({ text: "Let me look.", toolCalls: [{ name: "read", input: { filePath: "a.ts" } }] })
    const parts = await collect(await resolveFake(server, npm, options))
    const calls = parts.filter((p) => p.type === "tool-call")
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ toolName: "read", input: { filePath: "a.ts" } })
    expect(parts.some((p) => (p.type as string) === "tool-result" || (p.type as string) === "tool-error")).toBe(false)
    const step = parts.find((p) => p.type === "finish-step")
    expect(step?.type === "finish-step" && step.finishReason).toBe("tool-calls")
    expect(server.requests).toHaveLength(1)
  })

  test("stream - an unknown tool name is rerouted to the invalid tool with the reason", async () => {
    server.script({ toolCalls: [{ name: "delete_everything", input: { path: "/" } }] })
    const parts = await collect(await resolveFake(server, npm, options))
    const call = parts.find((p) => p.type === "tool-call")
    expect(call).toMatchObject({ toolName: "invalid", input: { tool: "delete_everything" } })
    expect(call?.type === "tool-call" && (call.input as { error: string }).error).toContain("delete_everything")
    expect(parts.some((p) => (p.type as string) === "tool-error")).toBe(false)
  })
})

test("stream - a tool name that differs only in case is lowercased", async () => {
  server.script({ toolCalls: [{ name: "Read", input: { filePath: "b.ts" } }] })
  const parts = await collect(await resolveFake(server, "@ai-sdk/openai-compatible"))
  expect(parts.find((p) => p.type === "tool-call")).toMatchObject({ toolName: "read", input: { filePath: "b.ts" } })
})

test("stream - malformed tool arguments are rerouted to the invalid tool", async () => {
  server.script({ toolCalls: [{ name: "read", raw: '{"filePath": ' }] })
  const parts = await collect(await resolveFake(server, "@ai-sdk/anthropic"))
  const call = parts.find((p) => p.type === "tool-call")
  expect(call).toMatchObject({ toolName: "invalid", input: { tool: "read" } })
  expect(call?.type === "tool-call" && (call.input as { error: string }).error).toMatch(/JSON/)
})

test("stream - the invalid tool is never offered to the model", async () => {
  server.script({ text: "ok" })
  const invalid = { description: "internal", inputSchema: { type: "object", properties: {} } }
  await collect(await resolveFake(server, "@ai-sdk/openai-compatible"), {
    tools: { read: { description: "Read a file", inputSchema: { type: "object", properties: {} } }, invalid },
  })
  const names = server.requests[0]!.body.tools.map((t: any) => t.function.name)
  expect(names).toEqual(["read"])
})

test("stream - openai-compatible asks for usage, sends system prompts, identifies wright", async () => {
  server.script({ text: "ok" })
  await collect(await resolveFake(server, "@ai-sdk/openai-compatible"), { system: ["First.", "", "Second."] })
  const req = server.requests[0]!
  expect(req.body.stream_options).toEqual({ include_usage: true })
  expect(req.body.messages.filter((m: any) => m.role === "system").map((m: any) => m.content)).toEqual(["First.", "Second."])
  expect(req.headers["user-agent"]).toMatch(/^wright\/\S+/)
  expect(req.headers.authorization).toBe("Bearer test-key")
})

test("stream - anthropic gets max_tokens from the model's output limit, capped at 32000", async () => {
  server.script({ text: "ok" }, { text: "ok" })
  const model = await resolveFake(server, "@ai-sdk/anthropic")
  await collect(model)
  expect(server.requests[0]!.body.max_tokens).toBe(4_000)
  await collect({ ...model, info: { ...model.info, limit: { context: 200_000, output: 64_000 } } })
  expect(server.requests[1]!.body.max_tokens).toBe(32_000)
})

test("stream - temperature is sent only to models that accept it", async () => {
  server.script({ text: "ok" }, { text: "ok" })
  const model = await resolveFake(server, "@ai-sdk/openai-compatible")
  await collect(model, { temperature: 0.3 })
  expect(server.requests[0]!.body.temperature).toBe(0.3)
  const fixed = { ...model, info: { ...model.info, capabilities: { ...model.info.capabilities, temperature: false } } }
  await collect(fixed, { temperature: 0.3 })
  expect(server.requests[1]!.body.temperature).toBeUndefined()
})

test("stream - config headers and model options reach the request", async () => {
  server.script({ text: "ok" })
  const model = await resolveFake(server, "@ai-sdk/openai-compatible", { headers: { "X-Team": "core" } })
  const withOptions = { ...model, info: { ...model.info, options: { reasoningEffort: "low" } } }
  await collect(withOptions, { headers: { "X-Request": "1" } })
  const req = server.requests[0]!
  expect(req.headers["x-team"]).toBe("core")
  expect(req.headers["x-request"]).toBe("1")
  expect(req.body.reasoning_effort).toBe("low")
})

test("stream - an abort mid-stream ends with an abort part and releases the connection", async () => {
  server.script({ text: "never finished", hang: 3 })
  const abort = new AbortController()
  const model = await resolveFake(server, "@ai-sdk/openai-compatible")
  const seen: string[] = []
  for await (const part of stream({ model, system: [], messages: [{ role: "user", content: "hi" }], tools: {}, abort: abort.signal })) {
    seen.push(part.type)
    if (part.type === "text-delta") abort.abort()
  }
  expect(seen).toContain("abort")
  expect(seen).not.toContain("finish")
  await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(0)
})

test("stream - google: thought parts arrive as reasoning before the text, thinking tokens count as output", async () => {
  server.script({ reasoning: ["Check ", "the file."], text: "It is fine.", usage: { input: 50, output: 20, reasoning: 12, cacheRead: 30 } })
  const parts = await collect(await resolveFake(server, "@ai-sdk/google"))
  const reasoning = parts.map((p) => (p.type === "reasoning-delta" ? p.delta : "")).join("")
  expect(reasoning).toBe("Check the file.")
  expect(parts.findIndex((p) => p.type === "reasoning-delta")).toBeLessThan(parts.findIndex((p) => p.type === "text-delta"))
  expect(textOf(parts)).toBe("It is fine.")
  const step = parts.find((p) => p.type === "finish-step")
  expect(step?.type === "finish-step" && step.usage).toMatchObject({ inputTokens: 50, outputTokens: 20, reasoningTokens: 12, cachedInputTokens: 30 })
})

test("stream - google: agent options land under the google key and reach generationConfig", async () => {
  server.script({ text: "ok" })
  const thinkingConfig = { thinkingBudget: 1024, includeThoughts: true }
  await collect(await resolveFake(server, "@ai-sdk/google"), { modelOptions: { thinkingConfig } })
  const body = server.requests[0]!.body
  expect(body.generationConfig.thinkingConfig).toEqual(thinkingConfig)
  expect(body.generationConfig.maxOutputTokens).toBe(4_000)
  expect(body.systemInstruction).toEqual({ parts: [{ text: "You are a test." }] })
  expect(body.tools[0].functionDeclarations.map((d: { name: string }) => d.name)).toEqual(["read"])
})
