import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { globTool, runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

function put(root: string, rel: string, content = "x") {
  const file = path.join(root, rel)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, content)
  return file
}

describe("glob", () => {
  test("glob - honours .gitignore, finds hidden files, skips .git", async () => {
    const ctx = toolContext()
    const d = ctx.directory
    put(d, ".gitignore", "ignored/\n*.log\n")
    const kept = [put(d, "src/a.ts"), put(d, ".hidden/b.ts"), put(d, ".config.ts")]
    put(d, "ignored/c.ts")
    put(d, "debug.log")
    put(d, ".git/hooks/d.ts")
    const result = await runTool(globTool, { pattern: "**/*.ts" }, ctx)
    expect(result.output.split("\n").sort()).toEqual([...kept].sort())
    expect(result.metadata).toMatchObject({ count: 3, truncated: false })
    expect(ctx.asks).toEqual([{ permission: "glob", patterns: ["**/*.ts"], always: ["*"], metadata: { pattern: "**/*.ts", path: d } }])
  })

  test("glob - newest files first", async () => {
    const ctx = toolContext()
    const names = ["old.md", "new.md", "mid.md"]
    const times = [1_000_000, 3_000_000, 2_000_000]
    names.forEach((n, i) => utimesSync(put(ctx.directory, n), times[i]!, times[i]!))
    const result = await runTool(globTool, { pattern: "*.md" }, ctx)
    expect(result.output).toBe(["new.md", "mid.md", "old.md"].map((n) => path.join(ctx.directory, n)).join("\n"))
  })

  test("glob - at most 100 results with a truncation note", async () => {
    const ctx = toolContext()
    for (let i = 0; i < 150; i++) put(ctx.directory, `many/f${i}.txt`)
    const result = await runTool(globTool, { pattern: "*.txt", path: "many" }, ctx)
    const lines = result.output.split("\n")
    expect(lines.filter((l) => l.endsWith(".txt"))).toHaveLength(100)
    expect(result.output).toContain(
      "(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)",
    )
    expect(result.metadata).toMatchObject({ count: 100, truncated: true })
  })

  test("glob - no match, a file as path, and a missing path are reported", async () => {
    const ctx = toolContext()
    put(ctx.directory, "a.txt")
    expect((await runTool(globTool, { pattern: "*.rs" }, ctx)).output).toBe("No files found")
    await expect(runTool(globTool, { pattern: "*", path: "a.txt" }, ctx)).rejects.toThrow(/must be a directory/)
    await expect(runTool(globTool, { pattern: "*", path: "nope" }, ctx)).rejects.toThrow(/Directory not found: .*nope/)
    await expect(runTool(globTool, { path: "." }, ctx)).rejects.toThrow(/The glob tool was called with invalid arguments: pattern/)
  })

  test("glob - a search path outside the project asks external_directory first; rejection stops it", async () => {
    const root = tempDir()
    const dir = path.join(root, "project")
    const outside = path.join(root, "outside")
    mkdirSync(dir)
    put(outside, "x.ts")
    const ctx = toolContext({
      directory: dir,
      decide: (req) => {
        if (req.permission === "external_directory") throw new Error("rejected")
      },
    })
    await expect(runTool(globTool, { pattern: "*.ts", path: "../outside" }, ctx)).rejects.toThrow("rejected")
    expect(ctx.asks).toEqual([expect.objectContaining({ permission: "external_directory", patterns: [`${outside}/*`] })])
  })

  test("glob - an aborted call stops", async () => {
    const ctx = toolContext()
    put(ctx.directory, "a.ts")
    ctx.controller.abort(new Error("Tool execution aborted"))
    await expect(runTool(globTool, { pattern: "*.ts" }, ctx)).rejects.toThrow(/aborted/)
  })
})
