import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { listTool, runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

function put(root: string, rel: string) {
  const file = path.join(root, rel)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, "x")
}

describe("list", () => {
  test("list - a tree of the directory, heavy folders and .gitignore'd files skipped", async () => {
    const ctx = toolContext()
    const d = ctx.directory
    for (const f of ["src/a.ts", "src/lib/b.ts", "README.md", ".env", ".gitignore"]) put(d, f)
    writeFileSync(path.join(d, ".gitignore"), "secret/\n")
    for (const f of ["node_modules/x/index.js", ".git/HEAD", "dist/out.js", "build/o", "target/t", "vendor/v", "__pycache__/p", ".venv/bin/py", "secret/s"]) {
      put(d, f)
    }
    const result = await runTool(listTool, {}, ctx)
    expect(result.output).toBe([`${d}/`, "  src/", "    lib/", "      b.ts", "    a.ts", "  .env", "  .gitignore", "  README.md"].join("\n"))
    expect(result.metadata).toMatchObject({ count: 5, truncated: false })
    expect(ctx.asks).toEqual([{ permission: "list", patterns: [d], always: ["*"], metadata: { path: d } }])
  })

  test("list - ignore patterns and a subdirectory path", async () => {
    const ctx = toolContext()
    for (const f of ["pkg/a.ts", "pkg/a.log", "pkg/fixtures/f.json"]) put(ctx.directory, f)
    const result = await runTool(listTool, { path: "pkg", ignore: ["*.log", "fixtures/"] }, ctx)
    expect(result.output).toBe(`${path.join(ctx.directory, "pkg")}/\n  a.ts`)
    expect(result.title).toBe("pkg")
  })

  test("list - at most 100 files with a note", async () => {
    const ctx = toolContext()
    for (let i = 0; i < 130; i++) put(ctx.directory, `f${String(i).padStart(3, "0")}.txt`)
    const result = await runTool(listTool, {}, ctx)
    expect(result.output.match(/^ {2}f\d+\.txt$/gm)).toHaveLength(100)
    expect(result.output).toContain("(Showing the first 100 files.")
    expect(result.metadata).toMatchObject({ count: 100, truncated: true })
  })

  test("list - a file or missing path is an error; invalid arguments are explained", async () => {
    const ctx = toolContext()
    put(ctx.directory, "a.txt")
    await expect(runTool(listTool, { path: "a.txt" }, ctx)).rejects.toThrow(/must be a directory/)
    await expect(runTool(listTool, { path: "nope" }, ctx)).rejects.toThrow(/Directory not found/)
    await expect(runTool(listTool, { ignore: "*.log" }, ctx)).rejects.toThrow(/The list tool was called with invalid arguments: ignore/)
  })

  test("list - a directory outside the project asks external_directory first", async () => {
    const root = tempDir()
    const dir = path.join(root, "project")
    mkdirSync(dir)
    put(root, "outside/x.txt")
    const ctx = toolContext({ directory: dir })
    const result = await runTool(listTool, { path: "../outside" }, ctx)
    expect(result.output).toContain("  x.txt")
    expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "list"])
    expect(ctx.asks[0]!.patterns).toEqual([`${path.join(root, "outside")}/*`])
  })
})
