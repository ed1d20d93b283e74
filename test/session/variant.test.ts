// Which variant a prompt runs with, through the real server and SDK client, checked in the
// Anthropic request the real package sends.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const config = (url: string, extra: Record<string, unknown> = {}) => ({
  model: "fa/claude-think",
  provider: {
    fa: {
      npm: "@ai-sdk/anthropic",
      options: { baseURL: `${url}/v1`, apiKey: "k" },
      models: {
        "claude-think": { reasoning: true, limit: { context: 200_000, output: 64_000 } },
        "claude-plain": { reasoning: false, limit: { context: 200_000, output: 8_000 } },
      },
    },
  },
  ...extra,
})

async function rejection(p: Promise<unknown>): Promise<Error & { body?: { name: string; data: { message: string } } }> {
  try {
    await p
  } catch (e) {
    return e as Error
  }
  throw new Error("expected a rejection")
}

test("variant - a prompt's variant reaches the provider and is recorded on both messages; the next prompt without one thinks no more", async () => {
  const core = await testCore({ llm, config: config(llm.url) })
  try {
    const session = await core.client.session.create()
    llm.script(text("deep"), text("plain"))
    const first = await core.client.session.prompt(session.id, prompt("think hard", { variant: "high" }))
    expect(llm.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 16_000 })
    expect(first.info.role === "assistant" && first.info.variant).toBe("high")
    const messages = await core.client.session.messages(session.id)
    const user = messages.find((m) => m.info.role === "user")!.info
    expect(user.role === "user" && user.model.variant).toBe("high")

    await core.client.session.prompt(session.id, prompt("again"))
    expect(llm.requests[1]!.body.thinking).toBeUndefined()
  } finally {
    await core.close()
  }
})

test("variant - an agent's variant applies to its own model, and a prompt's variant wins over it", async () => {
  const core = await testCore({ llm, config: config(llm.url, { agent: { build: { model: "fa/claude-think", variant: "max" } } }) })
  try {
    const session = await core.client.session.create()
    llm.script(text("a"), text("b"))
    await core.client.session.prompt(session.id, prompt("go"))
    expect(llm.requests[0]!.body.thinking.budget_tokens).toBe(31_999)
    await core.client.session.prompt(session.id, prompt("go", { variant: "high" }))
    expect(llm.requests[1]!.body.thinking.budget_tokens).toBe(16_000)
  } finally {
    await core.close()
  }
})

test("variant - an agent's variant does not follow the user to another model", async () => {
  const core = await testCore({ llm, config: config(llm.url, { agent: { build: { model: "fa/claude-think", variant: "max" } } }) })
  try {
    const session = await core.client.session.create()
    llm.script(text("a"))
    await core.client.session.prompt(session.id, prompt("go", { model: { providerID: "fa", modelID: "claude-plain" } }))
    expect(llm.requests[0]!.body.thinking).toBeUndefined()
  } finally {
    await core.close()
  }
})

test("variant - a command's variant reaches the provider", async () => {
  const core = await testCore({ llm, config: config(llm.url, { command: { deep: { template: "Think about $ARGUMENTS", variant: "max" } } }) })
  try {
    const session = await core.client.session.create()
    llm.script(text("done"))
    await core.client.request("POST", `/session/${session.id}/command`, { body: { command: "deep", arguments: "caching" } })
    expect(llm.requests[0]!.body.thinking.budget_tokens).toBe(31_999)
  } finally {
    await core.close()
  }
})

test("variant - a variant the model lacks is a 400 naming the model, and nothing is stored or sent", async () => {
  const core = await testCore({ llm, config: config(llm.url) })
  try {
    const session = await core.client.session.create()
    const none = await rejection(core.client.session.prompt(session.id, prompt("x", { variant: "high", model: { providerID: "fa", modelID: "claude-plain" } })))
    expect(none.body?.name).toBe("BadRequestError")
    expect(none.body?.data.message).toContain('Model fa/claude-plain has no variants, so variant "high" cannot apply')
    const typo = await rejection(core.client.session.prompt(session.id, prompt("x", { variant: "hihg" })))
    expect(typo.body?.data.message).toBe('Model fa/claude-think has no variant "hihg" (variant). Its variants: high, max.')
    expect(await core.client.session.messages(session.id)).toEqual([])
    expect(llm.requests).toHaveLength(0)
  } finally {
    await core.close()
  }
})

test("variant - GET /provider lists each model's variants for front ends to cycle", async () => {
  const core = await testCore({ llm, config: config(llm.url) })
  try {
    const list = await core.client.request<{ all: { id: string; models: Record<string, { variants?: Record<string, unknown> }> }[] }>("GET", "/provider")
    const fa = list.all.find((p) => p.id === "fa")!
    expect(Object.keys(fa.models["claude-think"]!.variants ?? {})).toEqual(["high", "max"])
    expect(fa.models["claude-plain"]!.variants).toEqual({})
  } finally {
    await core.close()
  }
})

test("variant - a subagent on the parent's model runs with the parent's variant", async () => {
  const core = await testCore({ llm, config: config(llm.url) })
  try {
    const session = await core.client.session.create()
    llm.script(
      toolCall("task", { description: "Look around", prompt: "List the files.", subagent_type: "explore" }),
      text("Nothing here."),
      text("The subagent found nothing."),
    )
    await core.client.session.prompt(session.id, prompt("delegate", { variant: "max" }))
    expect(llm.requests).toHaveLength(3)
    for (const req of llm.requests) expect(req.body.thinking).toEqual({ type: "enabled", budget_tokens: 31_999 })
    const child = core.app.sessions.children(session.id)[0]!
    const answer = core.app.sessions.messages(child.id).find((m) => m.info.role === "assistant")!.info
    expect(answer.role === "assistant" && answer.variant).toBe("max")
  } finally {
    await core.close()
  }
})
