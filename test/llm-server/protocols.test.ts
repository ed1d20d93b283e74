import { APICallError, generateText, stepCountIs, tool } from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest"
import { startLLMServer, text, toolCall, toolCalls, type LLMServer } from "../lib/llm-server"
import { clients, collect, ofType, weatherTool } from "./clients"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

describe.each(clients)("$name", (client) => {
  test("llm-server - text streams in several deltas and usage reaches finish-step", async () => {
    const usage = { input: 120, output: 30, reasoning: 7, cacheRead: 100, cacheWrite: 8 }
    server.script(text("Hello there, world of wire tests.", { usage }))
    const { parts, thrown } = await collect(client, server.url)

    expect(thrown).toBeUndefined()
    const deltas = ofType(parts, "text-delta").map((p) => p.text)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join("")).toBe("Hello there, world of wire tests.")
    const [step] = ofType(parts, "finish-step")
    expect(step.finishReason).toBe("stop")
    expect(step.usage.inputTokens).toBe(120)
    expect(step.usage.outputTokens).toBe(30)
    expect(step.usage.inputTokenDetails.cacheReadTokens).toBe(100)
    expect(step.usage.outputTokenDetails.reasoningTokens).toBe(7)
    expect(step.usage.inputTokenDetails.cacheWriteTokens).toBe(client.parsesCacheWrite ? 8 : undefined)
    expect(ofType(parts, "error")).toEqual([])
    expect(server.failures).toEqual([])
  })

  test("llm-server - a tool call with arguments split over chunks arrives parsed", async () => {
    server.script(toolCall("get_weather", { city: "Paris", days: 3 }, { text: "Let me check." }))
    const { parts, thrown } = await collect(client, server.url, { tools: { get_weather: weatherTool } })

    expect(thrown).toBeUndefined()
    const deltas = ofType(parts, "tool-input-delta").map((p) => p.delta)
    if (client.streamsToolArgs) expect(deltas.length).toBeGreaterThan(1)
    else expect(deltas).toEqual(['{"city":"Paris","days":3}'])
    const [call] = ofType(parts, "tool-call")
    expect(call.toolName).toBe("get_weather")
    expect(call.input).toEqual({ city: "Paris", days: 3 })
    expect(ofType(parts, "text-delta").map((p) => p.text).join("")).toBe("Let me check.")
    expect(ofType(parts, "finish-step")[0].finishReason).toBe("tool-calls")
  })

  test("llm-server - parallel tool calls get distinct generated ids", async () => {
    server.script(toolCalls([{ name: "get_weather", input: { city: "Oslo" } }, { name: "get_weather", input: { city: "Rome" } }]))
    const { parts } = await collect(client, server.url, { tools: { get_weather: weatherTool } })

    const calls = ofType(parts, "tool-call")
    expect(calls.map((c) => c.input)).toEqual([{ city: "Oslo" }, { city: "Rome" }])
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(2)
  })

  test("llm-server - finish reasons map to what the SDK reports", async () => {
    for (const finish of ["length", "content-filter"] as const) {
      server.script(text("cut short", { finish }))
      const { parts } = await collect(client, server.url)
      expect(ofType(parts, "finish-step")[0].finishReason).toBe(finish)
    }
  })

  test("llm-server - an HTTP 429 with retry-after surfaces as an error part", async () => {
    server.script({ error: { status: 429, headers: { "retry-after": "1" } } })
    const { parts, thrown } = await collect(client, server.url)

    expect(thrown).toBeUndefined()
    const [part] = ofType(parts, "error")
    expect(APICallError.isInstance(part.error)).toBe(true)
    const error = part.error as APICallError
    expect(error.statusCode).toBe(429)
    expect(error.isRetryable).toBe(true)
    expect(error.responseHeaders?.["retry-after"]).toBe("1")
    expect(server.requests).toHaveLength(1)
  })

  test("llm-server - a stream cut mid-way ends in an error, not a clean finish", async () => {
    server.script({ text: ["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight"], cutAfter: 4 })
    const { parts, thrown } = await collect(client, server.url)

    // ai 6 throws from `fullStream` here rather than emitting an `error` part.
    const error = thrown ?? ofType(parts, "error")[0]?.error
    expect(APICallError.isInstance(error)).toBe(true)
    expect(String((error as APICallError).cause)).toContain("terminated")
    expect(ofType(parts, "finish")).toEqual([])
    expect(ofType(parts, "finish-step")).toEqual([])
  })

  test("llm-server - a hang after headers is aborted by the client and the connection is released", async () => {
    server.script({ hang: "after-headers" })
    const abort = new AbortController()
    const running = collect(client, server.url, { abortSignal: abort.signal })
    await vi.waitFor(() => expect(server.inFlight()).toBe(1), { interval: 5, timeout: 10_000 })
    abort.abort()
    const { parts, thrown } = await running

    expect(thrown).toBeUndefined()
    expect(parts.map((p) => p.type)).toEqual(["start", "abort"])
    await vi.waitFor(() => expect(server.inFlight()).toBe(0), { interval: 5, timeout: 10_000 })
  })

  test("llm-server - a hang after N events delivers those events, then waits for the abort", async () => {
    server.script(text("alpha beta gamma delta", { hang: 3 }))
    const abort = new AbortController()
    const { parts } = await collect(client, server.url, { abortSignal: abort.signal }, (part) => {
      if (part.type === "text-start") abort.abort()
    })

    expect(parts.map((p) => p.type)).toContain("text-start")
    expect(parts.at(-1)?.type).toBe("abort")
    await vi.waitFor(() => expect(server.inFlight()).toBe(0), { interval: 5, timeout: 10_000 })
  })

  test("llm-server - strict mode answers an unscripted request with 500 and records it", async () => {
    const { parts } = await collect(client, server.url)

    expect((ofType(parts, "error")[0].error as APICallError).statusCode).toBe(500)
    expect(server.failures).toHaveLength(1)
    expect(server.failures[0]).toContain(`unscripted request #1 (${client.protocol}`)
  })

  test("llm-server - requests record the parsed body, including turn 2's tool result", async () => {
    server.script(toolCall("get_weather", { city: "Paris" }, { text: "Checking." }), text("Sunny."))
    const executed = tool({ ...weatherTool, execute: async ({ city }) => ({ city, sky: "sunny" }) })
    const { parts, thrown } = await collect(client, server.url, { tools: { get_weather: executed }, stopWhen: stepCountIs(2) })

    expect(thrown).toBeUndefined()
    expect(ofType(parts, "finish-step").map((s) => s.finishReason)).toEqual(["tool-calls", "stop"])
    expect(server.requests.map((r) => [r.protocol, r.stream])).toEqual([
      [client.protocol, true],
      [client.protocol, true],
    ])
    const callId = ofType(parts, "tool-call")[0].toolCallId
    expect(toolResult(server.requests[1].body, client.protocol)).toEqual({ id: callId, output: '{"city":"Paris","sky":"sunny"}' })
    expect(server.pending()).toBe(0)
    const headers = server.requests[0].headers
    if (client.protocol === "anthropic") expect([headers["x-api-key"], headers["anthropic-version"]]).toEqual(["test", "2023-06-01"])
    else if (client.protocol === "google") expect(headers["x-goog-api-key"]).toBe("test")
    else expect(headers.authorization).toBe("Bearer test")
  })

  test("llm-server - a non-streaming call gets text, tool calls and usage as JSON", async () => {
    server.script(toolCall("get_weather", { city: "Lima" }, { reasoning: "Hmm.", text: "Looking.", usage: { input: 40, output: 9 } }))
    const result = await generateText({
      model: client.model(server.url),
      prompt: "hi",
      maxRetries: 0,
      tools: { get_weather: weatherTool },
      ...client.settings,
    })

    expect(server.requests[0].stream).toBe(false)
    expect(result.text).toBe("Looking.")
    expect(result.reasoningText).toBe(client.parsesReasoning ? "Hmm." : undefined)
    expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Lima" }])
    expect(result.finishReason).toBe("tool-calls")
    expect(result.usage.inputTokens).toBe(40)
    expect(result.usage.outputTokens).toBe(9)
  })
})

