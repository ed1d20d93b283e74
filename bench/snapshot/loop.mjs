// The foundation's 20-step loop (read, write, bash in turn) on the built binary, snapshots on
// against the same with `snapshot: false`, interleaved in one run: what snapshots cost a real
// session end to end (issue 29: ~30 ms per tool step before). The project is a git repository
// of LOOP_FILES small files, as a user's would be.
// Run alone: node scripts/build.mjs && node bench/snapshot/loop.mjs
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { LOOP_STEPS, reply } from "../foundation/cli.mjs"
import { interleaved, measure, median, providerConfig, sandbox } from "../foundation/measure.mjs"

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../bin/wright")
const RUNS = Number(process.env.LOOP_RUNS ?? 7)
const FILES = Number(process.env.LOOP_FILES ?? 1000)

function project(dir, env) {
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(path.join(dir, "src", `m${d}`), { recursive: true })
    for (let f = 0; f < 100; f++) writeFileSync(path.join(dir, "src", `m${d}`, `f${f}.ts`), `export const v${d}_${f} = ${f}\n`)
  }
  writeFileSync(path.join(dir, "notes.txt"), "notes for the bench\n")
  const git = (...args) => execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: dir, env, stdio: "ignore" })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-qm", "generated")
}

export async function runSnapshotLoopBench() {
  const server = await startLLMServer({ strict: false, fallback: reply })
  const on = sandbox()
  const off = sandbox()
  try {
    for (const [box, extra] of [
      [on, {}],
      [off, { snapshot: false }],
    ]) {
      project(box.project, box.env)
      writeFileSync(path.join(box.project, "wright.json"), JSON.stringify({ ...providerConfig(server.url), ...extra }))
    }
    const run = (box) => () => measure([BIN, "run", "loop"], { cwd: box.project, env: { ...box.env, WRIGHT_NODE: process.execPath } })
    const check = (r) => {
      const settled = (r.stderr.match(/✓/g) ?? []).length
      if (r.code !== 0 || settled !== LOOP_STEPS - 1 || !r.stdout.includes("loop done")) throw new Error(`run loop failed (exit ${r.code}, ${settled} tools): ${r.stderr.slice(-1500)}`)
    }
    const m = await interleaved({ subject: run(on), baseline: run(off), runs: RUNS, check })
    const onMs = median(m.subject.map((r) => r.ms))
    const offMs = median(m.baseline.map((r) => r.ms))
    return { files: FILES, steps: LOOP_STEPS, runs: RUNS, onMs, offMs, perStepMs: (onMs - offMs) / (LOOP_STEPS - 1), ratio: onMs / offMs }
  } finally {
    await server.close()
    on.remove()
    off.remove()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) console.log(JSON.stringify(await runSnapshotLoopBench(), null, 2))
