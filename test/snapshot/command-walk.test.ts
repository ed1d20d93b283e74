// After a command the store rescans with git unless a stat walk of a small worktree shows
// nothing changed (stat-walk.ts). The walk may only ever skip git when git would have found
// the same tree: every change a command can make is checked against a fresh store's full scan,
// including a same-size rewrite in the same clock tick as the walk (same times, same size).
import { execFileSync } from "node:child_process"
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

test("command walk - the first snapshot in a new project runs four git processes: init, list, add, write the tree (no git --version first)", async () => {
  const t = setup({ "notes.txt": "notes\n", "src/a.ts": "export const a = 1\n" })
  const s = t.store()
  const tree = (await s.track("s"))!.tree
  expect(tree).toBe(await t.fullScan())
  const subcommands = t.gitCalls.map((argv) => argv.find((a) => ["--version", "init", "ls-files", "update-index", "write-tree"].includes(a)))
  expect(subcommands).toEqual(["init", "ls-files", "update-index", "write-tree"])
}, 60_000)

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

test("command walk - what a command changed is taken from the walk without git's scan, to the same trees and changes as the scan, ignore rules and odd cases included", async () => {
  const t = setup({ ".gitignore": "build/\n*.log\n", "a.txt": "a\n", "src/b.ts": "b\n", "src/c.ts": "c\n", "old.log": "x\n" })
  const s = t.store()
  await s.track("s")
  const gitDiff = (from: string, to: string) =>
    execFileSync("git", ["--git-dir", s.gitDir, "diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to], { env }).toString().split("\0").filter(Boolean).sort()
  const scanned = (argv: string[][]) => argv.some((a) => a.includes("ls-files"))
  // [what the command does, whether git may be asked at all, whether only its scan may answer]
  const commands: [string, () => void, "no git" | "no scan" | "scan"][] = [
    ["edit two tracked files", () => (writeFileSync(t.file("a.txt"), "a2\n"), writeFileSync(t.file("src/b.ts"), "b2\n")), "no git"],
    ["delete a file and its folder's last sibling stays", () => rmSync(t.file("src/c.ts")), "no git"],
    ["new file in a new folder", () => (mkdirSync(t.file("gen/x"), { recursive: true }), writeFileSync(t.file("gen/x/y.ts"), "y\n")), "no scan"],
    ["new files in a new ignored folder and an ignored name", () => (mkdirSync(t.file("build/deep"), { recursive: true }), writeFileSync(t.file("build/deep/out.js"), "o\n"), writeFileSync(t.file("run.log"), "l\n")), "no scan"],
    ["an ignored file changes again", () => writeFileSync(t.file("build/deep/out.js"), "o2\n"), "no scan"],
    ["a .gitignore that lets an existing file in", () => writeFileSync(t.file(".gitignore"), "build/\n"), "scan"],
    ["a file turned folder", () => (rmSync(t.file("a.txt")), mkdirSync(t.file("a.txt")), writeFileSync(t.file("a.txt/inner"), "i\n")), "scan"],
    ["a nested repository", () => (mkdirSync(t.file("sub/.git"), { recursive: true }), writeFileSync(t.file("sub/.git/HEAD"), "ref: refs/heads/main\n"), writeFileSync(t.file("sub/s.txt"), "s\n")), "scan"],
    ["a rename", () => renameSync(t.file("gen/x/y.ts"), t.file("gen/z.ts")), "no scan"],
    ["an oversize file", () => writeFileSync(t.file("big.bin"), "z".repeat(SNAPSHOT_DEFAULTS.maxFileSize + 1)), "scan"],
  ]
  for (const [what, run, git] of commands) {
    const before = (await s.track("s"))!
    run()
    t.gitCalls.length = 0
    s.touch()
    const after = (await s.track("s"))!
    expect(s.notice(), what).toBeUndefined()
    if (git === "no git") expect(t.gitCalls.map((a) => a[a.indexOf("core.quotepath=false") + 1]), what).toEqual([])
    if (git === "no scan") expect(scanned(t.gitCalls), what).toBe(false)
    if (git === "scan") expect(scanned(t.gitCalls), what).toBe(true)
    const fresh = t.store()
    const full = (await fresh.track("check"))!
    expect(after.tree, what).toBe(full.tree)
    // (git's own scan is the old path: a folder where the tree has a file is "not captured" there.)
    if (git !== "scan") expect(after.notCaptured.sort(), what).toEqual(full.notCaptured.sort())
    expect(await s.changes(before.tree, after.tree), what).toEqual(gitDiff(before.tree, after.tree))
  }
}, 120_000)

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

test("command walk - a new process starts from the walk the last one saved: an unchanged worktree needs no git, changes made in between are recorded as git's scan records them", async () => {
  const t = setup({ ".gitignore": "*.log\n", "a.txt": "a\n", "src/b.ts": "b\n" })
  const dataDir = path.join(path.dirname(t.project), "shared")
  const counted: string[][] = []
  const make = (settings = SNAPSHOT_DEFAULTS) =>
    createSnapshotStore({
      exec: (argv, opts) => (counted.push(argv), real(argv, opts)),
      worktree: t.project,
      dataDir,
      projectID: "p",
      home: path.join(path.dirname(t.project), "home"),
      settings,
    })
  const first = make()
  await first.track("s")
  writeFileSync(t.file("a.txt"), "A\n")
  first.touch()
  const left = (await first.track("s"))!.tree
  await new Promise((r) => setTimeout(r, 300))
  // The next run, nothing changed meanwhile: the same tree, no git at all.
  counted.length = 0
  expect((await make().track("s"))!.tree).toBe(left)
  expect(counted).toEqual([])
  // Changed between runs (the user edited, deleted, added, an ignored log appeared): git's own tree.
  await new Promise((r) => setTimeout(r, 300))
  writeFileSync(t.file("src/b.ts"), "B\n")
  rmSync(t.file("a.txt"))
  mkdirSync(t.file("new"))
  writeFileSync(t.file("new/c.ts"), "c\n")
  writeFileSync(t.file("debug.log"), "log\n")
  const third = make()
  const resumed = (await third.track("s"))!.tree
  expect(resumed).toBe(await t.fullScan())
  expect(await third.changes(left, resumed)).toEqual(["a.txt", "new/c.ts", "src/b.ts"])
  // Other ignore settings: the saved walk does not hold, git scans.
  await new Promise((r) => setTimeout(r, 300))
  counted.length = 0
  const other = make({ ...SNAPSHOT_DEFAULTS, ignore: ["new/"] })
  const scanned = (await other.track("s"))!.tree
  expect(counted.some((argv) => argv.includes("ls-files"))).toBe(true)
  const fresh = createSnapshotStore({ exec: real, worktree: t.project, dataDir: dataDir + "-fresh", projectID: "p", home: path.join(path.dirname(t.project), "home"), settings: { ...SNAPSHOT_DEFAULTS, ignore: ["new/"] } })
  expect(scanned).toBe((await fresh.track("check"))!.tree)
}, 60_000)
