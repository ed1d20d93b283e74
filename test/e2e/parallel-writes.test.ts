// Models often send several write calls in one step, and the session runs them at once.
// `wright run` (the built binary) with the scripted model sending, in one reply, many writes and
// edits (or, for a GPT-family model, many apply_patch calls) that all create files in the same
// new nested folders: every call must succeed and every file land.
import Database from "better-sqlite3"
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCalls, type ToolCallReply } from "../lib/llm-server"
import { providerConfig, sandbox, type Sandbox, storedParts, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

async function runOneStep(box: Sandbox, calls: ToolCallReply[]) {
  server.script(toolCalls(calls), text("Created the feature."))
  const r = await wright(["run", "--auto", "create the feature"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Created the feature.")
  const db = new Database(box.dbPath, { readonly: true })
  const tools = storedParts(db).filter((p) => p.type === "tool")
  db.close()
  // Every call succeeded, and the model read a success for each in its next request.
  expect(tools.map((p) => [p.tool, p.state.status, p.state.error])).toEqual(calls.map((c) => [c.name, "completed", undefined]))
  const results = (server.requests[1]!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool")
  expect(results).toHaveLength(calls.length)
  expect(results.filter((m) => !/^(Wrote file successfully|Edit applied successfully|Success)\./.test(m.content))).toEqual([])
}

test("run parallel writes - eight writes and two edits in one step create one new tree; none fails", async () => {
  const box = sandbox()
  // No language server: this is about the writes, not diagnostics.
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), lsp: false })
  const calls: ToolCallReply[] = [
    ...[...Array(8).keys()].map((i) => ({ name: "write", input: { filePath: `src/feature/deep/f${i}.ts`, content: `export const f${i} = ${i}\n` } })),
    ...[0, 1].map((i) => ({ name: "edit", input: { filePath: `src/feature/deep/e${i}.ts`, oldString: "", newString: `export const e${i} = 1\n` } })),
  ]
  await runOneStep(box, calls)
  const dir = path.join(box.project, "src/feature/deep")
  expect(readdirSync(dir).sort()).toEqual([...[...Array(8).keys()].map((i) => `f${i}.ts`), "e0.ts", "e1.ts"].sort())
  expect(readFileSync(path.join(dir, "f5.ts"), "utf8")).toBe("export const f5 = 5\n")
  expect(readFileSync(path.join(dir, "e1.ts"), "utf8")).toBe("export const e1 = 1\n")
})

test("run parallel writes - a GPT-family model's six apply_patch calls in one step add files under the same new folders", async () => {
  const box = sandbox()
  const config = providerConfig(server, "openai-chat")
  config.model = "fake/gpt-5-test"
  ;(config.provider as any).fake.models = { "gpt-5-test": { limit: { context: 200_000, output: 8_000 } } }
  writeConfig(box.project, { ...config, lsp: false })
  const patch = (i: number) =>
    ["*** Begin Patch", `*** Add File: lib/a/b/p${i}.py`, `+P${i} = ${i}`, `*** Add File: lib/a/c${i % 2}/q${i}.py`, `+Q = ${i}`, "*** End Patch"].join("\n")
  await runOneStep(box, [...Array(6).keys()].map((i) => ({ name: "apply_patch", input: { patchText: patch(i) } })))
  expect(readdirSync(path.join(box.project, "lib/a/b")).sort()).toEqual([...Array(6).keys()].map((i) => `p${i}.py`))
  expect(readFileSync(path.join(box.project, "lib/a/c1/q5.py"), "utf8")).toBe("Q = 5\n")
})
