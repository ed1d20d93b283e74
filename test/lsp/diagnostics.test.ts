// Diagnostics after a write, with the real servers: typescript-language-server (+ typescript)
// and pyright from node_modules/.bin, and two broken stubs; edits through the real edit tool
// and file writer. A write never waits for a server that is not warm: the first edit's result
// says diagnostics are pending, and the server's report reaches the session's next tool result
// (takeLate, which the tool pipeline appends there). Later edits wait for the warm server.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
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
  const starts = () => (existsSync(env.STUB_LOG) ? readFileSync(env.STUB_LOG, "utf8").trim().split("\n").length : 0)
  /** The late reports that the session's next tool result would carry, once there are any. */
  const late = async (ms = 120_000) => {
    const deadline = Date.now() + ms
    for (;;) {
      const notes = intel.takeLate(ctx.sessionID)
      if (notes || Date.now() > deadline) return notes
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { dir, ctx, intel, events, starts, late }
}

const SLOW_MACHINE = { lsp: { timeout: 120_000 } }
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: "es2022", lib: ["es2022"], types: [], noEmit: true } })

test("lsp - a TypeScript edit that introduces a type error gets it in its result, and the fix clears it", async () => {
  const { dir, ctx, events, intel, late } = project({ "tsconfig.json": TSCONFIG, "a.ts": "export const n: number = 1\n" }, SLOW_MACHINE)
  const file = path.join(dir, "a.ts")
  // Cold: the edit returns without waiting; the error comes late, to the next tool result and the bus.
  const bad = await editTool.execute({ filePath: file, oldString: "= 1", newString: '= "one"' }, ctx)
  expect(bad.output).toContain("Edit applied successfully.\n\nDiagnostics pending: the typescript language server is not ready yet")
  expect(bad.output).not.toContain("ERROR")
  const notes = await late()
  expect(notes).toContain(`Late diagnostics from the typescript language server, for a.ts as an earlier tool wrote it:\n\nLSP errors detected in a.ts, please fix:\n<diagnostics file="${file}">\n`)
  expect(notes).toMatch(/\nERROR \[1:14\] Type 'string' is not assignable to type 'number'\.\n<\/diagnostics>$/)
  expect(events).toContainEqual({ type: "lsp.diagnostics", properties: { file, errors: 1, warnings: 0 } })
  expect(intel.status()).toEqual([{ id: "typescript", name: "typescript", root: ".", status: "connected" }])

  // Warm: the edit waits for the report.
  const fixed = await editTool.execute({ filePath: file, oldString: '= "one"', newString: "= 2" }, ctx)
  expect(fixed.output).toBe("Edit applied successfully.")
  expect(events.at(-1)).toEqual({ type: "lsp.diagnostics", properties: { file, errors: 0, warnings: 0 } })
  const again = await editTool.execute({ filePath: file, oldString: "= 2", newString: '= "two"' }, ctx)
  expect(again.output).toMatch(/^Edit applied successfully\.\n\nLSP errors detected in this file, please fix:\n<diagnostics file="[^"]+">\nERROR \[1:14\] Type 'string' is not assignable to type 'number'\.\n<\/diagnostics>$/)
  expect(intel.takeLate(ctx.sessionID)).toBe("")
}, 240_000)

test("lsp - Python: pyright reports the type error, and the fix clears it", async () => {
  const { dir, ctx, late } = project({ "pyproject.toml": "[project]\nname = 'x'\n", "m.py": "def f(x: int) -> int:\n    return x\n\nf(1)\n" }, SLOW_MACHINE)
  const file = path.join(dir, "m.py")
  const bad = await editTool.execute({ filePath: file, oldString: "f(1)", newString: 'f("one")' }, ctx)
  expect(bad.output).toContain("Diagnostics pending: the pyright language server is not ready yet")
  const notes = await late()
  expect(notes).toContain("LSP errors detected in m.py, please fix:")
  expect(notes).toMatch(/ERROR \[4:3\] Argument of type "Literal\['one'\]" cannot be assigned to parameter "x"/)
  const fixed = await editTool.execute({ filePath: file, oldString: 'f("one")', newString: "f(2)" }, ctx)
  expect(fixed.output).toBe("Edit applied successfully.")
}, 240_000)

