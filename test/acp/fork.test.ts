// The unstable session methods wright offers: session/fork (through the core's fork route),
// session/set_title and session/delete. Driven by the ACP SDK's own client against the built
// `wright acp`.
import * as acp from "@agentclientprotocol/sdk/unstable"
import { expect, test, vi } from "vitest"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { text } from "../lib/llm-server"
import { acpSuite, chunks, initialize, startEditor, type Editor } from "./harness"

vi.setConfig({ testTimeout: 120_000 })

const m = acp.methods
const suite = acpSuite()

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
  return { editor, init: await initialize(editor) }
}

const prompt = (editor: Editor, sessionId: string, content: string) => editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: content }] })
const userTexts = (body: unknown) =>
  ((body as { messages: Array<{ role: string; content: unknown }> }).messages ?? [])
    .filter((x) => x.role === "user")
    .map((x) => (typeof x.content === "string" ? x.content : (x.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("")))

test("acp - session/fork copies the conversation into a new session that goes its own way, keeping the editor's model", async () => {
  const box = project()
  const { editor, init } = await editorFor(box)
  expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ fork: {}, delete: {}, title: {} })
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  await editor.agent.request(m.agent.session.setConfigOption, { sessionId, configId: "model", value: "fake/second-model" })
  suite.llm.script(text("noted: blue"))
  await prompt(editor, sessionId, "my colour is blue")

  const fork = await editor.agent.request(m.agent.session.fork, { sessionId, cwd: box.project, mcpServers: [] })
  expect(fork.sessionId).toMatch(/^ses_/)
  expect(fork.sessionId).not.toBe(sessionId)
  expect(fork.modes?.currentModeId).toBe("build")
  expect(fork.configOptions?.[0]).toMatchObject({ currentValue: "fake/second-model" })

  suite.llm.script(text("the fork remembers blue"))
  await prompt(editor, fork.sessionId, "what colour in the fork?")
  const forkRequest = suite.llm.requests.at(-1)!.body as { model: string }
  expect(forkRequest.model).toBe("second-model")
  expect(userTexts(forkRequest)).toEqual(["my colour is blue", "what colour in the fork?"])
  expect(editor.updates.filter((u) => u.sessionId === fork.sessionId).map((u) => u.update.sessionUpdate)).toContain("agent_message_chunk")

  // The original does not see what happened in the fork.
  suite.llm.script(text("still blue"))
  await prompt(editor, sessionId, "and in the original?")
  expect(userTexts(suite.llm.requests.at(-1)!.body)).toEqual(["my colour is blue", "and in the original?"])

  const list = await editor.agent.request(m.agent.session.list, { cwd: box.project })
  expect(list.sessions.map((s) => s.sessionId).sort()).toEqual([sessionId, fork.sessionId].sort())
  expect(list.sessions.find((s) => s.sessionId === fork.sessionId)?.title).toMatch(/\(fork #1\)$/)
  await expect(editor.agent.request(m.agent.session.fork, { sessionId: "ses_nope", cwd: box.project, mcpServers: [] })).rejects.toThrow(/NotFound/)
})

test("acp - session/set_title renames a session and session/delete removes it from the list", async () => {
  const box = project()
  const { editor } = await editorFor(box)
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  const other = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })

  const set = await editor.agent.request(m.agent.session.setTitle, { sessionId, title: "  Refactor the parser " })
  expect(set.title).toBe("Refactor the parser")
  let list = await editor.agent.request(m.agent.session.list, { cwd: box.project })
  expect(list.sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Refactor the parser")
  await expect(editor.agent.request(m.agent.session.setTitle, { sessionId, title: "   " })).rejects.toThrow(/title: must not be empty/)

  await editor.agent.request(m.agent.session.delete, { sessionId })
  list = await editor.agent.request(m.agent.session.list, { cwd: box.project })
  expect(list.sessions.map((s) => s.sessionId)).toEqual([other.sessionId])
  await expect(prompt(editor, sessionId, "hello?")).rejects.toThrow(/Unknown session/)
  await expect(editor.agent.request(m.agent.session.resume, { sessionId, cwd: box.project, mcpServers: [] })).rejects.toThrow(/NotFound/)
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("")
})
