// The incremental track after known writes builds its tree without git's index. It must
// record exactly what git itself would: each tree is compared with a full scan of the same
// worktree by a fresh store, and each step's changed paths with git's own diff-tree.
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { expect, test as base } from "vitest"
import { createExec } from "../../src/process"
import { createSnapshotStore, SNAPSHOT_DEFAULTS, type SnapshotStore } from "../../src/snapshot"
import { tempDir } from "../lib/tool-context"
import { requires } from "../lib/requires"

// Snapshots are git trees: without git these tests are skipped, saying so.
const test = base.skipIf(requires("git"))

const env = { PATH: process.env.PATH, HOME: os.tmpdir(), LANG: "C.UTF-8" }
const exec = createExec({ env })

function setup(files: Record<string, string>, settings = SNAPSHOT_DEFAULTS) {
  const root = tempDir("wright-snap-inc-")
  const project = path.join(root, "project")
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, name)), { recursive: true })
    writeFileSync(path.join(project, name), content)
  }
  let n = 0
  const store = (): SnapshotStore =>
    createSnapshotStore({ exec, worktree: project, dataDir: path.join(root, `data-${n++}`), projectID: "p", home: path.join(root, "home"), settings })
  return { root, project, store, file: (f: string) => path.join(project, f) }
}

/** The tree a brand-new store records for the worktree as it is now (git's own index path). */
async function fullScan(make: () => SnapshotStore): Promise<string> {
  return (await make().track("check"))!.tree
}

