// Diagnostics after a write, with the real servers: typescript-language-server (+ typescript)
// and pyright from node_modules/.bin, and two broken stubs; edits through the real edit tool
// and file writer. The real servers get a long lsp.timeout: this machine is shared and a cold
// tsserver can take many seconds here; the bound itself is tested with the stubs.
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { createCodeIntel, type CodeIntel } from "../../src/lsp"
import { createExec } from "../../src/process"
import { createFileService, editTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const BIN = path.resolve("node_modules/.bin")
const STUB = path.resolve("test/lsp/fixtures/stub-server.mjs")
const open: CodeIntel[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.shutdown()))
})

function project(files: Record<string, string>, config: Record<string, unknown> = {}, startTimeout?: number) {
  const dir = tempDir("wright-lsp-")
  const env = { PATH: `${BIN}:${process.env.PATH}`, HOME: process.env.HOME, STUB_LOG: path.join(dir, "starts.log") }
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  const events: { type: string; properties: unknown }[] = []
  const intel = createCodeIntel({ config, exec: createExec({ env, killGrace: 200 }), directory: dir, env, trusted: true, publish: (e) => events.push(e), startTimeout })
  open.push(intel)
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  const starts = () => readFileSync(env.STUB_LOG, "utf8").trim().split("\n").length
  return { dir, ctx, intel, events, starts }
}

const SLOW_MACHINE = { lsp: { timeout: 120_000 } }
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: "es2022", lib: ["es2022"], types: [], noEmit: true } })

test("lsp - a TypeScript edit that introduces a type error gets it in its result, and the fix clears it", async () => {
  const { dir, ctx, events, intel } = project({ "tsconfig.json": TSCONFIG, "a.ts": "export const n: number = 1\n" }, SLOW_MACHINE)
  const file = path.join(dir, "a.ts")
  const bad = await editTool.execute({ filePath: file, oldString: "= 1", newString: '= "one"' }, ctx)
  expect(bad.output).toContain(`Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file="${file}">\n`)
  expect(bad.output).toMatch(/\nERROR \[1:14\] Type 'string' is not assignable to type 'number'\.\n<\/diagnostics>$/)
  expect(events).toContainEqual({ type: "lsp.diagnostics", properties: { file, errors: 1, warnings: 0 } })
  expect(intel.status()).toEqual([{ id: "typescript", name: "typescript", root: ".", status: "connected" }])

  const fixed = await editTool.execute({ filePath: file, oldString: '= "one"', newString: "= 2" }, ctx)
  expect(fixed.output).toBe("Edit applied successfully.")
  expect(events.at(-1)).toEqual({ type: "lsp.diagnostics", properties: { file, errors: 0, warnings: 0 } })
}, 240_000)

test("lsp - Python: pyright reports the type error, and the fix clears it", async () => {
  const { dir, ctx } = project({ "pyproject.toml": "[project]\nname = 'x'\n", "m.py": "def f(x: int) -> int:\n    return x\n\nf(1)\n" }, SLOW_MACHINE)
  const file = path.join(dir, "m.py")
  const bad = await editTool.execute({ filePath: file, oldString: "f(1)", newString: 'f("one")' }, ctx)
  expect(bad.output).toContain("LSP errors detected in this file, please fix:")
  expect(bad.output).toMatch(/ERROR \[4:3\] Argument of type "Literal\['one'\]" cannot be assigned to parameter "x"/)
  const fixed = await editTool.execute({ filePath: file, oldString: 'f("one")', newString: "f(2)" }, ctx)
  expect(fixed.output).toBe("Edit applied successfully.")
}, 240_000)

test("lsp - a server that crashes is restarted once, then disabled with a notice; edits go on", async () => {
  const config = { lsp: { timeout: 2000, stub: { command: ["node", STUB, "crash"], extensions: [".stub"] } } }
  const { dir, ctx, starts, intel } = project({ "a.stub": "one\n" }, config)
  const file = path.join(dir, "a.stub")
  const first = await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  expect(readFileSync(file, "utf8")).toBe("two\n")
  expect(first.output).toContain("The stub language server failed twice")
  expect(first.output).toContain("disabled for this session")
  expect(starts()).toBe(2)
  expect(intel.status()).toEqual([expect.objectContaining({ id: "stub", status: "error" })])

  // Disabled: not started again, and the notice is not repeated.
  const second = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(second.output).toBe("Edit applied successfully.")
  expect(starts()).toBe(2)
}, 60_000)

test("lsp - a server that never answers does not hold the edit beyond lsp.timeout, and is given up after a second hang", async () => {
  const config = { lsp: { timeout: 1500, stub: { command: ["node", STUB, "hang"], extensions: [".stub"] } } }
  const { dir, ctx, starts } = project({ "a.stub": "one\n" }, config, 2500)
  const file = path.join(dir, "a.stub")
  const t0 = Date.now()
  const first = await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  const waited = Date.now() - t0
  expect(first.output).toContain("The stub language server did not report on a.stub within 1500 ms (lsp.timeout)")
  expect(waited).toBeLessThan(1500 + 2000)
  expect(readFileSync(file, "utf8")).toBe("two\n")

  // The hung start is killed at startTimeout, restarted once, and after the second hang disabled.
  await new Promise((r) => setTimeout(r, 6000))
  const later = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(starts()).toBe(2)
  expect(later.output).toContain("The stub language server failed twice (did not answer initialize within 2500 ms)")
}, 60_000)

test("lsp - a server that crashes after starting costs the edit nothing beyond the bound", async () => {
  const config = { lsp: { timeout: 3000, stub: { command: ["node", STUB, "crash-after-init"], extensions: [".stub"] } } }
  const { dir, ctx, starts } = project({ "a.stub": "one\n" }, config)
  const file = path.join(dir, "a.stub")
  const t0 = Date.now()
  const first = await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  expect(Date.now() - t0).toBeLessThan(3000 + 2000)
  expect(first.output).toContain("Edit applied successfully.")
  const second = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(starts()).toBe(2)
  expect(second.output).toContain("The stub language server failed twice (the server exited)")
}, 60_000)

test("lsp - lsp: false starts nothing", async () => {
  const { dir, ctx, intel } = project({ "tsconfig.json": TSCONFIG, "a.ts": "export const n: number = 1\n" }, { lsp: false })
  const out = await editTool.execute({ filePath: path.join(dir, "a.ts"), oldString: "= 1", newString: '= "one"' }, ctx)
  expect(out.output).toBe("Edit applied successfully.")
  expect(intel.manager.clients()).toEqual([])
})
