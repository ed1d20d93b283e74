// A/B of the streaming path: `run "hi"` and `run deltas` (20,000 deltas) on one or more builds,
// interleaved with the floor script, medians. The per-delta cost above the floor is
//   ((wright deltas − wright hi) − (floor deltas − floor hi)) / 20,000
// so that start-up (wright's and the floor's) cancels out.
// CPU time (user + system, through /usr/bin/time) is shown beside the wall time: on a loaded
// machine it moves far less than the wall does.
// Usage: node scripts/build.mjs && node bench/foundation/stream-ab.mjs [RUNS] [OTHER_ROOT ...]
// (an OTHER_ROOT is a folder holding another build's bin/ and dist/, e.g. a copy made before a change)
import { spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { DELTAS, deltaText, lastAnswer, reply } from "./cli.mjs"
import { measure, median, providerConfig, sandbox } from "./measure.mjs"

const TIME = "/usr/bin/time"

/** `measure`, plus `cpuMs` (user + system) when /usr/bin/time is there. */
function timed(argv, opts) {
  if (!existsSync(TIME)) return measure(argv, opts)
  const file = path.join(os.tmpdir(), `wright-stream-ab-${process.pid}-${Math.random().toString(36).slice(2)}`)
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(TIME, ["-f", "%U %S", "-o", file, ...argv], { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] })
    const out = []
    const err = []
    child.stdout.on("data", (d) => out.push(d))
    child.stderr.on("data", (d) => err.push(d))
    child.on("error", reject)
    child.on("close", (code) => {
      const ms = performance.now() - start
      const [user, sys] = readFileSync(file, "utf8").trim().split("\n").at(-1).split(" ").map(Number)
      rmSync(file, { force: true })
      resolve({ ms, cpuMs: (user + sys) * 1000, code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") })
    })
  })
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const FLOOR = path.join(ROOT, "bench/foundation/floor.mjs")
const NODE = process.execPath
const RUNS = Number(process.argv[2] ?? 7)
const roots = [ROOT, ...process.argv.slice(3).map((r) => path.resolve(r))]

const server = await startLLMServer({ strict: false, fallback: reply })
const box = sandbox()
try {
  writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
  const opts = { cwd: box.project, env: box.env }
  const sent = deltaText().join("")
  const bodies = {}
  for (const prompt of ["hi", "deltas"]) {
    await measure([NODE, path.join(ROOT, "bin/wright.cjs"), "run", prompt], opts)
    bodies[prompt] = path.join(box.home, `floor-${prompt}.json`)
    writeFileSync(bodies[prompt], JSON.stringify(server.requests.at(-1).body))
  }
  const subjects = []
  for (const prompt of ["hi", "deltas"]) {
    subjects.push({ name: `floor ${prompt}`, argv: [NODE, FLOOR, `${server.url}/v1/chat/completions`, bodies[prompt]] })
    for (const root of roots) subjects.push({ name: `${root === ROOT ? "this" : path.basename(root)} ${prompt}`, argv: [NODE, path.join(root, "bin/wright.cjs"), "run", prompt], check: prompt === "deltas" })
  }
  const samples = new Map(subjects.map((s) => [s.name, []]))
  const cpu = new Map(subjects.map((s) => [s.name, []]))
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 === 0 ? subjects : [...subjects].reverse()
    for (const s of order) {
      const r = await timed(s.argv, opts)
      if (r.code !== 0) throw new Error(`${s.name}: exit ${r.code}\n${r.stderr.slice(-2000)}`)
      if (s.check && (r.stdout.trimEnd() !== sent.trimEnd() || lastAnswer(box.dbPath) !== sent)) throw new Error(`${s.name}: answer not intact (stdout ${r.stdout.length} chars)`)
      samples.get(s.name).push(r.ms)
      if (r.cpuMs !== undefined) cpu.get(s.name).push(r.cpuMs)
    }
  }
  const show = (label, by) => {
    const m = (name) => median(by.get(name))
    console.log(`-- ${label}`)
    for (const s of subjects) console.log(`${s.name.padEnd(24)} ${m(s.name).toFixed(0).padStart(6)} ms   [${by.get(s.name).map((x) => x.toFixed(0)).join(" ")}]`)
    const floorPer = m("floor deltas") - m("floor hi")
    for (const root of roots) {
      const tag = root === ROOT ? "this" : path.basename(root)
      const per = m(`${tag} deltas`) - m(`${tag} hi`)
      console.log(`${tag}: deltas/floor ${(m(`${tag} deltas`) / m("floor deltas")).toFixed(2)}x; per delta above the floor ${(((per - floorPer) * 1000) / DELTAS).toFixed(1)} µs (streaming ${per.toFixed(0)} ms vs floor ${floorPer.toFixed(0)} ms)`)
    }
  }
  show("wall", samples)
  if (cpu.get(subjects[0].name).length) show("cpu (user + system)", cpu)
} finally {
  await server.close()
  box.remove()
}