function gitDiff(store: SnapshotStore, from: string, to: string): string[] {
  const out = execFileSync("git", ["--git-dir", store.gitDir, "diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to], { env })
  return out.toString().split("\0").filter(Boolean).sort()
}

test("incremental - known writes give the same trees and changes as git's own scan: edits, new nested dirs, deletes, modes, symlinks, odd names", async () => {
  const t = setup({ "a.txt": "a\n", "a-b.txt": "dash\n", "a.b/x": "dot\n", "a/inner.txt": "in\n", "deep/one/two.txt": "2\n", "solo/only.txt": "alone\n" })
  const s = t.store()
  let tree = (await s.track("s"))!.tree
  const steps: { write: () => void; files: string[]; changed: string[] }[] = [
    { write: () => writeFileSync(t.file("a.txt"), "A\n"), files: ["a.txt"], changed: ["a.txt"] },
    { write: () => writeFileSync(t.file("a/inner.txt"), "IN\n"), files: ["a/inner.txt"], changed: ["a/inner.txt"] },
    {
      write: () => {
        mkdirSync(t.file("new/nested/dir"), { recursive: true })
        writeFileSync(t.file("new/nested/dir/file.ts"), "export {}\n")
        writeFileSync(t.file("a0"), "zero\n")
      },
      files: ["new/nested/dir/file.ts", "a0"],
      changed: ["a0", "new/nested/dir/file.ts"],
    },
    { write: () => rmSync(t.file("solo"), { recursive: true }), files: ["solo/only.txt"], changed: ["solo/only.txt"] },
    { write: () => chmodSync(t.file("a-b.txt"), 0o755), files: ["a-b.txt"], changed: ["a-b.txt"] },
    { write: () => symlinkSync("a.txt", t.file("a.b/link")), files: ["a.b/link"], changed: ["a.b/link"] },
    // Written again with the same bytes: nothing changed.
    { write: () => writeFileSync(t.file("a.txt"), "A\n"), files: ["a.txt"], changed: [] },
    { write: () => rmSync(t.file("deep/one/two.txt")), files: ["deep/one/two.txt"], changed: ["deep/one/two.txt"] },
  ]
  for (const step of steps) {
    step.write()
    s.touch(step.files.map(t.file))
    const next = (await s.track("s"))!.tree
    expect(await s.changes(tree, next)).toEqual(step.changed)
    expect(gitDiff(s, tree, next)).toEqual(step.changed)
    expect(next).toBe(await fullScan(t.store))
    tree = next
  }
})

test("incremental - a new ignored file stays out, a tracked one under an ignore rule is updated, an oversize one is not captured", async () => {
  const t = setup({ ".gitignore": "*.log\nbuild/\n", "kept.log": "tracked before the rule\n", "src/x.ts": "x\n" }, { ...SNAPSHOT_DEFAULTS, maxFileSize: 100, ignore: ["secret.txt"] })
  // kept.log is tracked by the project although a rule ignores it (added with -f): git keeps updating it.
  execFileSync("git", ["init", "-q"], { cwd: t.project, env })
  execFileSync("git", ["add", "-f", "kept.log", ".gitignore", "src/x.ts"], { cwd: t.project, env })
  const s = t.store()
  const start = (await s.track("s"))!.tree
  expect((await s.entries(start, ["kept.log"])).has("kept.log")).toBe(true)

  writeFileSync(t.file("new.log"), "ignored\n")
  mkdirSync(t.file("build"))
  writeFileSync(t.file("build/out.js"), "ignored too\n")
  writeFileSync(t.file("secret.txt"), "snapshot.ignore\n")
  writeFileSync(t.file("kept.log"), "changed\n")
  writeFileSync(t.file("big.bin"), "z".repeat(500))
  writeFileSync(t.file("src/x.ts"), "X\n")
  s.touch(["new.log", "build/out.js", "secret.txt", "kept.log", "big.bin", "src/x.ts"].map(t.file))
  const next = (await s.track("s"))!
  expect(await s.changes(start, next.tree)).toEqual(["kept.log", "src/x.ts"])
  expect(gitDiff(s, start, next.tree)).toEqual(["kept.log", "src/x.ts"])
  expect(next.notCaptured).toEqual(["big.bin"])
})

test("incremental - a written .gitignore that lets files in, and new files in new folders it ignores, give git's own tree", async () => {
  const t = setup({ ".gitignore": "*.log\n", "src/x.ts": "x\n", "old.log": "was ignored\n" })
  const s = t.store()
  await s.track("s")
  writeFileSync(t.file(".gitignore"), "out/\n")
  s.touch([t.file(".gitignore")])
  const opened = (await s.track("s"))!.tree
  expect((await s.entries(opened, ["old.log"])).has("old.log")).toBe(true)
  expect(opened).toBe(await fullScan(t.store))
  mkdirSync(t.file("out/deep/er"), { recursive: true })
  writeFileSync(t.file("out/deep/er/gen.js"), "generated\n")
  writeFileSync(t.file("src/y.ts"), "y\n")
  s.touch([t.file("out/deep/er/gen.js"), t.file("src/y.ts")])
  const next = (await s.track("s"))!.tree
  expect(await s.changes(opened, next)).toEqual(["src/y.ts"])
  expect(next).toBe(await fullScan(t.store))
})

test("incremental - a full scan after incremental tracks agrees with them, and known writes after a scan build on its tree", async () => {
  const t = setup({ "a.txt": "a\n", "d/b.txt": "b\n" })
  const s = t.store()
  const t0 = (await s.track("s"))!.tree
  writeFileSync(t.file("d/b.txt"), "B\n")
  s.touch([t.file("d/b.txt")])
  const t1 = (await s.track("s"))!.tree
  // A process ran: the store scans, against an index that never saw the incremental write.
  writeFileSync(t.file("c.txt"), "c\n")
  s.touch()
  const t2 = (await s.track("s"))!.tree
  expect(await s.changes(t1, t2)).toEqual(["c.txt"])
  expect(await s.changes(t0, t2)).toEqual(["c.txt", "d/b.txt"])
  expect(t2).toBe(await fullScan(t.store))
  rmSync(t.file("a.txt"))
  s.touch([t.file("a.txt")])
  const t3 = (await s.track("s"))!.tree
  expect(await s.changes(t2, t3)).toEqual(["a.txt"])
  expect(t3).toBe(await fullScan(t.store))
  // A write only git's own path takes (a new name with glob characters) after incremental ones
  // that made and then removed a file the index never saw: nothing recorded is lost.
  writeFileSync(t.file("d/e.txt"), "e\n")
  s.touch([t.file("d/e.txt")])
  await s.track("s")
  rmSync(t.file("d/e.txt"))
  writeFileSync(t.file("d/b.txt"), "b again\n")
  s.touch([t.file("d/e.txt"), t.file("d/b.txt")])
  await s.track("s")
  writeFileSync(t.file("star*.txt"), "glob\n")
  s.touch([t.file("star*.txt")])
  const t4 = (await s.track("s"))!.tree
  expect(await s.changes(t3, t4)).toEqual(["d/b.txt", "star*.txt"])
  expect(t4).toBe(await fullScan(t.store))
})

test("store - git gone after the store was made (no `git --version` at start then): the first track that needs git stops with the notice naming git", async () => {
  const t = setup({ "a.txt": "a\n" })
  const dataDir = path.join(t.root, "shared-data")
  const make = (e: typeof exec) => createSnapshotStore({ exec: e, worktree: t.project, dataDir, projectID: "p", home: path.join(t.root, "home"), settings: SNAPSHOT_DEFAULTS })
  expect(await make(exec).track("s")).toBeDefined()
  const noGit = createExec({ env: { ...env, PATH: path.join(t.root, "empty-bin") } })
  const again = make(noGit)
  // Nothing changed: the walk the last process saved answers (no git needed yet).
  await again.track("s")
  writeFileSync(t.file("b.txt"), "new: ignore rules must be asked\n")
  again.touch()
  expect(await again.track("s")).toBeUndefined()
  expect(again.notice()).toContain("git was not found on PATH")
})
