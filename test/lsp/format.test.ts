// Formatters after a write, with the real prettier from node_modules/.bin: what changed is in
// the tool result, the next edit is made against the formatted text, and a failing formatter
// leaves the file as the tool wrote it.
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createCodeIntel } from "../../src/lsp"
import { createExec, resolveSandbox } from "../../src/process"
import { createFileService, editTool, writeTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const BIN = path.resolve("node_modules/.bin")
const env = { PATH: `${BIN}:${process.env.PATH}`, HOME: process.env.HOME }
const PKG = JSON.stringify({ name: "x", devDependencies: { prettier: "^3" } })

function project(files: Record<string, string>, config: Record<string, unknown> = {}) {
  const dir = tempDir("wright-format-")
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  const intel = createCodeIntel({ config: { lsp: false, ...config }, exec: createExec({ env }), directory: dir, env, trusted: true, publish: () => {} })
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  return { dir, ctx, intel }
}

test("format - prettier reformats a write, the result shows the changed lines, and the next edit matches the formatted text", async () => {
  const { dir, ctx, intel } = project({ "package.json": PKG })
  const file = path.join(dir, "a.ts")
  const out = await writeTool.execute({ filePath: file, content: "const x = {a:1,b:'two'}\nexport default x\n" }, ctx)
  expect(readFileSync(file, "utf8")).toBe('const x = { a: 1, b: "two" };\nexport default x;\n')
  expect(out.output).toContain("prettier reformatted a.ts after the write")
  expect(out.output).toContain('+const x = { a: 1, b: "two" };')
  expect(out.output).toContain("-const x = {a:1,b:'two'}")
  expect(intel.formatterStatus()).toContainEqual(expect.objectContaining({ name: "prettier", enabled: true }))

  const next = await editTool.execute({ filePath: file, oldString: 'b: "two"', newString: 'b: "three"' }, ctx)
  expect(next.output).toBe("Edit applied successfully.")
  expect(readFileSync(file, "utf8")).toBe('const x = { a: 1, b: "three" };\nexport default x;\n')
}, 120_000)

test("format - prettier is not used when the project does not depend on it", async () => {
  const { dir, ctx, intel } = project({ "package.json": JSON.stringify({ name: "x" }) })
  const file = path.join(dir, "a.ts")
  const out = await writeTool.execute({ filePath: file, content: "const x = {a:1}\n" }, ctx)
  expect(out.output).toBe("Wrote file successfully.")
  expect(readFileSync(file, "utf8")).toBe("const x = {a:1}\n")
  expect(intel.formatterStatus()).toContainEqual(expect.objectContaining({ name: "prettier", enabled: false }))
}, 60_000)

test("format - a failing formatter is reported and the file stays as written; formatter: false runs none", async () => {
  const broken = { formatter: { mangle: { command: ["sh", "-c", 'echo mangled > "$0"; echo "no good" >&2; exit 2', "$FILE"], extensions: [".txt"] } } }
  const { dir, ctx } = project({}, broken)
  const file = path.join(dir, "a.txt")
  const out = await writeTool.execute({ filePath: file, content: "as written\n" }, ctx)
  expect(out.output).toContain("The formatter mangle failed on a.txt (exit 2: no good); the file was kept as written.")
  expect(readFileSync(file, "utf8")).toBe("as written\n")

  const off = project({ "package.json": PKG }, { formatter: false })
  const plain = path.join(off.dir, "b.ts")
  const done = await writeTool.execute({ filePath: plain, content: "const x = {a:1}\n" }, off.ctx)
  expect(done.output).toBe("Wrote file successfully.")
  expect(readFileSync(plain, "utf8")).toBe("const x = {a:1}\n")
}, 60_000)

test("format - untrusted, prettier runs in the sandbox without network (reads outside the project denied) and still rewrites the file; with no sandbox it does not run", async () => {
  const dir = tempDir("wright-format-")
  writeFileSync(path.join(dir, "package.json"), PKG)
  const box = await resolveSandbox({ config: {}, worktree: dir, directory: dir, env, home: process.env.HOME!, restrictReads: true })
  try {
    const intel = createCodeIntel({ config: { lsp: false }, exec: createExec({ env }), directory: dir, env, trusted: false, sandbox: box, publish: () => {} })
    const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
    const out = await writeTool.execute({ filePath: path.join(dir, "a.ts"), content: "const x = {a:1}\n" }, ctx)
    expect(out.output).toContain("run in wright's sandbox without network")
    expect(out.output).toContain("prettier reformatted a.ts after the write")
    expect(readFileSync(path.join(dir, "a.ts"), "utf8")).toBe("const x = { a: 1 };\n")
  } finally {
    if (box.state === "on") box.dispose()
  }
  const off = createCodeIntel({ config: { lsp: false }, exec: createExec({ env }), directory: dir, env, trusted: false, sandbox: { state: "off" }, publish: () => {} })
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [off.afterWrite] }) })
  const out = await writeTool.execute({ filePath: path.join(dir, "b.ts"), content: "const y = {b:1}\n" }, ctx)
  expect(out.output).toContain("Language servers and formatters do not run: this folder is not trusted and the sandbox is off")
  expect(readFileSync(path.join(dir, "b.ts"), "utf8")).toBe("const y = {b:1}\n")
  expect(off.formatterStatus()).toContainEqual(expect.objectContaining({ name: "prettier", enabled: false }))
}, 120_000)
