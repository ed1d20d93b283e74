// `wright run` end to end with the real TypeScript language server. The first edit finds the
// server cold: its result says diagnostics are pending and the run goes on without waiting;
// the type error the server finds reaches the model with a later tool result, marked late.
// The model then edits again, and that edit (the server warm now) carries the error itself.
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer, type RecordedRequest, type Reply } from "../lib/llm-server"
import { ROOT, providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"

let server: LLMServer
let next: (req: RecordedRequest) => Reply = () => text("done")
beforeAll(async () => {
  server = await startLLMServer({ fallback: (req) => next(req) })
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

test("run - an edit that broke the types returns at once; the TypeScript error reaches the model late, and the next edit carries it", async () => {
  const box = sandbox()
  box.env.PATH = `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`
  writeFileSync(path.join(box.project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, lib: ["es2022"], types: [], noEmit: true } }))
  writeFileSync(path.join(box.project, "a.ts"), "export const n: number = 1\nexport const m: number = 1\n")
  // A long bound: a warm tsserver on this shared machine can still take seconds.
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), lsp: { timeout: 120_000 } })
  server.script(toolCall("edit", { filePath: "a.ts", oldString: "n: number = 1", newString: 'n: number = "one"' }))
  // Then the model reads the file (a little differently each time) until the late report arrives, and edits again.
  let rounds = 0
  let edited = false
  // By the clock, not a count of rounds: a cold tsserver on a loaded machine can take long.
  let deadline = 0
  next = (req) => {
    const last = toolResults(req.body).at(-1) ?? ""
    if (edited) return text("I see the type errors.")
    deadline ||= Date.now() + 120_000
    rounds++
    if (last.includes("Late diagnostics") || Date.now() > deadline) {
      edited = true
      return toolCall("edit", { filePath: "a.ts", oldString: "m: number = 1", newString: 'm: number = "two"' })
    }
    return toolCall("read", { filePath: "a.ts", limit: 100 + rounds }, { text: ["checking", " again"], delayMs: 100 })
  }

  const r = await wright(["run", "make n a string"], { cwd: box.project, env: box.env, timeoutMs: 200_000 })
  expect(r.code, r.stderr).toBe(0)
  const results = toolResults(server.requests.at(-1)!.body)
  const [first] = results
  expect(first).toContain("Edit applied successfully.\n\nDiagnostics pending: the typescript language server is not ready yet")
  expect(first).not.toContain("ERROR")
  const late = results.find((t) => t.includes("Late diagnostics"))
  expect(late).toContain("Late diagnostics from the typescript language server, for a.ts as an earlier tool wrote it:")
  expect(late).toContain("ERROR [1:14] Type 'string' is not assignable to type 'number'.")
  const last = results.at(-1)!
  expect(last).toContain("Edit applied successfully.\n\nLSP errors detected in this file, please fix:")
  expect(last).toContain("ERROR [2:14] Type 'string' is not assignable to type 'number'.")
}, 240_000)
