// CPU time (user + system, from /usr/bin/time) of `run "hi"` against the floor script, one run
// after the other, interleaved: on a shared, loaded machine CPU time moves far less than wall
// time, so this is the figure each start-up change quotes. Build first, then:
//   node bench/foundation/start-cpu.mjs [runs] [/path/to/other/bin/wright.cjs ...]
// Other binaries (e.g. main's) are measured in the same interleaving. "wright" is the ESM build
// (bin/wright.cjs); when the build made a startup snapshot, "snapshot" is the installed command
// (bin/wright, the launcher) and "snapshot-direct" Node started with --snapshot-blob itself, so
// the launcher's cost is the difference (bench/README.md, "A V8 startup snapshot").
import { spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { median, providerConfig, sandbox } from "./measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const runs = Number(process.argv[2] ?? 11)
const others = process.argv.slice(3).map((p) => path.resolve(p))
const NODE = process.execPath

const server = await startLLMServer({ strict: false, fallback: () => ({ text: "Hello! How can I help?" }) })
const box = sandbox()
writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
const opts = { cwd: box.project, env: box.env }

/** Wall, user and system milliseconds of one command, through /usr/bin/time (the server runs in this process: spawn, never block). */
function timed(argv) {
  const out = path.join(os.tmpdir(), `wright-cpu-${process.pid}`)
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn("/usr/bin/time", ["-f", "%U %S %M", "-o", out, ...argv], { ...opts, stdio: ["ignore", "pipe", "pipe"] })
    const chunks = []
    const errs = []
    child.stdout.on("data", (d) => chunks.push(d))
    child.stderr.on("data", (d) => errs.push(d))
    child.on("error", reject)
    child.on("close", (code) => {
      const ms = performance.now() - start
      if (code !== 0) return reject(new Error(`${argv.join(" ")}: exit ${code}\n${Buffer.concat(errs)}`))
      const [user, sys, rss] = readFileSync(out, "utf8").trim().split("\n").at(-1).split(" ").map(Number)
      rmSync(out, { force: true })
      resolve({ ms, cpu: (user + sys) * 1000, rssMB: rss / 1024, stdout: Buffer.concat(chunks).toString("utf8") })
    })
  })
}

// Each build keeps its own database: an older build refuses one a newer build migrated.
const own = (name) => ["/usr/bin/env", `WRIGHT_DB=${path.join(box.home, `${name}.db`)}`]
const subjects = { wright: [...own("wright"), NODE, path.join(ROOT, "bin/wright.cjs"), "run", "hi"] }
const SNAPSHOT = path.join(ROOT, "dist/snapshot")
const snapshot = existsSync(path.join(SNAPSHOT, "stamp"))
if (snapshot) {
  subjects.snapshot = [...own("snapshot"), `WRIGHT_NODE=${NODE}`, path.join(ROOT, "bin/wright"), "run", "hi"]
  subjects["snapshot-direct"] = [...own("direct"), NODE, "--snapshot-blob", path.join(SNAPSHOT, "run.blob"), path.join(SNAPSHOT, "run.cjs"), "run", "hi"]
}
for (const p of others) {
  const name = path.basename(path.dirname(path.dirname(p)))
  subjects[name] = [...own(name), NODE, p, "run", "hi"]
}
// The floor replays the body wright sent.
await timed(subjects.wright)
const bodyFile = path.join(box.home, "floor-hi.json")
writeFileSync(bodyFile, JSON.stringify(server.requests.at(-1).body))
subjects.floor = [NODE, path.join(ROOT, "bench/foundation/floor.mjs"), `${server.url}/v1/chat/completions`, bodyFile]
for (const argv of Object.values(subjects)) await timed(argv)

const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]))
const load = [os.loadavg()[0]]
for (let i = 0; i < runs; i++) {
  const names = Object.keys(subjects)
  for (const name of i % 2 ? names.reverse() : names) {
    const r = await timed(subjects[name])
    if (!r.stdout.includes("Hello!")) throw new Error(`${name}: no answer on stdout`)
    samples[name].push(r)
  }
}
load.push(os.loadavg()[0])
await server.close()
box.remove()

const result = { runs, loadavg: load.map((l) => +l.toFixed(2)) }
if (snapshot) Object.assign(result, { scriptKB: Math.round(statSync(path.join(SNAPSHOT, "run.cjs")).size / 1024), blobMB: +(statSync(path.join(SNAPSHOT, "run.blob")).size / 2 ** 20).toFixed(1) })
for (const [name, s] of Object.entries(samples)) {
  result[name] = { cpuMs: +median(s.map((r) => r.cpu)).toFixed(0), wallMs: +median(s.map((r) => r.ms)).toFixed(0), rssMB: +median(s.map((r) => r.rssMB)).toFixed(1) }
}
for (const name of Object.keys(samples)) {
  if (name === "floor") continue
  result[name].cpuRatio = +(result[name].cpuMs / result.floor.cpuMs).toFixed(2)
  result[name].wallRatio = +(result[name].wallMs / result.floor.wallMs).toFixed(2)
}
console.log(JSON.stringify(result))