// OpenAI's own chat models never stream reasoning, so @ai-sdk/openai's `.chat()` ignores it.
describe.each(clients.filter((c) => c.parsesReasoning))("$name", (client) => {
  test("llm-server - reasoning arrives as reasoning-delta before the text", async () => {
    server.script({ reasoning: ["Let me ", "think."], text: "Done." })
    const { parts } = await collect(client, server.url)

    const reasoning = ofType(parts, "reasoning-delta").map((p) => p.text)
    expect(reasoning.join("")).toBe("Let me think.")
    const firstReasoning = parts.findIndex((p) => p.type === "reasoning-delta")
    const firstText = parts.findIndex((p) => p.type === "text-delta")
    expect(firstReasoning).toBeLessThan(firstText)
  })
})

describe("google", () => {
  const gemini = clients.find((c) => c.protocol === "google")!

  test("llm-server - google: the request carries system, contents, function declarations and settings", async () => {
    server.script(text("ok"))
    await collect(gemini, server.url, { system: "Be brief.", tools: { get_weather: weatherTool }, maxOutputTokens: 321, temperature: 0.2 })

    const req = server.requests[0]
    expect(req.path).toBe("/v1beta/models/gemini-mock:streamGenerateContent")
    expect(req.body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] })
    expect(req.body.contents).toEqual([{ role: "user", parts: [{ text: "hi" }] }])
    const [declaration] = req.body.tools[0].functionDeclarations
    expect(declaration.name).toBe("get_weather")
    expect(declaration.parameters.required).toEqual(["city"])
    expect(req.body.generationConfig).toMatchObject({ maxOutputTokens: 321, temperature: 0.2 })
  })

  test("llm-server - google: thinking options reach generationConfig.thinkingConfig", async () => {
    server.script(text("ok"))
    const thinkingConfig = { thinkingBudget: 2048, includeThoughts: true }
    await collect(gemini, server.url, { providerOptions: { google: { thinkingConfig } } })

    expect(server.requests[0].body.generationConfig.thinkingConfig).toEqual(thinkingConfig)
  })

  test("llm-server - google: the first call's thought signature is sent back with it in turn 2", async () => {
    server.script(toolCalls([{ name: "get_weather", input: { city: "Oslo" } }, { name: "get_weather", input: { city: "Rome" } }]), text("Both sunny."))
    const executed = tool({ ...weatherTool, execute: async ({ city }) => ({ city }) })
    const { parts } = await collect(gemini, server.url, { tools: { get_weather: executed }, stopWhen: stepCountIs(2) })

    const [first, second] = ofType(parts, "tool-call")
    const signature = (first.providerMetadata?.google as { thoughtSignature?: string } | undefined)?.thoughtSignature
    expect(signature).toMatch(/^[A-Za-z0-9+/]+=*$/)
    expect(second.providerMetadata).toBeUndefined()
    const model = server.requests[1].body.contents.find((c: any) => c.role === "model")
    const calls = model.parts.filter((p: any) => p.functionCall)
    expect(calls.map((p: any) => [p.functionCall.args.city, p.thoughtSignature])).toEqual([
      ["Oslo", signature],
      ["Rome", undefined],
    ])
  })

  test("llm-server - google: a scripted call id is sent, and comes back on the function response", async () => {
    server.script({ toolCalls: [{ id: "fc-lima", name: "get_weather", input: { city: "Lima" } }] }, text("Done."))
    const executed = tool({ ...weatherTool, execute: async () => "mild" })
    const { parts } = await collect(gemini, server.url, { tools: { get_weather: executed }, stopWhen: stepCountIs(2) })

    expect(ofType(parts, "tool-call")[0].toolCallId).toBe("fc-lima")
    expect(toolResult(server.requests[1].body, "google")?.id).toBe("fc-lima")
  })

  test("llm-server - google: malformed raw arguments arrive as an invalid tool call", async () => {
    server.script({ toolCalls: [{ name: "get_weather", raw: '{"city": "Par' }] })
    const { parts } = await collect(gemini, server.url, { tools: { get_weather: weatherTool } })

    const [call] = ofType(parts, "tool-call")
    expect(call.input).toBe('{"city": "Par')
    expect(call.invalid).toBe(true)
  })

  test("llm-server - google: an HTTP error has Gemini's shape, which the SDK's message comes from", async () => {
    server.script({ error: { status: 503 } })
    const { parts } = await collect(gemini, server.url)

    const error = ofType(parts, "error")[0].error as APICallError
    expect(error.statusCode).toBe(503)
    expect(error.message).toBe("llm-server: scripted HTTP 503")
    expect(error.data).toEqual({ error: { code: 503, message: "llm-server: scripted HTTP 503", status: "UNAVAILABLE" } })
  })

  test("llm-server - google: a background request is answered on the side in Gemini's wire", async () => {
    server.script(text("the conversation's turn"))
    const { parts } = await collect(gemini, server.url, { headers: { "x-wright-request": "title" } })

    expect(ofType(parts, "text-delta").map((p) => p.text).join("")).toBe("Scripted title")
    expect(server.side.map((r) => [r.protocol, r.stream])).toEqual([["google", true]])
    expect([server.requests.length, server.pending()]).toEqual([0, 1])
    server.reset()
  })

  test("llm-server - google: a streaming request without alt=sse is refused and recorded", async () => {
    const res = await fetch(`${server.url}/v1beta/models/gemini-mock:streamGenerateContent`, { method: "POST", body: "{}" })

    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error.status).toBe("INVALID_ARGUMENT")
    expect(server.failures).toHaveLength(1)
    expect(server.failures[0]).toContain("without ?alt=sse")
    server.reset()
  })
})

/** Finds the tool result a provider sent back in turn 2, whatever the protocol's shape. */
function toolResult(body: any, protocol: string): { id: string; output: unknown } | undefined {
  if (protocol === "openai-chat") {
    const m = body.messages.find((x: any) => x.role === "tool")
    return m && { id: m.tool_call_id, output: m.content }
  }
  if (protocol === "openai-responses") {
    const item = body.input.find((x: any) => x.type === "function_call_output")
    return item && { id: item.call_id, output: item.output }
  }
  if (protocol === "google") {
    const part = body.contents.flatMap((c: any) => c.parts).find((p: any) => p.functionResponse)
    // Gemini takes the result as an object: `response.content` holds the tool's JSON output.
    return part && { id: part.functionResponse.id, output: JSON.stringify(part.functionResponse.response.content) }
  }
  for (const m of body.messages) {
    const block = Array.isArray(m.content) && m.content.find((b: any) => b.type === "tool_result")
    if (block) return { id: block.tool_use_id, output: block.content }
  }
  return undefined
}
