// Snapshot store figures (issue 13), each beside a baseline measured in the same run:
//   a generated 50,000-file git repository: the first track ≤ 2 s (baseline: `git status`);
//   an incremental track + patch after a one-file step ≤ 50 ms (baseline: one `git --version`);
//   a step that ran a command (a full rescan), for information (baseline: `git status`);
//   100 steps each editing one line of a 5 MB file: the store < 20 MB after the automatic repack
//   (baseline: the bytes those 100 versions would take as loose objects).
// Run alone: npx tsx bench/snapshot/store.ts
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { createExec } from "../../src/process"
import { createSnapshotStore, SNAPSHOT_DEFAULTS } from "../../src/snapshot"

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

function gitRepo(root: string) {
  const project = path.join(root, "repo")
  for (let d = 0; d < FILES / 100; d++) {
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

export async function runSnapshotBench() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-bench-snap-")))
  try {
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

    // One file changed by a step: touch (as afterWrite does), track, list the changes.
    const s = store("incremental")
    let tree = (await s.track("bench"))!.tree
    const incremental: number[] = []
    const spawn: number[] = []
    const edited = path.join(project, "src", "m7", "f7.ts")
    for (let i = 0; i < 15; i++) {
      spawn.push(time(() => execFileSync("git", ["--version"], { env, stdio: "ignore" })))
      writeFileSync(edited, `export const v7_7 = ${i}\n`)
      incremental.push(
        await timeAsync(async () => {
          // As the file writer's afterWrite tells the store.
          s.touch([edited])
          const next = (await s.track("bench"))!.tree
          const files = await s.changes(tree, next)
          if (files.length !== 1) throw new Error(`expected one changed file, got ${files.length}`)
          tree = next
        }),
      )
    }

    // A step that ran a command: the store cannot know what changed, so it scans (no target).
    const scan: number[] = []
    for (let i = 0; i < 5; i++) {
      writeFileSync(edited, `export const v7_7 = "bash ${i}"\n`)
      scan.push(
        await timeAsync(async () => {
          s.touch()
          const next = (await s.track("bench"))!.tree
          const files = await s.changes(tree, next)
          if (files.length !== 1) throw new Error(`expected one changed file, got ${files.length}`)
          tree = next
        }),
      )
    }

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
    for (let step = 0; step < 100; step++) {
      lines[(step * 7919) % lines.length] = `edited in step ${step}`.padEnd(63, ".")
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
      incrementalMs: median(incremental),
      spawnMs: median(spawn),
      commandStepMs: median(scan),
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
