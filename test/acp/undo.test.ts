// /undo and /redo from an editor over ACP (the built `wright acp`): the files the reverted turn
// changed are put back on disk, and the editor is shown them as an edit's diffs.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import * as acp from "@agentclientprotocol/sdk/unstable"
import { expect, test } from "vitest"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { acpSuite, chunks, initialize, ofKind, startEditor, type Editor } from "./harness"

const m = acp.methods
const suite = acpSuite()

function project(): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(suite.llm, "openai-chat"), permission: { edit: "allow", bash: "allow" } })
  return box
}

const prompt = (editor: Editor, sessionId: string, content: string) => editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: content }] })

test("acp undo - /undo restores the turn's files and shows them as diffs; /redo brings them back", { timeout: 120_000 }, async () => {
  const box = project()
  const file = path.join(box.project, "app.ts")
  writeFileSync(file, "const a = 1\n")
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor)
  const { sessionId } = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })
  suite.llm.script(toolCall("edit", { filePath: "app.ts", oldString: "const a = 1", newString: "const a = 2" }), toolCall("bash", { command: "echo hi > extra.txt", description: "extra" }), text("Done."))
  expect((await prompt(editor, sessionId, "bump a")).stopReason).toBe("end_turn")
  expect(readFileSync(file, "utf8")).toBe("const a = 2\n")

  const before = editor.updates.length
  expect((await prompt(editor, sessionId, "/undo")).stopReason).toBe("end_turn")
  expect(readFileSync(file, "utf8")).toBe("const a = 1\n")
  expect(existsSync(path.join(box.project, "extra.txt"))).toBe(false)
  const shown = ofKind(editor.updates.slice(before), "tool_call").at(-1)!
  expect(shown).toMatchObject({ kind: "edit", status: "completed", title: "Undo: 2 files restored" })
  expect(shown.content).toContainEqual({ type: "diff", path: file, oldText: "const a = 2\n", newText: "const a = 1\n" })
  expect(shown.content).toContainEqual({ type: "diff", path: path.join(box.project, "extra.txt"), oldText: "hi\n", newText: "" })
  expect(chunks(editor.updates.slice(before), "agent_message_chunk")).toContain("Undo done.")

  const again = editor.updates.length
  expect((await prompt(editor, sessionId, "/redo")).stopReason).toBe("end_turn")
  expect(readFileSync(file, "utf8")).toBe("const a = 2\n")
  const redone = ofKind(editor.updates.slice(again), "tool_call").at(-1)!
  expect(redone.content).toContainEqual({ type: "diff", path: file, oldText: "const a = 1\n", newText: "const a = 2\n" })
})