test("lsp - a server that crashes is restarted once, then disabled with a notice; edits go on", async () => {
  const config = { lsp: { timeout: 2000, stub: { command: ["node", STUB, "crash"], extensions: [".stub"] } } }
  const { dir, ctx, starts, intel, late } = project({ "a.stub": "one\n" }, config)
  const file = path.join(dir, "a.stub")
  const first = await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  expect(readFileSync(file, "utf8")).toBe("two\n")
  expect(first.output).toContain("Diagnostics pending: the stub language server is not ready yet")
  const notes = await late()
  expect(notes).toContain("The stub language server failed twice")
  expect(notes).toContain("disabled for this session")
  expect(starts()).toBe(2)
  expect(intel.status()).toEqual([expect.objectContaining({ id: "stub", status: "error" })])

  // Disabled: not started again, and the notice is not repeated.
  const second = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(second.output).toBe("Edit applied successfully.")
  expect(starts()).toBe(2)
}, 60_000)

test("lsp - a server that never answers does not hold the edit, and is given up after a second hang", async () => {
  const config = { lsp: { timeout: 1500, stub: { command: ["node", STUB, "hang"], extensions: [".stub"] } } }
  const { dir, ctx, starts, late } = project({ "a.stub": "one\n" }, config, 2500)
  const file = path.join(dir, "a.stub")
  const first = await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  expect(first.output).toContain("Diagnostics pending: the stub language server is not ready yet")
  expect(readFileSync(file, "utf8")).toBe("two\n")

  // The hung start is killed at startTimeout, restarted once, and after the second hang disabled.
  expect(await late()).toContain("The stub language server failed twice (did not answer initialize within 2500 ms)")
  expect(starts()).toBe(2)
  const later = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(later.output).toBe("Edit applied successfully.")
  expect(starts()).toBe(2)
}, 60_000)

test("lsp - a server that crashes after starting costs the edits nothing, and is given up after the second crash", async () => {
  const config = { lsp: { timeout: 3000, stub: { command: ["node", STUB, "crash-after-init"], extensions: [".stub"] } } }
  const { dir, ctx, starts, late, intel } = project({ "a.stub": "one\n" }, config)
  const file = path.join(dir, "a.stub")
  const first = await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  expect(first.output).toContain("Edit applied successfully.\n\nDiagnostics pending")
  // It crashed on the file and was restarted once (the restart is up, not yet given a file).
  for (let i = 0; i < 100 && !(starts() === 2 && intel.status()[0]?.status === "connected"); i++) await new Promise((r) => setTimeout(r, 100))
  const second = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(second.output).toContain("Edit applied successfully.")
  expect(await late()).toContain("The stub language server failed twice (the server exited)")
  expect(starts()).toBe(2)
}, 60_000)

test("lsp - a warm server is waited for only a few times as long as its recent answers took; a slower report comes late", async () => {
  // lsp.timeout is a minute: only the bound from the server's recent answers can end the third edit's wait.
  // The third report comes 12 s late, far past four times the first answers even on a loaded machine.
  const config = { lsp: { timeout: 60_000, stub: { command: ["node", STUB, "slow-third", "12000"], extensions: [".stub"] } } }
  const { dir, ctx, late, intel } = project({ "a.stub": "one\n" }, config)
  const file = path.join(dir, "a.stub")
  await editTool.execute({ filePath: file, oldString: "one", newString: "two" }, ctx)
  expect(await late()).toContain("stub error in version 0")
  const second = await editTool.execute({ filePath: file, oldString: "two", newString: "three" }, ctx)
  expect(second.output).toContain("ERROR [1:1] stub error in version 1")
  const third = await editTool.execute({ filePath: file, oldString: "three", newString: "four" }, ctx)
  expect(third.output).toContain("Diagnostics pending: the stub language server did not report on a.stub in time")
  expect(third.output).not.toContain("version 2")
  expect(await late()).toMatch(/Late diagnostics from the stub language server, for a.stub as an earlier tool wrote it:[\s\S]*ERROR \[1:1\] stub error in version 2/)
  expect(intel.status()).toEqual([expect.objectContaining({ id: "stub", status: "connected" })])
}, 45_000)

test("lsp - lsp: false starts nothing", async () => {
  const { dir, ctx, intel } = project({ "tsconfig.json": TSCONFIG, "a.ts": "export const n: number = 1\n" }, { lsp: false })
  const out = await editTool.execute({ filePath: path.join(dir, "a.ts"), oldString: "= 1", newString: '= "one"' }, ctx)
  expect(out.output).toBe("Edit applied successfully.")
  expect(intel.manager.clients()).toEqual([])
})
