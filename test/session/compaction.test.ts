import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { filterCompacted } from "../../src/session/compaction"
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

const SMALL = (url: string, extra: Record<string, unknown> = {}) => ({
  model: "fake/small",
  provider: {
    fake: {
      npm: "@ai-sdk/openai-compatible",
      options: { baseURL: `${url}/v1`, apiKey: "k" },
      // usable = 20000 - min(output 4000, 32000) = 16000 tokens
      models: { small: { limit: { context: 20_000, output: 4_000 } } },
    },
  },
  compaction: { preserve_recent_tokens: 2_000, ...extra },
})

test("compaction - a session that overflows a small context compacts and the next request carries the summary, the recent turns and AGENTS.md", async () => {
  const core = await testCore({
    llm,
    config: SMALL(llm.url),
    files: { "AGENTS.md": "Always run the linter before committing. (project rule R-17)\n", "big.txt": "lorem ipsum dolor sit amet, consectetur adipiscing\n".repeat(1500) },
  })
  const session = await core.client.session.create()
  // Turn 1: a cheap exchange.
  llm.script(text("Noted: the task is to tidy big.txt.", { usage: { input: 3000, output: 50 } }))
  await core.client.session.prompt(session.id, prompt("Our task: tidy up big.txt. Do not delete it."))
  // Turn 2: a read whose step pushes the context over the limit.
  llm.script(
    toolCall("read", { filePath: "big.txt" }, { usage: { input: 17_000, output: 40 } }),
    // compaction summary turn (the compaction agent, no tools)
    text("## Objective\n- Tidy big.txt without deleting it\n## Next Move\n1. Finish tidying", { usage: { input: 5000, output: 60 } }),
    // the model continues from the summary
    text("Continuing from the summary: big.txt is tidy now.", { usage: { input: 4000, output: 30 } }),
  )
  const result = await core.client.session.prompt(session.id, prompt("now read big.txt and tidy it"))
  expect(answerText(result)).toContain("Continuing from the summary")

  const summaryReq = llm.requests[2]!.body
  expect(summaryReq.tools).toBeUndefined()
  expect(JSON.stringify(summaryReq.messages[0])).toContain("context summarization agent")
  expect(JSON.stringify(summaryReq)).toContain("Our task: tidy up big.txt")

  const next = JSON.stringify(llm.requests[3]!.body)
  expect(next).toContain("Tidy big.txt without deleting it") // the summary
  expect(next).toContain("What did we do so far?")
  expect(next).toContain("project rule R-17") // AGENTS.md re-sent in the system prompt
  expect(next).toContain("Continue if you have next steps")
  // The oldest turn was summarised away, not sent verbatim.
  expect(next).not.toContain("Noted: the task is to tidy big.txt.")
  expect(core.events.some((e) => e.type === "session.compacted")).toBe(true)

  const msgs = core.app.sessions.messages(session.id)
  const summary = msgs.find((m) => m.info.role === "assistant" && m.info.summary)
  expect(summary?.info.role === "assistant" && summary.info.agent).toBe("compaction")
  await core.close()
})

test("compaction - the most recent turns are kept verbatim after the summary", async () => {
  const core = await testCore({ llm, config: SMALL(llm.url, { preserve_recent_tokens: 5_000 }) })
  const session = await core.client.session.create()
  llm.script(text("answer one (old)", { usage: { input: 1000, output: 10 } }))
  await core.client.session.prompt(session.id, prompt("question one " + "padding ".repeat(6000)))
  llm.script(text("answer two (recent)", { usage: { input: 2000, output: 10 } }))
  await core.client.session.prompt(session.id, prompt("question two"))
  // Manual /compact
  llm.script(text("## Objective\n- the summary text"))
  await core.client.request("POST", `/session/${session.id}/summarize`, { body: { providerID: "fake", modelID: "small" } })
  llm.script(text("third answer"))
  await core.client.session.prompt(session.id, prompt("question three"))
  const last = JSON.stringify(llm.requests.at(-1)!.body)
  expect(last).toContain("the summary text")
  expect(last).toContain("question two")
  expect(last).toContain("answer two (recent)")
  expect(last).not.toContain("answer one (old)")
  // Manual compaction adds no "continue" message.
  expect(last).not.toContain("Continue if you have next steps")
  const view = filterCompacted(core.app.sessions.messages(session.id))
  expect(view[0]!.parts.some((p) => p.type === "compaction")).toBe(true)
  await core.close()
})

test("compaction - compaction.auto: false turns automatic compaction off", async () => {
  const core = await testCore({ llm, config: SMALL(llm.url, { auto: false }) })
  const session = await core.client.session.create()
  llm.script(text("big step", { usage: { input: 19_000, output: 10 } }), text("next", { usage: { input: 19_500, output: 10 } }))
  await core.client.session.prompt(session.id, prompt("one"))
  await core.client.session.prompt(session.id, prompt("two"))
  expect(llm.requests).toHaveLength(2)
  expect(core.app.sessions.messages(session.id).some((m) => m.info.role === "assistant" && m.info.summary)).toBe(false)
  await core.close()
})

