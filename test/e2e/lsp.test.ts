// `wright run` end to end with the real TypeScript language server: the model's next request,
// after an edit that broke the types, carries the error in the edit's tool result.
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { ROOT, providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

/** The text of the tool results in one recorded Chat Completions request. */
function toolResults(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages
  return messages.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
}

test("run - the request after an edit that broke the types carries the TypeScript error", async () => {
  const box = sandbox()
  box.env.PATH = `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`
  writeFileSync(path.join(box.project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, lib: ["es2022"], types: [], noEmit: true } }))
  writeFileSync(path.join(box.project, "a.ts"), "export const n: number = 1\n")
  // A long bound: a cold tsserver on this shared machine can take many seconds.
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), lsp: { timeout: 120_000 } })
  server.script(toolCall("edit", { filePath: "a.ts", oldString: "= 1", newString: '= "one"' }), text("I see the type error."))

  const r = await wright(["run", "make n a string"], { cwd: box.project, env: box.env, timeoutMs: 200_000 })
  expect(r.code).toBe(0)
  expect(server.requests).toHaveLength(2)
  const [result] = toolResults(server.requests[1]!.body)
  expect(result).toContain("Edit applied successfully.\n\nLSP errors detected in this file, please fix:")
  expect(result).toContain("ERROR [1:14] Type 'string' is not assignable to type 'number'.")
}, 240_000)
