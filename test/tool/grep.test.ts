import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { grepTool, runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

function put(root: string, rel: string, content: string) {
  const file = path.join(root, rel)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, content)
  return file
}

describe("grep", () => {
  test("grep - groups matches by file with line numbers, asks grep with the pattern", async () => {
    const ctx = toolContext()
    const a = put(ctx.directory, "src/a.ts", "const needle = 1\nother\nneedle()\n")
    const result = await runTool(grepTool, { pattern: "needle" }, ctx)
    expect(result.output).toBe(`Found 2 matches\n${a}:\n  Line 1: const needle = 1\n  Line 3: needle()`)
    expect(result.title).toBe("needle")
    expect(result.metadata).toMatchObject({ matches: 2, truncated: false })
    expect(ctx.asks).toEqual([
      { permission: "grep", patterns: ["needle"], always: ["*"], metadata: { pattern: "needle", path: ctx.directory, include: undefined } },
    ])
  })

  test("grep - honours .gitignore, searches hidden files, skips .git", async () => {
    const ctx = toolContext()
    const d = ctx.directory
    put(d, ".gitignore", "build/\n")
    const found = [put(d, "src/x.ts", "needle\n"), put(d, ".github/ci.yml", "needle\n"), put(d, ".env", "needle\n")]
    put(d, "build/out.js", "needle\n")
    put(d, ".git/config", "needle\n")
    const result = await runTool(grepTool, { pattern: "needle" }, ctx)
    const files = result.output.split("\n").filter((l) => l.endsWith(":"))
    expect(files.sort()).toEqual(found.map((f) => `${f}:`).sort())
  })

  test("grep - include limits the files searched; a file path searches that file", async () => {
    const ctx = toolContext()
    const ts = put(ctx.directory, "a.ts", "hit\n")
    put(ctx.directory, "b.js", "hit\n")
    const only = await runTool(grepTool, { pattern: "hit", include: "*.ts" }, ctx)
    expect(only.output).toBe(`Found 1 matches\n${ts}:\n  Line 1: hit`)
    const one = await runTool(grepTool, { pattern: "hit", path: "b.js" }, ctx)
    expect(one.output).toBe(`Found 1 matches\n${path.join(ctx.directory, "b.js")}:\n  Line 1: hit`)
  })

  test("grep - at most 100 matches with a truncation note", async () => {
    const ctx = toolContext()
    for (let i = 0; i < 3; i++) put(ctx.directory, `f${i}.txt`, Array.from({ length: 60 }, (_, j) => `match ${j}`).join("\n"))
    const result = await runTool(grepTool, { pattern: "match" }, ctx)
    expect(result.output.startsWith("Found 100 matches (more matches available)\n")).toBe(true)
    expect(result.output.match(/^ {2}Line \d+: /gm)).toHaveLength(100)
    expect(result.output).toContain("(Results are truncated: showing first 100 matches.")
    expect(result.metadata).toMatchObject({ matches: 100, truncated: true })
  })

  test("grep - no match, a bad regex and a missing path are reported", async () => {
    const ctx = toolContext()
    put(ctx.directory, "a.txt", "abc\n")
    expect((await runTool(grepTool, { pattern: "zzz" }, ctx)).output).toBe("No files found")
    await expect(runTool(grepTool, { pattern: "(unclosed" }, ctx)).rejects.toThrow(/ripgrep failed: .*regex/s)
    await expect(runTool(grepTool, { pattern: "a", path: "nope" }, ctx)).rejects.toThrow(/Search path not found: .*nope/)
    await expect(runTool(grepTool, { pattern: "" }, ctx)).rejects.toThrow(/The grep tool was called with invalid arguments: pattern/)
  })

  test("grep - a search path outside the project asks external_directory before grep", async () => {
    const root = tempDir()
    const dir = path.join(root, "project")
    const outside = path.join(root, "outside")
    mkdirSync(dir)
    const file = put(outside, "x.txt", "secret\n")
    const ctx = toolContext({ directory: dir })
    const result = await runTool(grepTool, { pattern: "secret", path: outside }, ctx)
    expect(result.output).toContain(`${file}:`)
    expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "grep"])
    expect(ctx.asks[0]).toMatchObject({ patterns: [`${outside}/*`], always: [`${outside}/*`] })
  })

  test("grep - an abort while ripgrep is still reading kills it and rejects", async () => {
    const ctx = toolContext()
    // A FIFO with no writer: rg blocks on it until it is killed.
    execFileSync("mkfifo", [path.join(ctx.directory, "pipe")])
    const run = runTool(grepTool, { pattern: "x", path: "pipe" }, ctx)
    setTimeout(() => ctx.controller.abort(new Error("Tool execution aborted")), 100)
    await expect(run).rejects.toThrow(/aborted/)
  })

})
