// ACP methods and updates beyond the first set: the model as a config option
// (session/set_config_option), usage updates, session/resume and session/close, and a
// subtask's tool calls streamed to the editor. Driven by the ACP SDK's own client against the
// built `wright acp`.
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import * as acp from "@agentclientprotocol/sdk/unstable"
import { expect, test, vi } from "vitest"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { acpSuite, chunks, initialize, ofKind, startEditor, toolCallShown, type Editor } from "./harness"

vi.setConfig({ testTimeout: 120_000 })

const m = acp.methods
const suite = acpSuite()

/** A project whose provider offers two models. */
function project(): Sandbox {
  const box = sandbox()
  const config = providerConfig(suite.llm, "openai-chat") as { provider: { fake: { models: Record<string, unknown> } } }
  config.provider.fake.models["second-model"] = { name: "Second", limit: { context: 64_000, output: 4_000 } }
  writeConfig(box.project, config)
  return box
}

async function editorFor(box: Sandbox) {
  const editor = await startEditor(box)
  suite.track(editor)
  const init = await initialize(editor)
  return { editor, init }
}

const prompt = (editor: Editor, sessionId: string, content: string) => editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: content }] })

test("acp - the model is a config option: the editor sees the usable models and its choice reaches the provider", async () => {
  const box = project()
  const { editor, init } = await editorFor(box)
  expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ resume: {}, close: {} })
  const session = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  const [option] = session.configOptions ?? []
  expect(option).toMatchObject({ id: "model", category: "model", type: "select", currentValue: "fake/chat-model" })
  expect((option as { options: Array<{ value: string }> }).options.map((o) => o.value).sort()).toEqual(["fake/chat-model", "fake/second-model"])

  suite.llm.script(text("from the first"))
  await prompt(editor, session.sessionId, "one")
  expect((suite.llm.requests.at(-1)!.body as { model: string }).model).toBe("chat-model")

  const set = await editor.agent.request(m.agent.session.setConfigOption, { sessionId: session.sessionId, configId: "model", value: "fake/second-model" })
  expect(set.configOptions[0]).toMatchObject({ currentValue: "fake/second-model" })
  suite.llm.script(text("from the second"))
  await prompt(editor, session.sessionId, "two")
  expect((suite.llm.requests.at(-1)!.body as { model: string }).model).toBe("second-model")

  await expect(editor.agent.request(m.agent.session.setConfigOption, { sessionId: session.sessionId, configId: "model", value: "fake/nope" })).rejects.toThrow(/value: no usable model "fake\/nope". Available: fake\/chat-model, fake\/second-model/)
  await expect(editor.agent.request(m.agent.session.setConfigOption, { sessionId: session.sessionId, configId: "speed", value: "x" })).rejects.toThrow(/configId: wright has no option "speed"/)
})

test("acp - each step sends a usage update: context used against the model's window, and the session's cost", async () => {
  const box = project()
  const { editor } = await editorFor(box)
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(text("hello there", { usage: { input: 1200, output: 30 } }))
  await prompt(editor, sessionId, "hi")
  await editor.waitFor((u) => ofKind(u, "usage_update").length > 0)
  const usage = ofKind(editor.updates, "usage_update").at(-1)!
  expect(usage.size).toBe(200_000)
  expect(usage.used).toBe(1230)
  expect(usage.cost).toMatchObject({ currency: "USD" })
})

test("acp - one usage update per finished step, after its tool results; the prompt's answer carries the turn's usage", async () => {
  const box = project()
  writeFileSync(path.join(box.project, "notes.txt"), "notes\n")
  const { editor } = await editorFor(box)
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(
    toolCall("read", { filePath: "notes.txt" }, { usage: { input: 1000, output: 20 } }),
    text("read it", { usage: { input: 1100, output: 30, cacheRead: 500 } }),
  )
  const answer = await prompt(editor, sessionId, "read the notes")
  const kinds = editor.updates.map((u) => u.update)
  const usageAt = kinds.flatMap((u, i) => (u.sessionUpdate === "usage_update" ? [i] : []))
  // Before, the first step's update came between the read's start and its result.
  expect(usageAt).toHaveLength(2)
  const done = kinds.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")
  expect(done).toBeGreaterThan(-1)
  expect(usageAt[0]).toBeGreaterThan(done)
  expect(kinds.slice(usageAt[0]! + 1).some((u) => u.sessionUpdate === "agent_message_chunk")).toBe(true)
  expect(ofKind(editor.updates, "usage_update").map((u) => u.used)).toEqual([1020, 1130])
  // The session's totals for this prompt: both steps summed.
  expect(answer.usage).toMatchObject({ inputTokens: 1600, outputTokens: 50, cachedReadTokens: 500, totalTokens: 2150 })
})

test("acp - session/resume rejoins a stored session without replaying it; session/close forgets it", async () => {
  const box = project()
  const first = await editorFor(box)
  const { sessionId } = await first.editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(text("remember the number 41"))
  await prompt(first.editor, sessionId, "the number is 41")
  await first.editor.close()
  suite.untrack(first.editor)

  const { editor } = await editorFor(box)
  const resumed = await editor.agent.request(m.agent.session.resume, { sessionId, cwd: box.project, mcpServers: [] })
  expect(resumed.modes?.currentModeId).toBe("build")
  expect(resumed.configOptions?.[0]).toMatchObject({ currentValue: "fake/chat-model" })
  expect(chunks(editor.updates, "user_message_chunk")).toBe("")
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("")
  suite.llm.script(text("it was 41"))
  await prompt(editor, sessionId, "what was it?")
  expect(JSON.stringify(suite.llm.requests.at(-1)!.body)).toContain("the number is 41")
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("it was 41")

  await editor.agent.request(m.agent.session.close, { sessionId })
  await expect(prompt(editor, sessionId, "still there?")).rejects.toThrow(/Unknown session/)
  await expect(editor.agent.request(m.agent.session.resume, { sessionId: "ses_nope", cwd: box.project, mcpServers: [] })).rejects.toThrow(/NotFound/)
})

test("acp - a subtask's tool calls are streamed to the editor as tool calls", async () => {
  const box = project()
  mkdirSync(path.join(box.project, "src"))
  writeFileSync(path.join(box.project, "src/auth.ts"), "export const secret = 1\n")
  const { editor } = await editorFor(box)
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(
    toolCall("task", { description: "Find the auth code", prompt: "Where is auth defined?", subagent_type: "explore" }),
    toolCall("read", { filePath: "src/auth.ts" }),
    text("Auth lives in src/auth.ts."),
    text("The subagent found it in src/auth.ts."),
  )
  await prompt(editor, sessionId, "where is auth?")
  const calls = ofKind(editor.updates, "tool_call")
  expect(calls).toHaveLength(2)
  const read = calls.find((c) => c.toolCallId.startsWith("prt_"))!
  expect(toolCallShown(editor.updates, read.toolCallId)).toMatchObject({ kind: "read", locations: [{ path: path.join(box.project, "src/auth.ts") }] })
  expect(ofKind(editor.updates, "tool_call_update").filter((u) => u.toolCallId === read.toolCallId).at(-1)?.status).toBe("completed")
  // The subtask's own text is its answer to the parent, not the editor's conversation.
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("The subagent found it in src/auth.ts.")
})
