import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { answerText, prompt, testCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("retry - a 429 with retry-after: 1 is retried once and then succeeds, with a retry status in between", async () => {
  const core = await testCore({ llm })
  llm.script({ error: { status: 429, headers: { "retry-after": "1" } } }, text("after the wait"))
  const session = await core.client.session.create()
  const started = Date.now()
  const result = await core.client.session.prompt(session.id, prompt("hi"))
  expect(answerText(result)).toBe("after the wait")
  expect(llm.requests).toHaveLength(2)
  expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  const retry = core.events.find((e) => e.type === "session.status" && e.properties.status.type === "retry")
  expect(retry?.type === "session.status" && retry.properties.status).toMatchObject({ type: "retry", attempt: 1 })
  await core.close()
})

test("retry - a 401 is not retried and is stored as ProviderAuthError on the message", async () => {
  const core = await testCore({ llm })
  llm.script({ error: { status: 401, body: { error: { message: "invalid api key", type: "invalid_request_error" } } } })
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("hi"))
  expect(llm.requests).toHaveLength(1)
  expect(result.info.role === "assistant" && result.info.error?.name).toBe("ProviderAuthError")
  expect(core.events.some((e) => e.type === "session.error")).toBe(true)
  await core.close()
})

test("retry - a provider that goes silent mid-stream is cut by the chunk timeout and retried", async () => {
  const core = await testCore({
    llm,
    config: {
      model: "fake/chat-model",
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: `${llm.url}/v1`, apiKey: "k", chunkTimeout: 300 },
          models: { "chat-model": { limit: { context: 100000, output: 4000 } } },
        },
      },
    },
  })
  llm.script({ text: "partial", hang: 3 }, text("second try worked"))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("hi"))
  expect(answerText(result)).toBe("second try worked")
  expect(llm.requests).toHaveLength(2)
  // The failed attempt's partial text was dropped, not duplicated.
  const texts = result.parts.filter((p) => p.type === "text")
  expect(texts).toHaveLength(1)
  await core.close()
})

test("steps - on the last allowed step the model is told tools are off and must summarise", async () => {
  const core = await testCore({ llm, config: { agent: { build: { steps: 2 } } }, files: { "a.txt": "A\n" } })
  llm.script(toolCall("read", { filePath: "a.txt" }), text("Summary: I read a.txt."))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("keep reading forever"))
  expect(answerText(result)).toContain("Summary")
  const last = llm.requests[1]!.body
  expect(JSON.stringify(last.messages.at(-1))).toContain("MAXIMUM STEPS REACHED")
  expect(last.tool_choice).toBe("none")
  await core.close()
})

test("agents - a custom Markdown agent from .wright/agent is used with its prompt, model settings and rules", async () => {
  const core = await testCore({
    llm,
    files: {
      ".wright/agent/reviewer.md": [
        "---",
        "description: Reviews code without changing it",
        "mode: primary",
        "temperature: 0.1",
        "permission:",
        "  edit: deny",
        "  bash: deny",
        "---",
        "You are a meticulous code reviewer. Never edit files.",
      ].join("\n"),
    },
  })
  llm.script(text("Looks good."))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("review", { agent: "reviewer" }))
  const body = llm.requests[0]!.body
  expect(JSON.stringify(body.messages[0])).toContain("meticulous code reviewer")
  expect(body.temperature).toBe(0.1)
  const tools = body.tools.map((t: { function: { name: string } }) => t.function.name)
  expect(tools).not.toContain("edit")
  expect(tools).not.toContain("write")
  expect(tools).not.toContain("bash")
  expect(tools).toContain("read")
  await core.close()
})

test("agents - an unknown agent fails with the list of available ones", async () => {
  const core = await testCore({ llm })
  const session = await core.client.session.create()
  await expect(core.client.session.prompt(session.id, prompt("x", { agent: "nobody" }))).rejects.toThrow(/Agent not found: "nobody". Available agents: build, .*plan/)
  await core.close()
})

