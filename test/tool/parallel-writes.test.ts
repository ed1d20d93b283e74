// Models send several write, edit and apply_patch calls in one step, and the session runs them
// at once. When they create files in the same new folders, each call's folder walk finds some
// directories made a moment ago by another call: that is success, not EEXIST. The walk still
// opens every component without following links, so a symlink swapped in mid-race is refused.
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { applyPatchTool, editTool, runTool, writeTool } from "../../src/tool"
import { openContained, writeFileContained } from "../../src/tool/file-writer"
import { tempDir, toolContext } from "../lib/tool-context"

const settled = (ps: Promise<unknown>[]) => Promise.allSettled(ps)
const failures = (results: PromiseSettledResult<unknown>[]) =>
  results.flatMap((r) => (r.status === "rejected" ? [String((r.reason as Error).message)] : []))

describe("parallel writes", () => {
  test("parallel writes - many writes, edits and patches creating one new nested tree at once all succeed", async () => {
    const ctx = toolContext()
    const calls: Promise<unknown>[] = []
    for (let i = 0; i < 12; i++) calls.push(runTool(writeTool, { filePath: `new/deep/er/w${i}.txt`, content: `w${i}\n` }, ctx))
    for (let i = 0; i < 6; i++) calls.push(runTool(writeTool, { filePath: `new/deep/side${i % 2}/s${i}.txt`, content: `s${i}\n` }, ctx))
    for (let i = 0; i < 6; i++) {
      const patchText = ["*** Begin Patch", `*** Add File: new/deep/er/p${i}.txt`, `+p${i}`, `*** Add File: new/other/p${i}.txt`, `+q${i}`, "*** End Patch"].join("\n")
      calls.push(runTool(applyPatchTool, { patchText }, ctx))
    }
    // edit with an empty oldString creates the file (and its folders).
    for (let i = 0; i < 6; i++) calls.push(runTool(editTool, { filePath: `new/deep/er/e${i}.txt`, oldString: "", newString: `e${i}\n` }, ctx))
    expect(failures(await settled(calls))).toEqual([])
    const er = path.join(ctx.directory, "new/deep/er")
    expect(readdirSync(er).sort()).toEqual(
      [...Array(12).keys()].map((i) => `w${i}.txt`).concat([...Array(6).keys()].flatMap((i) => [`p${i}.txt`, `e${i}.txt`])).sort(),
    )
    expect(readFileSync(path.join(er, "w7.txt"), "utf8")).toBe("w7\n")
    expect(readFileSync(path.join(er, "e3.txt"), "utf8")).toBe("e3\n")
    expect(readFileSync(path.join(ctx.directory, "new/other/p5.txt"), "utf8")).toBe("q5\n")
    expect(readFileSync(path.join(ctx.directory, "new/deep/side1/s5.txt"), "utf8")).toBe("s5\n")
  })

  test("parallel writes - the writer itself, 40 files into one fresh tree at once, all land", async () => {
    const project = tempDir()
    const files = [...Array(40).keys()].map((i) => path.join(project, "a", `b${i % 3}`, "c", `f${i}.txt`))
    const results = await settled(files.map((file, i) => writeFileContained({ roots: [project], file, data: `${i}\n` })))
    expect(failures(results)).toEqual([])
    files.forEach((file, i) => expect(readFileSync(file, "utf8")).toBe(`${i}\n`))
  })

  test("parallel writes - a directory another writer created is not reported as created by this one", async () => {
    const project = tempDir()
    const first = await openContained([project], path.join(project, "x", "y", "f.txt"))
    await first.close()
    expect(first.created).toEqual([path.join(project, "x", "y"), path.join(project, "x")])
    const second = await openContained([project], path.join(project, "x", "y", "z", "g.txt"))
    await second.close()
    expect(second.created).toEqual([path.join(project, "x", "y", "z")])
  })

  test("parallel writes - a symlink to outside planted where racing writers make a folder: each write lands inside or is refused, none outside", async () => {
    const root = tempDir()
    const project = path.join(root, "project")
    const outside = path.join(root, "outside")
    mkdirSync(project)
    mkdirSync(outside)
    const outcomes = new Set<string>()
    // In each round six writers race to create race<N>/dir while the attacker plants race<N>/dir
    // as a link to outside, a few event-loop turns in: some rounds it lands before the writers'
    // open, some between their open and their mkdir (the EEXIST path), some too late.
    for (let round = 0; round < 40; round++) {
      const base = path.join(project, `race${round}`)
      mkdirSync(base)
      const writes = [...Array(6).keys()].map((i) =>
        writeFileContained({ roots: [project], file: path.join(base, "dir", `f${i}.txt`), data: "data\n" }).then(
          () => "written",
          (e: Error) => e.message,
        ),
      )
      for (let turns = 0; turns < round; turns++) await new Promise((r) => setImmediate(r))
      let planted = true
      try {
        symlinkSync(outside, path.join(base, "dir"))
      } catch {
        planted = false
      }
      for (const outcome of await Promise.all(writes)) {
        if (outcome === "written") expect(planted).toBe(false)
        else expect(outcome).toMatch(/refused to write/i)
        outcomes.add(outcome === "written" ? "written" : "refused")
      }
    }
    expect(readdirSync(outside)).toEqual([])
    // Which rounds the attacker wins depends on the machine's speed; on this one (2 cores) it
    // lands between a writer's open and its mkdir in several rounds of every run (counted once
    // with a probe in the EEXIST branch). The first round it always wins.
    expect(outcomes.has("refused")).toBe(true)
  })
})
