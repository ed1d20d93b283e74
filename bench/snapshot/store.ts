// Snapshot store figures (issues 13 and 29), each beside a baseline measured in the same run:
//   a generated 50,000-file git repository: the first track ≤ 2 s (baseline: `git status`);
//   a one-file step as the session does it (touch, track, changes, the step's patch and its
//   session.diff entry) ≤ 5 ms in a 1,000-file repository and ≤ 50 ms in a 50,000-file one
//   (baseline: one `git --version`, what a single spawn costs here right now);
//   a step that ran a command, in each repository, for information: one that changed nothing
//   and one that changed a file (baseline: `git status`);
//   100 steps each editing one line of a 5 MB file: the store < 20 MB after the automatic repack
//   (baseline: the bytes those 100 versions would take as loose objects).
// Run alone: npx tsx bench/snapshot/store.ts
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { createExec } from "../../src/process"
import { createSnapshotStore, fileDiff, SNAPSHOT_DEFAULTS, type SnapshotStore } from "../../src/snapshot"

const FILES = 50_000
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const env = { PATH: process.env.PATH, HOME: os.tmpdir(), LANG: "C.UTF-8" }
const exec = createExec({ env })

function time<T>(fn: () => T): number {
  const t = performance.now()
  fn()
  return performance.now() - t
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

function dirSize(dir: string): number {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    n += e.isDirectory() ? dirSize(p) : statSync(p).size
  }
  return n
}

function gitRepo(root: string, files = FILES) {
  const project = path.join(root, `repo-${files}`)
  for (let d = 0; d < files / 100; d++) {
    const dir = path.join(project, "src", `m${d}`)
    mkdirSync(dir, { recursive: true })
    for (let f = 0; f < 100; f++) writeFileSync(path.join(dir, `f${f}.ts`), `export const v${d}_${f} = ${d * 100 + f}\n`)
  }
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: project, env, stdio: "ignore" })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-qm", "generated")
  return project
}

/**
 * A step as the session runs it (src/session/snapshot.ts): the writer's or the spawner's touch,
 * the track after the step, the paths it changed, and what the step adds to session.diff (the
 * changed files' entries before and after, their blobs, their line counts).
 */
async function step(s: SnapshotStore, from: string, touched: string[] | undefined): Promise<{ tree: string; changed: string[] }> {
  s.touch(touched)
  const tree = (await s.track("bench"))!.tree
  const changed = await s.changes(from, tree)
  if (changed.length) {
    const [before, after] = await Promise.all([s.entries(from, changed), s.entries(tree, changed)])
    for (const f of changed) await fileDiff(s, path.join(s.worktree, f), before.get(f) ?? null, after.get(f) ?? null)
  }
  return { tree, changed }
}

/** One-file steps and command steps in `project` (a fresh store, its first track done). */
async function steps(project: string, dataDir: string) {
  const s = createSnapshotStore({ exec, worktree: project, dataDir, projectID: "bench", home: dataDir + "-home", settings: SNAPSHOT_DEFAULTS })
  let tree = (await s.track("bench"))!.tree
  const oneFile: number[] = []
  const newFile: number[] = []
  const spawn: number[] = []
  const edited = path.join(project, "src", "m7", "f7.ts")
  const expect = (got: string[], n: number, what: string) => {
    if (got.length !== n) throw new Error(`${what}: expected ${n} changed files, got ${got.length}`)
  }
  for (let i = 0; i < 15; i++) {
    spawn.push(time(() => execFileSync("git", ["--version"], { env, stdio: "ignore" })))
    writeFileSync(edited, `export const v7_7 = ${i}\n`)
    oneFile.push(
      await timeAsync(async () => {
        const r = await step(s, tree, [edited])
        expect(r.changed, 1, "one-file step")
        tree = r.tree
      }),
    )
  }
  // A file the model creates (the tree does not hold it yet: ignore rules decide).
  for (let i = 0; i < 7; i++) {
    const created = path.join(project, "src", "m3", `new-${i}.ts`)
    writeFileSync(created, `export const n${i} = ${i}\n`)
    newFile.push(
      await timeAsync(async () => {
        const r = await step(s, tree, [created])
        expect(r.changed, 1, "new-file step")
        tree = r.tree
      }),
    )
  }
  const status: number[] = []
  const quiet: number[] = []
  const changing: number[] = []
  for (let i = 0; i < 5; i++) {
    status.push(time(() => execFileSync("git", ["--no-optional-locks", "status", "--porcelain"], { cwd: project, env, stdio: "ignore" })))
    quiet.push(
      await timeAsync(async () => {
        const r = await step(s, tree, undefined)
        expect(r.changed, 0, "quiet command step")
      }),
    )
    writeFileSync(edited, `export const v7_7 = "bash ${i}"\n`)
    changing.push(
      await timeAsync(async () => {
        const r = await step(s, tree, undefined)
        expect(r.changed, 1, "command step")
        tree = r.tree
      }),
    )
  }
  return { oneFileMs: median(oneFile), newFileMs: median(newFile), spawnMs: median(spawn), quietCommandMs: median(quiet), commandMs: median(changing), gitStatusMs: median(status) }
}

export async function runSnapshotBench() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-bench-snap-")))
  try {
    const small = gitRepo(root, 1000)
    const project = gitRepo(root)
    const store = (data: string, settings = SNAPSHOT_DEFAULTS) => createSnapshotStore({ exec, worktree: project, dataDir: path.join(root, data), projectID: "bench", home: root + "-home", settings })

    // The first track of a fresh store, three times (each in its own data dir), against `git status`.
    const first: number[] = []
    const status: number[] = []
    for (let i = 0; i < 3; i++) {
      status.push(time(() => execFileSync("git", ["--no-optional-locks", "status", "--porcelain"], { cwd: project, env, stdio: "ignore" })))
      const s = store(`first-${i}`)
      first.push(await timeAsync(() => s.track("bench")))
    }

    const steps1k = await steps(small, path.join(root, "steps-1k"))
    const steps50k = await steps(project, path.join(root, "steps-50k"))
    // 100 steps editing one line of a 5 MB file, in a plain directory (no project objects to share).
    const plain = path.join(root, "plain")
    mkdirSync(plain)
    const lines = Array.from({ length: 5 * 1024 * 1024 / 64 }, (_, i) => `${i.toString(16).padStart(8, "0")} ${((i * 2654435761) >>> 0).toString(36).repeat(6).slice(0, 54)}`)
    const big = path.join(plain, "big.txt")
    const bigStore = createSnapshotStore({
      exec,
      worktree: plain,
      dataDir: path.join(root, "big-data"),
      projectID: "bench",
      home: root + "-home",
      settings: { ...SNAPSHOT_DEFAULTS, maxFileSize: 10 * 1024 * 1024 },
    })
    let fileBytes = 0
    for (let k = 0; k < 100; k++) {
      lines[(k * 7919) % lines.length] = `edited in step ${k}`.padEnd(63, ".")
      const content = lines.join("\n") + "\n"
      fileBytes = content.length
      writeFileSync(big, content)
      bigStore.touch([big])
      await bigStore.track("bench")
    }
    await bigStore.idle()
    const storeMB = dirSize(path.join(bigStore.gitDir, "objects")) / 1024 / 1024
    return {
      files: FILES,
      firstTrackMs: median(first),
      gitStatusMs: median(status),
      small: { files: 1000, ...steps1k },
      large: { files: FILES, ...steps50k },
      storeMB,
      looseMB: (100 * fileBytes) / 1024 / 1024,
    }
  } finally {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 5 })
    } catch {}
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) console.log(JSON.stringify(await runSnapshotBench(), null, 2))