test("mid-run - a prompt sent while the session is busy is queued at once and answered in the same run, after the first", async () => {
  const core = await testCore({ llm })
  // The first answer holds after a word until the second question waits in the inbox (a
  // 200 ms stream could end first on a loaded worker, and the second became a run of its own).
  let release!: () => void
  llm.script(text("first answer", { delayMs: 40, gate: { after: 2, open: new Promise<void>((r) => (release = r)) } }), text("second answer"))
  const session = await core.client.session.create()
  const first = core.client.session.prompt(session.id, prompt("first question"))
  await waitFor(() => llm.requests.length === 1)
  const second = core.client.session.prompt(session.id, prompt("second question"))
  await waitFor(() => core.events.some((e) => e.type === "session.inbox.updated" && (e.properties as { items: unknown[] }).items.length === 1))
  release()
  const [a, b] = await Promise.all([first, second])
  expect(answerText(b)).toBe("second answer")
  // Each waiting caller gets the answer of its own turn (the inbox queued the second one).
  expect(answerText(a)).toBe("first answer")
  expect(JSON.stringify(llm.requests[1]!.body)).toContain("second question")
  // One run: busy once, idle once.
  expect(core.events.filter((e) => e.type === "session.idle")).toHaveLength(1)
  // The second question is stored while the first answer streams, and answered after it.
  const msgs = core.app.sessions.messages(session.id)
  expect(msgs.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"])
  expect(msgs[3]!.info.role === "assistant" && msgs[3]!.info.parentID).toBe(msgs[2]!.info.id)
  await core.close()
})

test("title - the first step names the session from the small model, in the background", async () => {
  const core = await testCore({ llm })
  llm.script(text("hello"))
  const session = await core.client.session.create()
  expect(session.title).toMatch(/^New session - /)
  await core.client.session.prompt(session.id, prompt("fix the flaky login test"))
  await waitFor(() => !core.app.sessions.get(session.id).title.startsWith("New session"))
  expect(core.app.sessions.get(session.id).title).toBe("Scripted title")
  expect(JSON.stringify(llm.side[0]!.body)).toContain("fix the flaky login test")
  await core.close()
})

test("title - the first step's own request is sent before the title's", async () => {
  const sent: string[] = []
  const recording: typeof fetch = (input, init) => {
    sent.push(new Headers(init?.headers).get("x-wright-request") ?? "step")
    return fetch(input, init)
  }
  const core = await testCore({ llm, fetch: recording })
  llm.script(text("hello"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("fix the flaky login test"))
  await waitFor(() => !core.app.sessions.get(session.id).title.startsWith("New session"))
  expect(sent).toEqual(["step", "title"])
  await core.close()
})

test("accounting - tokens and cost per step, message and session, from the model's prices", async () => {
  const core = await testCore({
    llm,
    files: { "a.txt": "A" },
    config: {
      model: "fake/priced",
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: `${llm.url}/v1`, apiKey: "k" },
          models: { priced: { limit: { context: 100000, output: 4000 }, cost: { input: 3, output: 15, cache_read: 0.3 } } },
        },
      },
    },
  })
  llm.script(
    toolCall("read", { filePath: "a.txt" }, { usage: { input: 1000, output: 100, cacheRead: 400 } }),
    text("done", { usage: { input: 2000, output: 200 } }),
  )
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("go"))
  const steps = core.app.sessions.messages(session.id).flatMap((m) => m.parts).filter((p) => p.type === "step-finish")
  expect(steps.map((s) => s.type === "step-finish" && s.tokens.input)).toEqual([600, 2000])
  expect(steps[0]!.type === "step-finish" && steps[0]!.tokens.cache.read).toBe(400)
  const first = (600 * 3 + 100 * 15 + 400 * 0.3) / 1e6
  const second = (2000 * 3 + 200 * 15) / 1e6
  expect(steps[0]!.type === "step-finish" && steps[0]!.cost).toBeCloseTo(first, 10)
  const s = core.app.sessions.get(session.id)
  expect(s.cost).toBeCloseTo(first + second, 10)
  expect(s.tokens?.output).toBe(300)
  await core.close()
})

async function waitFor(pred: () => boolean, timeoutMs = 10_000) {
  const start = Date.now()
  while (!pred()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 10))
  }
}
