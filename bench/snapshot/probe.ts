import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createExec } from "../../src/process"
import { createSnapshotStore, SNAPSHOT_DEFAULTS } from "../../src/snapshot"
const env = { PATH: process.env.PATH, HOME: os.tmpdir(), LANG: "C.UTF-8" }
const raw = createExec({ env })
let log: string[] = []
const exec: typeof raw = async (argv, o) => { const t = performance.now(); const c = await raw(argv, o); const name = argv[argv.indexOf("core.quotepath=false") + 1]; void c.done.then(() => log.push(`${name} ${(performance.now() - t).toFixed(1)}`)); return c }
const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "probe-")))
const project = path.join(root, "p")
for (let d = 0; d < 10; d++) { mkdirSync(path.join(project, "src", `m${d}`), { recursive: true }); for (let f = 0; f < 100; f++) writeFileSync(path.join(project, "src", `m${d}`, `f${f}.ts`), `x${f}\n`) }
execFileSync("git", ["init", "-q"], { cwd: project }); execFileSync("git", ["add", "-A"], { cwd: project }); execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "x"], { cwd: project })
const s = createSnapshotStore({ exec, worktree: project, dataDir: path.join(root, "d"), projectID: "p", home: root + "h", settings: SNAPSHOT_DEFAULTS })
await s.track("s"); log = []
const edited = path.join(project, "src/m7/f7.ts")
for (let i = 0; i < 5; i++) { writeFileSync(edited, `v${i}\n`); s.touch([edited]); await s.track("s") }
console.log("edits", log); log = []
for (let i = 0; i < 5; i++) {
  writeFileSync(edited, `bash ${i}\n`)
  const t = performance.now(); s.touch(); await s.track("s"); console.log("cmd", (performance.now() - t).toFixed(1), log); log = []
}
