import { APICallError, generateText } from "ai"
import { afterAll, beforeAll, beforeEach, expect, test, vi } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer, type Reply } from "../lib/llm-server"
import { clients, collect, ofType, weatherTool } from "./clients"

const compatible = clients[0]
let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

test("llm-server - a failing expect answers 500 and is recorded in failures", async () => {
  server.script(
    text("seen", { expect: (req) => expect(req.body.messages.at(-1).content).toBe("hi") }),
    text("never", { expect: (req) => expect(req.body.model).toBe("another-model") }),
  )
  const first = await collect(compatible, server.url)
  const second = await collect(compatible, server.url)

  expect(ofType(first.parts, "text-delta").map((p) => p.text).join("")).toBe("seen")
  expect((ofType(second.parts, "error")[0].error as APICallError).statusCode).toBe(500)
  expect(server.failures).toHaveLength(1)
  expect(server.failures[0]).toMatch(/^llm-server: expect failed for request #2 \(openai-chat \/v1\/chat\/completions\): .*another-model/)
})

test("llm-server - script() rejects a malformed reply naming the field, and queues none of the batch", () => {
  const bad: [unknown, RegExp][] = [
    [{ txt: "hi" }, /'txt' is not a Reply field/],
    [{ text: "x", cutAfter: -1 }, /'cutAfter' must be a non-negative integer/],
    [{ toolCalls: [{ input: {} }] }, /'toolCalls\[0\]\.name' must be a non-empty string/],
    [{ error: { status: 200 } }, /'error\.status' must be an HTTP error status/],
    [{ usage: { prompt: 3 } }, /'usage\.prompt' is not a Usage field/],
    [{ hang: "forever" }, /'hang' must be/],
    [{ finish: "tool_calls" }, /'finish' must be one of stop, tool-calls, length, content-filter/],
  ]
  for (const [reply, message] of bad) {
    expect(() => server.script(text("fine"), reply as Reply)).toThrow(message)
  }
  expect(() => server.script(text("a"), { text: "b", delayMs: 1.5 })).toThrow(/script\(\) reply #2: 'delayMs'/)
  expect(server.pending()).toBe(0)
})

test("llm-server - a request to an unknown route gets 404 and is recorded in failures", async () => {
  const res = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" })

  expect(res.status).toBe(404)
  expect(server.requests).toEqual([])
  expect(server.failures[0]).toContain("no route for POST /chat/completions")
})

test("llm-server - scripted replies come first, then the fallback answers", async () => {
  const fallback = await startLLMServer({ fallback: (req) => text(`echo ${req.body.messages.at(-1).content}`) })
  try {
    fallback.script(text("scripted"))
    expect(fallback.pending()).toBe(1)
    const first = await generateText({ model: compatible.model(fallback.url), prompt: "ping", maxRetries: 0 })
    const second = await generateText({ model: compatible.model(fallback.url), prompt: "pong", maxRetries: 0 })

    expect([first.text, second.text]).toEqual(["scripted", "echo pong"])
    expect(fallback.pending()).toBe(0)
    expect(fallback.failures).toEqual([])
  } finally {
    await fallback.close()
  }
})

test("llm-server - a lenient server answers unscripted requests instead of failing", async () => {
  const lenient = await startLLMServer({ strict: false })
  try {
    const result = await generateText({ model: compatible.model(lenient.url), prompt: "hi", maxRetries: 0 })
    expect(result.text).toBe("ok")
    expect(lenient.failures).toEqual([])
  } finally {
    await lenient.close()
  }
})

test("llm-server - reset() forgets the queue, the requests and the failures", async () => {
  await collect(compatible, server.url)
  server.script(text("left over"))
  server.reset()

  expect([server.pending(), server.requests.length, server.failures.length]).toEqual([0, 0, 0])
})

test("llm-server - close() ends connections that hang before headers", async () => {
  const own = await startLLMServer()
  own.script({ hang: "before-headers" })
  // Observe the outcome at once: the rejection may land while close() is still running.
  const outcome = fetch(`${own.url}/v1/messages`, { method: "POST", body: JSON.stringify({ stream: true }) }).then(
    () => "answered",
    (e: Error) => e,
  )
  await vi.waitFor(() => expect(own.inFlight()).toBe(1), { interval: 5, timeout: 10_000 })
  await own.close()

  expect(await outcome).toBeInstanceOf(Error)
  expect(own.inFlight()).toBe(0)
})

test("llm-server - malformed raw tool arguments arrive as an invalid tool call", async () => {
  server.script({ toolCalls: [{ name: "get_weather", raw: '{"city": "Par' }] })
  const { parts } = await collect(compatible, server.url, { tools: { get_weather: weatherTool } })

  const [call] = ofType(parts, "tool-call")
  expect(call.input).toBe('{"city": "Par')
  expect(call.invalid).toBe(true)
  expect(ofType(parts, "tool-error")).toHaveLength(1)
})

test("llm-server - a delayed stream still delivers every event", async () => {
  server.script(text("slow but complete", { delayMs: 2 }))
  const { parts } = await collect(compatible, server.url)

  expect(ofType(parts, "text-delta").map((p) => p.text).join("")).toBe("slow but complete")
  expect(ofType(parts, "finish")).toHaveLength(1)
})

test("llm-server - a gated stream sends its first events, holds the rest until the gate opens, then finishes", async () => {
  let open!: () => void
  server.script(text("one two three four five six", { gate: { after: 3, open: new Promise<void>((r) => (open = r)) } }))
  const seen: string[] = []
  let released = false
  const run = collect(compatible, server.url, {}, (part) => {
    if (part.type === "text-delta") seen.push(released ? "after" : "before")
  })
  await vi.waitFor(() => expect(seen).toContain("before"), { timeout: 10_000 })
  // Held: nothing more comes, however long the wait.
  await new Promise((r) => setTimeout(r, 300))
  expect(server.inFlight()).toBe(1)
  released = true
  open()
  const { parts } = await run
  expect(ofType(parts, "text-delta").map((p) => p.text).join("")).toBe("one two three four five six")
  expect(seen).toContain("after")
  expect(() => server.script(text("x", { gate: { after: 1, open: 5 as never } }))).toThrow(/'gate\.open' must be a promise/)
})

test("llm-server - a client leaving a slow stream frees the connection", async () => {
  server.script(text("one two three four five six seven eight nine ten", { delayMs: 20 }))
  const abort = new AbortController()
  const { parts } = await collect(compatible, server.url, { abortSignal: abort.signal }, (part) => {
    if (part.type === "text-delta") abort.abort()
  })

  expect(parts.at(-1)?.type).toBe("abort")
  await vi.waitFor(() => expect(server.inFlight()).toBe(0), { interval: 5, timeout: 10_000 })
})

test("llm-server - a non-streaming answer can be cut or hung too", async () => {
  server.script(toolCall("get_weather", { city: "Kyiv" }, { cutAfter: 0 }), { hang: "after-headers" })
  await expect(generateText({ model: compatible.model(server.url), prompt: "hi", maxRetries: 0 })).rejects.toThrow()

  const abort = new AbortController()
  const hung = generateText({ model: compatible.model(server.url), prompt: "hi", maxRetries: 0, abortSignal: abort.signal })
  await vi.waitFor(() => expect(server.inFlight()).toBe(1), { interval: 5, timeout: 10_000 })
  abort.abort()
  await expect(hung).rejects.toThrow()
  await vi.waitFor(() => expect(server.inFlight()).toBe(0), { interval: 5, timeout: 10_000 })
  expect(server.requests.map((r) => r.stream)).toEqual([false, false])
})
