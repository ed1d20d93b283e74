import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { applyPatchTool, runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

function project() {
  const ctx = toolContext()
  const at = (rel: string) => path.join(ctx.directory, rel)
  mkdirSync(at("src"))
  writeFileSync(at("src/app.py"), "def greet():\n    print('hi')\n\ngreet()\n")
  writeFileSync(at("src/util.py"), "X = 1\n")
  writeFileSync(at("old.txt"), "obsolete\n")
  return { ctx, at }
}

const patch = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n")

describe("apply_patch", () => {
  test("apply_patch - adds, updates, moves and deletes in one call, with one edit ask", async () => {
    const { ctx, at } = project()
    const result = await runTool(
      applyPatchTool,
      {
        patchText: patch(
          "*** Add File: docs/hello.txt",
          "+Hello",
          "*** Update File: src/app.py",
          "@@ def greet():",
          "-    print('hi')",
          "+    print('hello')",
          "*** Update File: src/util.py",
          "*** Move to: src/consts.py",
          "@@",
          "-X = 1",
          "+X = 2",
          "*** Delete File: old.txt",
        ),
      },
      ctx,
    )
    expect(readFileSync(at("docs/hello.txt"), "utf8")).toBe("Hello\n")
    expect(readFileSync(at("src/app.py"), "utf8")).toBe("def greet():\n    print('hello')\n\ngreet()\n")
    expect(existsSync(at("src/util.py"))).toBe(false)
    expect(readFileSync(at("src/consts.py"), "utf8")).toBe("X = 2\n")
    expect(existsSync(at("old.txt"))).toBe(false)
    expect(result.output).toBe(
      "Success. Updated the following files:\nA docs/hello.txt\nM src/app.py\nM src/consts.py\nD old.txt",
    )
    expect(ctx.asks).toHaveLength(1)
    expect(ctx.asks[0]).toMatchObject({
      permission: "edit",
      patterns: ["docs/hello.txt", "src/app.py", "src/util.py", "src/consts.py", "old.txt"],
      always: ["*"],
    })
    expect(ctx.asks[0]!.metadata?.diff).toContain("+    print('hello')")
    expect(result.metadata.files).toHaveLength(4)
  })

  test("apply_patch - one failing hunk rejects the whole patch and no file changes on disk", async () => {
    const { ctx, at } = project()
    const before = ["src/app.py", "src/util.py", "old.txt"].map((f) => readFileSync(at(f), "utf8"))
    const run = runTool(
      applyPatchTool,
      {
        patchText: patch(
          "*** Add File: created.txt",
          "+new",
          "*** Update File: src/util.py",
          "@@",
          "-X = 1",
          "+X = 2",
          "*** Update File: src/app.py",
          "@@",
          "-    print('this line is not in the file')",
          "+    print('x')",
          "*** Delete File: old.txt",
        ),
      },
      ctx,
    )
    await expect(run).rejects.toThrow(/apply_patch verification failed/)
    expect(existsSync(at("created.txt"))).toBe(false)
    expect(["src/app.py", "src/util.py", "old.txt"].map((f) => readFileSync(at(f), "utf8"))).toEqual(before)
    expect(ctx.asks).toEqual([])
  })

  test("apply_patch - a CRLF file keeps CRLF (bytes on disk)", async () => {
    const { ctx, at } = project()
    writeFileSync(at("win.txt"), "a\r\nb\r\nc\r\n")
    await runTool(applyPatchTool, { patchText: patch("*** Update File: win.txt", "@@", " a", "-b", "+B", " c") }, ctx)
    expect(readFileSync(at("win.txt")).toString("binary")).toBe("a\r\nB\r\nc\r\n")
  })

  test("apply_patch - a path outside the project asks external_directory first; rejection writes nothing", async () => {
    const root = tempDir()
    const dir = path.join(root, "project")
    const outside = path.join(root, "outside")
    mkdirSync(dir)
    mkdirSync(outside)
    writeFileSync(path.join(outside, "t.txt"), "keep\n")
    const ctx = toolContext({
      directory: dir,
      decide: (req) => {
        if (req.permission === "external_directory") throw new Error("The user rejected permission to use this specific tool call.")
      },
    })
    const patchText = patch("*** Add File: inside.txt", "+x", "*** Update File: ../outside/t.txt", "@@", "-keep", "+changed")
    await expect(runTool(applyPatchTool, { patchText }, ctx)).rejects.toThrow(/rejected/)
    expect(ctx.asks).toEqual([
      expect.objectContaining({ permission: "external_directory", patterns: [`${outside}/*`], always: [`${outside}/*`] }),
    ])
    expect(readFileSync(path.join(outside, "t.txt"), "utf8")).toBe("keep\n")
    expect(existsSync(path.join(dir, "inside.txt"))).toBe(false)
  })

  test("apply_patch - a malformed patch and invalid arguments are explained", async () => {
    const { ctx } = project()
    await expect(runTool(applyPatchTool, { patchText: "not a patch" }, ctx)).rejects.toThrow(/Begin Patch/)
    await expect(runTool(applyPatchTool, { patch: "x" }, ctx)).rejects.toThrow(
      /The apply_patch tool was called with invalid arguments: patchText: .*\nPlease rewrite the input/,
    )
  })
})