test("compaction - a provider 'context too long' error triggers compaction instead of failing", async () => {
  const core = await testCore({ llm, config: SMALL(llm.url) })
  const session = await core.client.session.create()
  llm.script(text("first", { usage: { input: 100, output: 10 } }))
  await core.client.session.prompt(session.id, prompt("one"))
  llm.script(
    { error: { status: 400, body: { error: { message: "This model's maximum context length is 20000 tokens", code: "context_length_exceeded", type: "invalid_request_error" } } } },
    text("## Objective\n- summary after overflow"),
    text("recovered"),
  )
  const result = await core.client.session.prompt(session.id, prompt("two"))
  expect(answerText(result)).toBe("recovered")
  expect(result.info.role === "assistant" && result.info.error).toBeFalsy()
  await core.close()
})

test("compaction - the kept tail starts at a user turn and never swallows the whole history", async () => {
  const { chooseTail } = await import("../../src/session/compaction")
  const msg = (id: string, role: "user" | "assistant", chars: number) =>
    ({ info: { id, role }, parts: [{ type: "text", text: "x".repeat(chars) }] }) as never
  const history = [msg("m1", "user", 400), msg("m2", "assistant", 400), msg("m3", "user", 400), msg("m4", "assistant", 400)]
  // Budget for everything: the oldest turn is still left to summarise.
  expect(chooseTail(history, 10_000)).toBe("m3")
  // Budget that ends mid-turn: the partial turn is dropped, the tail starts at a user message.
  expect(chooseTail([msg("a", "user", 40_000), msg("b", "assistant", 400), msg("c", "user", 400), msg("d", "assistant", 400)], 250)).toBe("c")
  // One huge current turn: keep its newest step rather than nothing.
  expect(chooseTail([msg("a", "user", 400), msg("b", "assistant", 40_000), msg("c", "assistant", 400)], 200)).toBe("c")
  expect(chooseTail(history, 10_000, 0)).toBeUndefined()
})

test("compaction - prune clears old tool outputs to a marker, keeping the newest 40K tokens and the last two turns", async () => {
  const { createHistory } = await import("../../src/session/history")
  const { prune } = await import("../../src/session/compaction")
  const { toModelMessages, CLEARED_TOOL_OUTPUT } = await import("../../src/session/to-model")
  const { openStore } = await import("../../src/storage")
  const { createBus } = await import("../../src/bus")
  const store = openStore(":memory:")
  store.sessions.put({ id: "ses_p", slug: "s", projectID: "p", directory: "/", title: "t", version: "v", time: { created: 1, updated: 1 } })
  const history = createHistory({ store, bus: createBus() })
  const model = { providerID: "p", modelID: "m" }
  let n = 0
  const turn = (outputChars: number, tool = "read") => {
    const u = `msg_${String(++n).padStart(4, "0")}`
    history.putMessage({ id: u, sessionID: "ses_p", role: "user", time: { created: n }, agent: "build", model })
    history.putPart({ id: `prt_${u}`, sessionID: "ses_p", messageID: u, type: "text", text: `question ${n}` })
    const a = `msg_${String(++n).padStart(4, "0")}`
    history.putMessage({ id: a, sessionID: "ses_p", role: "assistant", parentID: u, mode: "build", agent: "build", modelID: "m", providerID: "p", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, finish: "stop", time: { created: n, completed: n } })
    history.putPart({ id: `prt_${a}`, sessionID: "ses_p", messageID: a, type: "tool", callID: `c${n}`, tool, state: { status: "completed", input: { n }, output: "x".repeat(outputChars), title: "", metadata: {}, time: { start: 1, end: 2 } } })
  }
  // Oldest first: 3 big reads (30K tokens each), one skill output, then two recent turns.
  turn(120_000)
  turn(120_000)
  turn(120_000, "skill")
  turn(120_000)
  turn(4_000)
  turn(4_000)
  const freed = prune(history, "ses_p")
  expect(freed).toBeGreaterThanOrEqual(20_000)
  const outputs = history.messages("ses_p").flatMap((m) => m.parts).filter((p) => p.type === "tool")
  const compacted = outputs.map((p) => p.type === "tool" && p.state.status === "completed" && p.state.time.compacted !== undefined)
  // The two newest turns are kept; walking back, the first 40K tokens are protected; the skill is never pruned.
  expect(compacted).toEqual([true, true, false, false, false, false])
  const sent = JSON.stringify(toModelMessages(history.messages("ses_p"), model))
  expect(sent.split(CLEARED_TOOL_OUTPUT).length - 1).toBe(2)
  // Nothing more to free: a second prune stops at the first cleared output.
  expect(prune(history, "ses_p")).toBe(0)
  store.close()
})
