// After a command the store rescans with git unless a stat walk of a small worktree shows
// nothing changed (stat-walk.ts). The walk may only ever skip git when git would have found
// the same tree: every change a command can make is checked against a fresh store's full scan,
// including a same-size rewrite in the same clock tick as the walk (same times, same size).
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { expect, test as base } from "vitest"
import { createExec, type Exec } from "../../src/process"
import { createSnapshotStore, SNAPSHOT_DEFAULTS, type SnapshotStore } from "../../src/snapshot"
import { sameWalk, walkWorktree, type StatMap } from "../../src/snapshot/stat-walk"
import { tempDir } from "../lib/tool-context"
import { requires } from "../lib/requires"

// Snapshots are git trees: without git these tests are skipped, saying so.
const test = base.skipIf(requires("git"))

const env = { PATH: process.env.PATH, HOME: os.tmpdir(), LANG: "C.UTF-8" }
const real = createExec({ env })

function setup(files: Record<string, string>) {
  const root = tempDir("wright-snap-walk-")
  const project = path.join(root, "project")
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, name)), { recursive: true })
    writeFileSync(path.join(project, name), content)
  }
  const gitCalls: string[][] = []
  const counting: Exec = (argv, opts) => {
    gitCalls.push(argv)
    return real(argv, opts)
  }
  let n = 0
  const make = (exec: Exec): SnapshotStore =>
    createSnapshotStore({ exec, worktree: project, dataDir: path.join(root, `data-${n++}`), projectID: "p", home: path.join(root, "home"), settings: SNAPSHOT_DEFAULTS })
  return { project, gitCalls, store: () => make(counting), fullScan: async () => (await make(real).track("check"))!.tree, file: (f: string) => path.join(project, f) }
}

test("command walk - a command that changed nothing runs no git, and the tree stays the same", async () => {
  const t = setup({ "notes.txt": "notes\n", "src/a.ts": "export const a = 1\n" })
  const s = t.store()
  const first = (await s.track("s"))!.tree
  for (let i = 0; i < 3; i++) {
    t.gitCalls.length = 0
    s.touch() // a process ran (`echo hi`)
    expect((await s.track("s"))!.tree).toBe(first)
    expect(t.gitCalls).toEqual([])
  }
  // The bench's pattern: a known write, then a command that writes nothing.
  mkdirSync(t.file("out"))
  writeFileSync(t.file("out/step-1.txt"), "step 1\n")
  s.touch([t.file("out/step-1.txt")])
  const written = (await s.track("s"))!.tree
  expect(written).toBe(await t.fullScan())
  t.gitCalls.length = 0
  s.touch()
  expect((await s.track("s"))!.tree).toBe(written)
  expect(t.gitCalls).toEqual([])
}, 60_000)

test("command walk - every change a command makes right after a track is still recorded, same-size rewrites in the same tick included", async () => {
  const t = setup({ "a.txt": "aaaa\n", "b.txt": "bbbb\n", "dir/c.txt": "cccc\n", "gone.txt": "x\n" })
  const s = t.store()
  await s.track("s")
  const commands: [string, () => void][] = [
    ["same-size rewrite", () => writeFileSync(t.file("a.txt"), "AAAA\n")],
    ["same-size rewrite of a file the writer just captured", () => writeFileSync(t.file("b.txt"), "BBBB\n")],
    ["new file in a new folder", () => (mkdirSync(t.file("new/deep"), { recursive: true }), writeFileSync(t.file("new/deep/n.txt"), "n\n"))],
    ["delete", () => rmSync(t.file("gone.txt"))],
    ["chmod", () => chmodSync(t.file("dir/c.txt"), 0o755)],
    ["rename over", () => (writeFileSync(t.file("tmp"), "cccc\n"), renameSync(t.file("tmp"), t.file("a.txt")))],
  ]
  for (const [what, run] of commands) {
    if (what.includes("writer just captured")) {
      writeFileSync(t.file("b.txt"), "bbbx\n")
      s.touch([t.file("b.txt")])
      await s.track("s")
    }
    const before = (await s.track("s"))!.tree
    run()
    s.touch()
    const after = (await s.track("s"))!.tree
    expect(after, what).not.toBe(before)
    expect(after, what).toBe(await t.fullScan())
  }
}, 60_000)

test("command walk - a worktree too large to walk is rescanned by git each time, with the same trees", async () => {
  const files: Record<string, string> = {}
  for (let i = 0; i < 2100; i++) files[`f/${i % 10}/${i}.txt`] = `${i}\n`
  const t = setup(files)
  const s = t.store()
  await s.track("s")
  t.gitCalls.length = 0
  s.touch()
  await s.track("s")
  expect(t.gitCalls.some((argv) => argv.includes("ls-files"))).toBe(true)
  writeFileSync(t.file("f/0/0.txt"), "changed\n")
  s.touch()
  expect((await s.track("s"))!.tree).toBe(await t.fullScan())
}, 60_000)

test("command walk - a file rewritten with as many bytes within the clock tick of the walk is still a change", () => {
  const t = setup({ "r.txt": "r-00\n" })
  writeFileSync(t.file("r.txt"), "w-01\n")
  const before = walkWorktree(t.project) as StatMap
  writeFileSync(t.file("r.txt"), "c-01\n")
  const now = walkWorktree(t.project) as StatMap
  // A coarse file clock (one tick for both writes) gives the rewrite the very same times.
  now.set("r.txt", { sig: before.get("r.txt")!.sig })
  expect(sameWalk(t.project, before, now)).toBe(false)
  writeFileSync(t.file("r.txt"), "w-01\n")
  expect(sameWalk(t.project, before, now)).toBe(true)
})
