import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { runTool, writeTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

describe("write", () => {
  test("write - creates missing directories, reports a diff and asks edit with the relative path", async () => {
    const ctx = toolContext()
    const result = await runTool(writeTool, { filePath: "deep/er/new.txt", content: "one\ntwo\n" }, ctx)
    const file = path.join(ctx.directory, "deep/er/new.txt")
    expect(readFileSync(file, "utf8")).toBe("one\ntwo\n")
    expect(result.output).toBe("Wrote file successfully.")
    expect(result.title).toBe("deep/er/new.txt")
    expect(result.metadata).toMatchObject({ filepath: file, additions: 2, deletions: 0 })
    expect(result.metadata.diff).toContain("+one\n+two")
    expect(ctx.asks).toEqual([
      { permission: "edit", patterns: ["deep/er/new.txt"], always: ["*"], metadata: { filepath: file, diff: result.metadata.diff } },
    ])
  })

  test("write - overwriting reports what was removed and added", async () => {
    const ctx = toolContext()
    writeFileSync(path.join(ctx.directory, "a.txt"), "keep\nold\n")
    const result = await runTool(writeTool, { filePath: "a.txt", content: "keep\nnew\n" }, ctx)
    expect(result.metadata).toMatchObject({ additions: 1, deletions: 1 })
    expect(result.metadata.diff).toMatch(/-old\n\+new/)
  })

  test("write - an existing CRLF file keeps CRLF line endings (bytes on disk)", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "win.txt")
    writeFileSync(file, "a\r\nb\r\n")
    await runTool(writeTool, { filePath: "win.txt", content: "x\ny\nz\n" }, ctx)
    expect(readFileSync(file).toString("binary")).toBe("x\r\ny\r\nz\r\n")
  })

  test("write - an existing file keeps its BOM; a new file is written exactly as given", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "bom.txt")
    writeFileSync(file, Buffer.concat([BOM, Buffer.from("old\n")]))
    await runTool(writeTool, { filePath: "bom.txt", content: "new\n" }, ctx)
    expect(readFileSync(file).equals(Buffer.concat([BOM, Buffer.from("new\n")]))).toBe(true)

    await runTool(writeTool, { filePath: "plain.txt", content: "a\r\nb" }, ctx)
    expect(readFileSync(path.join(ctx.directory, "plain.txt")).toString("binary")).toBe("a\r\nb")
  })

  test("write - a directory path is refused", async () => {
    const ctx = toolContext()
    mkdirSync(path.join(ctx.directory, "d"))
    await expect(runTool(writeTool, { filePath: "d", content: "x" }, ctx)).rejects.toThrow(/is a directory/)
  })

  test("write - invalid arguments get the rewrite-your-input message", async () => {
    const ctx = toolContext()
    await expect(runTool(writeTool, { filePath: "a.txt" }, ctx)).rejects.toThrow(
      /The write tool was called with invalid arguments: content: .*\nPlease rewrite the input/,
    )
  })

  describe("outside the project", () => {
    function setup(reject: boolean) {
      const root = tempDir()
      const project = path.join(root, "project")
      const outside = path.join(root, "outside")
      mkdirSync(project)
      mkdirSync(outside)
      writeFileSync(path.join(outside, "kept.txt"), "original\n")
      const ctx = toolContext({
        directory: project,
        decide: (req) => {
          if (reject && req.permission === "external_directory") throw new Error("The user rejected permission to use this specific tool call.")
        },
      })
      return { ctx, project, outside }
    }

    test("write - ../, absolute and symlinked paths ask external_directory before edit", async () => {
      const { ctx, project, outside } = setup(false)
      symlinkSync(outside, path.join(project, "out-link"))
      const cases: [string, string][] = [
        ["../outside/a.txt", "a.txt"],
        [path.join(outside, "b.txt"), "b.txt"],
        ["out-link/c.txt", "c.txt"],
      ]
      for (const [filePath, name] of cases) {
        ctx.asks.length = 0
        await runTool(writeTool, { filePath, content: name }, ctx)
        expect(readFileSync(path.join(outside, name), "utf8")).toBe(name)
        expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "edit"])
        expect(ctx.asks[0]).toMatchObject({ patterns: [`${outside}/*`], always: [`${outside}/*`] })
      }
    })

    test("write - a rejected external_directory ask leaves files untouched", async () => {
      const { ctx, project, outside } = setup(true)
      symlinkSync(path.join(outside, "kept.txt"), path.join(project, "kept-link.txt"))
      await expect(runTool(writeTool, { filePath: "../outside/new.txt", content: "x" }, ctx)).rejects.toThrow(/rejected/)
      await expect(runTool(writeTool, { filePath: "kept-link.txt", content: "x" }, ctx)).rejects.toThrow(/rejected/)
      expect(existsSync(path.join(outside, "new.txt"))).toBe(false)
      expect(readFileSync(path.join(outside, "kept.txt"), "utf8")).toBe("original\n")
      expect(ctx.asks.every((a) => a.permission === "external_directory")).toBe(true)
    })
  })
})
