// Language servers in an untrusted folder run inside the App's sandbox (real bwrap), without
// network. With `external_directory: deny` the sandbox hides everything outside the project;
// the server's own install (here this repository's node_modules, reached through a symlink) and
// Node must stay readable, or the server could not start at all.
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { createCodeIntel, type CodeIntel } from "../../src/lsp"
import { createExec, resolveSandbox, type Sandbox } from "../../src/process"
import { tempDir } from "../lib/tool-context"

const open: { intel: CodeIntel; box: Sandbox }[] = []
afterEach(async () => {
  for (const { intel, box } of open.splice(0)) {
    await intel.shutdown()
    if (box.state === "on") box.dispose()
  }
})

async function lateNotes(intel: CodeIntel): Promise<string> {
  let notes = ""
  for (let i = 0; i < 600 && !notes; i++) {
    notes = intel.takeLate("")
    if (!notes) await new Promise((r) => setTimeout(r, 100))
  }
  return notes
}

test("lsp sandbox - untrusted, with reads outside the project denied, the sandboxed server still starts and reports the error", async () => {
  const dir = tempDir("wright-lsp-sbx-")
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, lib: ["es2022"], types: [], noEmit: true } }))
  writeFileSync(path.join(dir, "a.ts"), 'export const n: number = "x"\n')
  const env = { PATH: `${path.resolve("node_modules/.bin")}:${process.env.PATH}`, HOME: process.env.HOME }
  const box = await resolveSandbox({ config: {}, worktree: dir, directory: dir, env, home: process.env.HOME!, restrictReads: true })
  expect(box.state).toBe("on")
  const intel = createCodeIntel({ config: { formatter: false, lsp: { timeout: 60_000 } } as Record<string, unknown>, exec: createExec({ env }), directory: dir, env, trusted: false, sandbox: box, publish: () => {} })
  open.push({ intel, box })
  const out = await intel.afterWrite([path.join(dir, "a.ts")])
  expect(out).toContain("run in wright's sandbox without network")
  expect(out).toContain("Diagnostics pending: the typescript language server is not ready yet")
  const notes = await lateNotes(intel)
  expect(notes).toContain("ERROR [1:14] Type 'string' is not assignable to type 'number'.")
  // Still up seconds later: a server told wright's pid (which its PID namespace cannot see) exits within ~3 s.
  await new Promise((r) => setTimeout(r, 4500))
  expect(intel.status()).toEqual([expect.objectContaining({ id: "typescript", status: "connected", sandboxed: true })])
  expect(await intel.afterWrite([path.join(dir, "a.ts")])).toContain("ERROR [1:14] Type 'string' is not assignable to type 'number'.")
}, 90_000)

test("lsp sandbox - pyright runs sandboxed too, reads denied outside the project, and reports the error", async () => {
  const dir = tempDir("wright-lsp-sbx-")
  writeFileSync(path.join(dir, "pyproject.toml"), "[project]\nname = 'x'\n")
  writeFileSync(path.join(dir, "m.py"), 'def f(x: int) -> int:\n    return x\n\nf("one")\n')
  const env = { PATH: `${path.resolve("node_modules/.bin")}:${process.env.PATH}`, HOME: process.env.HOME }
  const box = await resolveSandbox({ config: {}, worktree: dir, directory: dir, env, home: process.env.HOME!, restrictReads: true })
  const intel = createCodeIntel({ config: { formatter: false, lsp: { timeout: 60_000 } } as Record<string, unknown>, exec: createExec({ env }), directory: dir, env, trusted: false, sandbox: box, publish: () => {} })
  open.push({ intel, box })
  expect(await intel.afterWrite([path.join(dir, "m.py")])).toContain("Diagnostics pending: the pyright language server is not ready yet")
  expect(await lateNotes(intel)).toMatch(/ERROR \[4:3\] Argument of type "Literal\['one'\]" cannot be assigned to parameter "x"/)
  expect(intel.status()).toEqual([expect.objectContaining({ id: "pyright", status: "connected", sandboxed: true })])
}, 90_000)
