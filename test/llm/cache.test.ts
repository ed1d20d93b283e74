import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { collect, resolveFake } from "./harness"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

test("stream - anthropic requests mark the system prompt and the last two messages as cache breakpoints", async () => {
  server.script(text("ok"))
  const model = await resolveFake(server, "@ai-sdk/anthropic")
  await collect(model, {
    system: ["stable prompt", "per-step context"],
    messages: [
      { role: "user", content: "first" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "second" },
    ],
  })
  const body = server.requests[0]!.body
  expect(body.system[0].cache_control).toEqual({ type: "ephemeral" })
  expect(body.system[1].cache_control).toBeUndefined()
  const marked = body.messages.map((m: { content: { cache_control?: unknown }[] }) => m.content.some((c) => c.cache_control))
  expect(marked).toEqual([false, true, true])
})

test("stream - other providers get no cache markers", async () => {
  server.script(text("ok"))
  const model = await resolveFake(server, "@ai-sdk/openai-compatible")
  await collect(model)
  expect(JSON.stringify(server.requests[0]!.body)).not.toContain("cache_control")
})

test("stream - agent options land under the provider's key and reach the request", async () => {
  server.script(text("ok"))
  const model = await resolveFake(server, "@ai-sdk/anthropic")
  await collect(model, { modelOptions: { thinking: { type: "enabled", budgetTokens: 2048 } } })
  expect(server.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 })
})
