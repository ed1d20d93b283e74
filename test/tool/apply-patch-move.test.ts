// apply_patch's Move to onto an existing file, through the real App (the model faked at the
// wire): the file there is replaced, as Codex and OpenCode do and as Add File does, and undo
// brings back both the moved file and the one it replaced.
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"
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

test("apply_patch move - onto an existing file replaces it; undo restores both files", async () => {
  const core = await testCore({
    llm,
    config: { model: "fake/gpt-5-fake", provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "k" }, models: { "gpt-5-fake": { limit: { context: 100000, output: 4000 } } } } } },
    files: { "old/name.txt": "from\n", "renamed/name.txt": "existing\n" },
  })
  const read = (f: string) => readFileSync(path.join(core.box.project, f), "utf8")
  const s = await core.client.session.create()
  const patchText = ["*** Begin Patch", "*** Update File: old/name.txt", "*** Move to: renamed/name.txt", "@@", "-from", "+new", "*** End Patch"].join("\n")
  llm.script(toolCall("apply_patch", { patchText }), text("moved"))
  await core.client.session.prompt(s.id, prompt("move it"))
  const result = llm.requests[1]!.body.messages.find((m: { role: string }) => m.role === "tool")
  expect(result.content).toContain("Success. Updated the following files:\nM renamed/name.txt")
  expect(read("renamed/name.txt")).toBe("new\n")
  expect(existsSync(path.join(core.box.project, "old/name.txt"))).toBe(false)

  const user = core.app.sessions.messages(s.id).find((m) => m.info.role === "user")!
  await core.client.session.revert(s.id, { messageID: user.info.id })
  expect(read("old/name.txt")).toBe("from\n")
  expect(read("renamed/name.txt")).toBe("existing\n")
  await core.close()
})
