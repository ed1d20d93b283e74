// A/B of what a change costs a user: `run "hi"` and the foundation's 20-step tool loop (read,
// write, bash in turn) on this build and on other builds, every run interleaved in the same
// order rotation, medians. The project is a git repository with a few source files, so the
// system prompt's git status, the snapshot store and the sandbox all take part.
// Usage: node scripts/build.mjs && node bench/foundation/loop-ab.mjs [RUNS] [OTHER_ROOT ...]
// (an OTHER_ROOT is a folder holding another build's bin/ and dist/, e.g. a worktree at an older commit)
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { LOOP_STEPS, reply } from "./cli.mjs"
import { measure, median, providerConfig, sandbox } from "./measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const [runsArg, ...others] = process.argv.slice(2)
const RUNS = Number(runsArg ?? 9)
const builds = [{ name: "this", root: ROOT }, ...others.map((root) => ({ name: path.basename(root), root: path.resolve(root) }))]

const server = await startLLMServer({ strict: false, fallback: reply })
const box = sandbox()
try {
  writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
  writeFileSync(path.join(box.project, "notes.txt"), "notes for the bench\n")
  for (let i = 0; i < 20; i++) writeFileSync(path.join(box.project, `mod${i}.js`), `export const v${i} = ${i}\n`)
  const git = (...args) => execFileSync("git", ["-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: box.project, env: box.env, stdio: "ignore" })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-qm", "start")
  const run = (build, prompt) => measure([path.join(build.root, "bin/wright"), "run", prompt], { cwd: box.project, env: { ...box.env, WRIGHT_NODE: process.execPath } })
  const check = (r, what) => {
    if (r.code !== 0) throw new Error(`${what}: exit ${r.code}\n${r.stderr.slice(-2000)}`)
    if (what.includes("loop") && (r.stderr.match(/✓/g) ?? []).length !== LOOP_STEPS - 1) throw new Error(`${what}: not every tool call completed\n${r.stderr.slice(-2000)}`)
  }
  const samples = Object.fromEntries(builds.map((b) => [b.name, { hi: [], loop: [] }]))
  for (const b of builds) for (const p of ["hi", "loop"]) check(await run(b, p), `${b.name} ${p} (warm-up)`)
  for (let i = 0; i < RUNS; i++) {
    const order = builds.map((_, k) => builds[(k + i) % builds.length])
    for (const b of order)
      for (const p of ["hi", "loop"]) {
        const r = await run(b, p)
        check(r, `${b.name} ${p}`)
        samples[b.name][p].push(r.ms)
      }
  }
  const base = samples[builds.at(-1).name]
  const result = builds.map((b) => ({
    build: b.name,
    hiMs: median(samples[b.name].hi),
    loopMs: median(samples[b.name].loop),
    hiVsLast: median(samples[b.name].hi) / median(base.hi),
    loopVsLast: median(samples[b.name].loop) / median(base.loop),
  }))
  console.log(JSON.stringify({ runs: RUNS, steps: LOOP_STEPS, result }, null, 2))
} finally {
  await server.close()
  box.remove()
}
