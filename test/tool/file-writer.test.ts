// The file writer played by an attacker: while a write waits on its permission ask, a
// directory on the way is swapped for a symlink to a directory outside the project. The ask
// is the test's to answer, so the swap happens exactly in that window.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync, chmodSync } from "node:fs"
import { rename } from "node:fs/promises"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { applyPatchTool, editTool, runTool, writeTool } from "../../src/tool"
import { openContained, writeFileContained, writeTemp } from "../../src/tool/file-writer"
import type { AskRequest } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

function setup() {
  const root = tempDir()
  const project = path.join(root, "project")
  const outside = path.join(root, "outside")
  mkdirSync(path.join(project, "sub"), { recursive: true })
  mkdirSync(outside)
  writeFileSync(path.join(project, "sub", "f.txt"), "inside\n")
  writeFileSync(path.join(outside, "f.txt"), "outside\n")
  /** Moves sub away and puts a symlink to the outside directory in its place. */
  const swap = () => {
    renameSync(path.join(project, "sub"), path.join(project, "sub-moved"))
    symlinkSync(outside, path.join(project, "sub"))
  }
  const swapOnEdit = (req: AskRequest) => {
    if (req.permission === "edit") swap()
  }
  return { root, project, outside, swap, swapOnEdit }
}

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: Error) => e)

describe("file writer", () => {
  test("file writer - a directory swapped for an outside symlink while write's ask is pending: nothing is written outside", async () => {
    const { project, outside, swapOnEdit } = setup()
    const ctx = toolContext({ directory: project, decide: swapOnEdit })
    const error = await failure(runTool(writeTool, { filePath: "sub/new.txt", content: "pwned\n" }, ctx))
    expect(error?.message).toMatch(/refused to write .*sub\/new\.txt.*outside the project/i)
    expect(readdirSync(outside).sort()).toEqual(["f.txt"])
    expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n")
  })

  test("file writer - the same swap during an edit's ask leaves the outside file untouched", async () => {
    const { project, outside, swapOnEdit } = setup()
    const ctx = toolContext({ directory: project, decide: swapOnEdit })
    const error = await failure(runTool(editTool, { filePath: "sub/f.txt", oldString: "inside", newString: "pwned" }, ctx))
    expect(error?.message).toMatch(/refused to write/i)
    expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n")
    expect(readdirSync(outside)).toEqual(["f.txt"])
  })

  test("file writer - the same swap during apply_patch's ask writes nothing outside", async () => {
    const { project, outside, swapOnEdit } = setup()
    const ctx = toolContext({ directory: project, decide: swapOnEdit })
    const patchText = ["*** Begin Patch", "*** Add File: sub/added.txt", "+pwned", "*** End Patch"].join("\n")
    const error = await failure(runTool(applyPatchTool, { patchText }, ctx))
    expect(error?.message).toMatch(/refused to write/i)
    expect(readdirSync(outside)).toEqual(["f.txt"])
  })

  test("file writer - a swap after the directory was opened cannot redirect the write: it lands in the directory that was checked", async () => {
    const { project, outside, swap } = setup()
    const dir = await openContained([project], path.join(project, "sub", "late.txt"))
    try {
      swap()
      const temp = await writeTemp(dir, "late\n")
      await rename(dir.at(temp), dir.at(dir.name))
    } finally {
      await dir.close()
    }
    expect(readdirSync(outside)).toEqual(["f.txt"])
    expect(readFileSync(path.join(project, "sub-moved", "late.txt"), "utf8")).toBe("late\n")
  })

  test("file writer - writes through in-project symlinks land on their target, keeping its mode", async () => {
    const { project } = setup()
    symlinkSync("sub", path.join(project, "alias"))
    symlinkSync("f.txt", path.join(project, "sub", "f-link.txt"))
    chmodSync(path.join(project, "sub", "f.txt"), 0o640)
    await writeFileContained({ roots: [project], file: path.join(project, "alias", "f-link.txt"), data: "via links\n" })
    expect(readFileSync(path.join(project, "sub", "f.txt"), "utf8")).toBe("via links\n")
    expect(statSync(path.join(project, "sub", "f.txt")).mode & 0o777).toBe(0o640)
    expect(readdirSync(path.join(project, "sub")).sort()).toEqual(["f-link.txt", "f.txt"])
  })

  test("file writer - missing directories are created inside the root; a file outside every root is refused", async () => {
    const { project, outside } = setup()
    await writeFileContained({ roots: [project], file: path.join(project, "a", "b", "c.txt"), data: "deep\n" })
    expect(readFileSync(path.join(project, "a", "b", "c.txt"), "utf8")).toBe("deep\n")
    const error = await failure(writeFileContained({ roots: [project], file: path.join(outside, "x.txt"), data: "no\n" }))
    expect(error?.message).toMatch(/refused to write/i)
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false)
  })

  test("file writer - a symlink in the project pointing outside is refused", async () => {
    const { project, outside } = setup()
    symlinkSync(outside, path.join(project, "escape"))
    const error = await failure(writeFileContained({ roots: [project], file: path.join(project, "escape", "f.txt"), data: "no\n" }))
    expect(error?.message).toContain(path.join(outside, "f.txt"))
    expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n")
  })

  test("file writer - a project opened through a symlinked path is written in place", async () => {
    const { root, project } = setup()
    const alias = path.join(root, "alias")
    symlinkSync(project, alias)
    const ctx = toolContext({ directory: alias })
    await runTool(writeTool, { filePath: "sub/new.txt", content: "ok\n" }, ctx)
    await runTool(editTool, { filePath: "sub/f.txt", oldString: "inside", newString: "edited" }, ctx)
    expect(readFileSync(path.join(project, "sub", "new.txt"), "utf8")).toBe("ok\n")
    expect(readFileSync(path.join(project, "sub", "f.txt"), "utf8")).toBe("edited\n")
    expect(ctx.asks.map((a) => a.permission)).toEqual(["edit", "edit"])
  })

  test("file writer - an approved directory outside the project can be written when it is one of the roots", async () => {
    const { project, outside } = setup()
    const ctx = toolContext({ directory: project })
    await runTool(writeTool, { filePath: path.join(outside, "fresh", "y.txt"), content: "ok\n" }, ctx)
    expect(readFileSync(path.join(outside, "fresh", "y.txt"), "utf8")).toBe("ok\n")
    expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "edit"])
  })
})
