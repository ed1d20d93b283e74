import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { editTool, runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

describe("edit", () => {
  test("edit - replaces a unique match, reports a diff and asks edit with the relative path", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "src/app.ts")
    mkdirSync(path.dirname(file))
    writeFileSync(file, "const a = 1\nconst b = 2\n")
    const result = await runTool(editTool, { filePath: "src/app.ts", oldString: "const b = 2", newString: "const b = 3" }, ctx)
    expect(readFileSync(file, "utf8")).toBe("const a = 1\nconst b = 3\n")
    expect(result.output).toBe("Edit applied successfully.")
    expect(result.title).toBe("src/app.ts")
    expect(result.metadata).toMatchObject({ filepath: file, additions: 1, deletions: 1 })
    expect(result.metadata.diff).toMatch(/-const b = 2\n\+const b = 3/)
    expect(ctx.asks).toEqual([
      { permission: "edit", patterns: ["src/app.ts"], always: ["*"], metadata: { filepath: file, diff: result.metadata.diff } },
    ])
  })

  test("edit - a CRLF file stays CRLF after a multi-line edit (bytes on disk)", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "win.txt")
    writeFileSync(file, "one\r\ntwo\r\nthree\r\n")
    await runTool(editTool, { filePath: "win.txt", oldString: "one\ntwo", newString: "uno\ndos\nplus" }, ctx)
    expect(readFileSync(file).toString("binary")).toBe("uno\r\ndos\r\nplus\r\nthree\r\n")
  })

  test("edit - a BOM is kept (bytes on disk)", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "bom.txt")
    writeFileSync(file, Buffer.concat([BOM, Buffer.from("hello world\n")]))
    await runTool(editTool, { filePath: "bom.txt", oldString: "hello", newString: "goodbye" }, ctx)
    expect(readFileSync(file).equals(Buffer.concat([BOM, Buffer.from("goodbye world\n")]))).toBe(true)
  })

  test("edit - an ambiguous oldString is refused with the multiple-matches error and the file is unchanged", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "dup.ts")
    writeFileSync(file, "x = 1\ny = 2\nx = 1\n")
    await expect(runTool(editTool, { filePath: "dup.ts", oldString: "x = 1", newString: "x = 9" }, ctx)).rejects.toThrow(
      /Found 2 matches for oldString: line 1, line 3\. Nothing was changed\. Add more surrounding lines[\s\S]*replaceAll/,
    )
    expect(readFileSync(file, "utf8")).toBe("x = 1\ny = 2\nx = 1\n")
    expect(ctx.asks).toEqual([])

    await runTool(editTool, { filePath: "dup.ts", oldString: "x = 1", newString: "x = 9", replaceAll: true }, ctx)
    expect(readFileSync(file, "utf8")).toBe("x = 9\ny = 2\nx = 9\n")
  })

  test("edit - an oldString that is not in the file says so, and the file is unchanged", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "a.ts")
    writeFileSync(file, "alpha\n")
    await expect(runTool(editTool, { filePath: "a.ts", oldString: "omega", newString: "x" }, ctx)).rejects.toThrow(
      /could not find oldString/i,
    )
    expect(readFileSync(file, "utf8")).toBe("alpha\n")
  })

  test("edit - 20 parallel edits of one file are all applied", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "counters.txt")
    writeFileSync(file, Array.from({ length: 20 }, (_, i) => `k${i}=old`).join("\n") + "\n")
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => runTool(editTool, { filePath: "counters.txt", oldString: `k${i}=old`, newString: `k${i}=new` }, ctx)),
    )
    expect(readFileSync(file, "utf8")).toBe(Array.from({ length: 20 }, (_, i) => `k${i}=new`).join("\n") + "\n")
  })

  test("edit - an empty oldString creates a new file; a missing file otherwise is an error", async () => {
    const ctx = toolContext()
    await runTool(editTool, { filePath: "new/file.ts", oldString: "", newString: "export {}\n" }, ctx)
    expect(readFileSync(path.join(ctx.directory, "new/file.ts"), "utf8")).toBe("export {}\n")
    await expect(runTool(editTool, { filePath: "missing.ts", oldString: "a", newString: "b" }, ctx)).rejects.toThrow(
      /File not found: .*missing\.ts[\s\S]*empty oldString/,
    )
    expect(existsSync(path.join(ctx.directory, "missing.ts"))).toBe(false)
    await expect(runTool(editTool, { filePath: "new/file.ts", oldString: "", newString: "clobber" }, ctx)).rejects.toThrow(
      /oldString is empty/,
    )
    expect(readFileSync(path.join(ctx.directory, "new/file.ts"), "utf8")).toBe("export {}\n")
  })

  test("edit - identical oldString and newString is refused", async () => {
    const ctx = toolContext()
    writeFileSync(path.join(ctx.directory, "a.ts"), "same\n")
    await expect(runTool(editTool, { filePath: "a.ts", oldString: "same", newString: "same" }, ctx)).rejects.toThrow(/no change/i)
  })

  test("edit - invalid arguments get the rewrite-your-input message", async () => {
    const ctx = toolContext()
    await expect(runTool(editTool, { filePath: "a.ts", oldString: "a" }, ctx)).rejects.toThrow(
      /The edit tool was called with invalid arguments: newString: .*\nPlease rewrite the input/,
    )
  })

  describe("outside the project", () => {
    function setup(reject: boolean) {
      const root = tempDir()
      const project = path.join(root, "project")
      const outside = path.join(root, "outside")
      mkdirSync(project)
      mkdirSync(outside)
      const target = path.join(outside, "t.txt")
      writeFileSync(target, "before\n")
      const ctx = toolContext({
        directory: project,
        decide: (req) => {
          if (reject && req.permission === "external_directory") throw new Error("The user rejected permission to use this specific tool call.")
        },
      })
      symlinkSync(target, path.join(project, "link.txt"))
      return { ctx, outside, target }
    }

    test("edit - ../, absolute and symlinked paths ask external_directory before edit", async () => {
      const { ctx, outside, target } = setup(false)
      const steps: [string, string, string][] = [
        ["../outside/t.txt", "before", "one"],
        [target, "one", "two"],
        ["link.txt", "two", "three"],
      ]
      for (const [filePath, oldString, newString] of steps) {
        ctx.asks.length = 0
        await runTool(editTool, { filePath, oldString, newString }, ctx)
        expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "edit"])
        expect(ctx.asks[0]).toMatchObject({ patterns: [`${outside}/*`], always: [`${outside}/*`] })
      }
      expect(readFileSync(target, "utf8")).toBe("three\n")
    })

    test("edit - a rejected external_directory ask leaves the file untouched", async () => {
      const { ctx, target } = setup(true)
      for (const filePath of ["../outside/t.txt", target, "link.txt"]) {
        await expect(runTool(editTool, { filePath, oldString: "before", newString: "after" }, ctx)).rejects.toThrow(/rejected/)
      }
      expect(readFileSync(target, "utf8")).toBe("before\n")
      expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "external_directory", "external_directory"])
    })
  })

  test("edit - a stale oldString with a loop on one line, where the file has it on three, is refused and the file is untouched", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "total.js")
    const text = ["function total(items) {", "  let sum = 0", "  for (const item of items) {", "    sum += item.price", "  }", "  return sum", "}", ""].join("\n")
    writeFileSync(file, text)
    // A version read before the loop was reformatted (and two lines were dropped): as many lines
    // as the file, so the loop's body once paired with the next statement and was replaced by it.
    const oldString = ["function total(items) {", "  let sum = 0", "  for (const item of items) { sum += item.price }", "  const tax = sum * 0.2", "  log(sum)", "  return sum", "}"].join("\n")
    const error = await runTool(editTool, { filePath: "total.js", oldString, newString: oldString.replace("sum * 0.2", "sum * 0.25") }, ctx).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).toContain('oldString\'s line "for (const item of items) { sum += item.price }" matches no single line of the file')
    expect(error?.message).toContain("cannot be aligned with the file line for line")
    expect(error?.message).toContain("3:   for (const item of items) {\n4:     sum += item.price\n5:   }")
    expect(readFileSync(file, "utf8")).toBe(text)
    expect(ctx.asks).toEqual([])
  })
})
