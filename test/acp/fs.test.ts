// An editor that offers fs/read_text_file and fs/write_text_file: the session's file tools see
// its buffers (unsaved changes, different from disk) and its edits reach the editor's write.
// An editor that offers nothing keeps the disk. Driven by the ACP SDK's client against the built
// `wright acp`, the model scripted at the wire.
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import * as acp from "@agentclientprotocol/sdk/unstable"
import { expect, test, vi } from "vitest"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { acpSuite, initialize, startEditor } from "./harness"

vi.setConfig({ testTimeout: 120_000 })

const m = acp.methods
const suite = acpSuite()

function project(): Sandbox {
  const box = sandbox()
  writeConfig(box.project, providerConfig(suite.llm, "openai-chat"))
  writeFileSync(path.join(box.project, "main.ts"), "export const answer = 1\n")
  return box
}

/** The text of the tool result the model was sent for a call, from the request after it. */
function toolResultText(i: number): string {
  const messages = (suite.llm.requests[i]!.body as { messages: Array<{ role: string; content: unknown }> }).messages
  const tool = messages.filter((x) => x.role === "tool").at(-1)!
  return typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content)
}

test("acp - with the editor's fs capabilities, read sees the unsaved buffer and edit writes through fs/write_text_file", async () => {
  const box = project()
  const file = path.join(box.project, "main.ts")
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor, { fs: { readTextFile: true, writeTextFile: true } })
  // The user typed in the editor without saving.
  editor.buffers.set(file, "export const answer = 42 // unsaved\n")
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })

  suite.llm.script(toolCall("read", { filePath: "main.ts" }), toolCall("edit", { filePath: "main.ts", oldString: "42 // unsaved", newString: "43" }), text("Bumped it."))
  const result = await editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "bump the answer" }] })
  expect(result.stopReason).toBe("end_turn")

  expect(toolResultText(1)).toContain("1: export const answer = 42 // unsaved")
  expect(toolResultText(2)).toMatch(/Edit applied successfully/)
  const writes = editor.fsCalls.filter((c) => c.method === "write")
  expect(writes).toEqual([{ method: "write", path: file, content: "export const answer = 43\n" }])
  expect(editor.fsCalls.filter((c) => c.method === "read").every((c) => c.path === file)).toBe(true)
  expect(readFileSync(file, "utf8")).toBe("export const answer = 43\n")
})

test("acp - an editor that offers no fs capabilities is never asked: the tools read and write the disk", async () => {
  const box = project()
  const file = path.join(box.project, "main.ts")
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor)
  editor.buffers.set(file, "export const answer = 42 // unsaved\n")
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(toolCall("read", { filePath: "main.ts" }), toolCall("edit", { filePath: "main.ts", oldString: "= 1", newString: "= 2" }), text("Done."))
  await editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "bump" }] })
  expect(toolResultText(1)).toContain("1: export const answer = 1")
  expect(editor.fsCalls).toEqual([])
  expect(readFileSync(file, "utf8")).toBe("export const answer = 2\n")
})

test("acp - an editor that only offers reads: reads go through it, the edit is written to disk by wright", async () => {
  const box = project()
  const file = path.join(box.project, "main.ts")
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor, { fs: { readTextFile: true, writeTextFile: false } })
  editor.buffers.set(file, "export const answer = 7\n")
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(toolCall("edit", { filePath: "main.ts", oldString: "= 7", newString: "= 8" }), text("Done."))
  await editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "bump" }] })
  expect(editor.fsCalls.map((c) => c.method)).toEqual(["read"])
  // The edit applied to the buffer's text, and wright wrote it to disk itself.
  expect(readFileSync(file, "utf8")).toBe("export const answer = 8\n")
})

test("acp - a subtask's reads see the editor's buffer too, answered under the subtask's own session", async () => {
  const box = project()
  const file = path.join(box.project, "main.ts")
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor, { fs: { readTextFile: true, writeTextFile: true } })
  editor.buffers.set(file, "export const answer = 99 // typed, not saved\n")
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(
    toolCall("task", { description: "Read main", prompt: "What is the answer in main.ts?", subagent_type: "explore" }),
    toolCall("read", { filePath: "main.ts" }),
    text("It is 99."),
    text("The subagent says 99."),
  )
  await editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "ask a subagent" }] })
  // requests: [0] parent calls task, [1] subtask calls read, [2] subtask sees the read's result.
  expect(toolResultText(2)).toContain("1: export const answer = 99 // typed, not saved")
  expect(editor.fsCalls).toEqual([{ method: "read", path: file }])
})
