// The cost of the plugin machinery on `run "hi"` (issue 15): the built binary against an
// llm-server that answers at once, every arm interleaved in one run so drift hits all alike.
//   none:  no plugin configured, against the same binary with WRIGHT_PURE=1 (the extension
//          subsystem is skipped entirely: no folder listing, no GET /plugin, src/plugin never
//          imported). Target: within 3%, in CPU time (user+sys of the child, read from
//          process.resourceUsage() at its exit, µs resolution) and in wall time.
//   base:  optional, WRIGHT_BASE_BIN=/path/to/bin/wright.cjs (e.g. a build of the commit before
//          the plugin merge): the same no-plugin run against it, for reference only, since
//          everything else that changed since that commit is in the difference too.
//   one:   one local TypeScript plugin (its bundle cached after the first run) against none.
// Each comparison also gives the median of the paired differences (subject − baseline of the
// same round) with its interquartile range, which is steadier than a difference of medians.
// Run alone: node scripts/build.mjs && node bench/plugin/cli.mjs   (RUNS=40 for more rounds)
import { spawn } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { median, providerConfig, sandbox } from "../foundation/measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const BIN = path.join(ROOT, "bin/wright.cjs")
const RUNS = Number(process.env.RUNS) || 25

const PLUGIN = `import type { Plugin } from "@opencode-ai/plugin"
export const Counter: Plugin = async () => {
  let events = 0
  return {
    event: async () => void events++,
    "chat.params": async (_input, output) => { output.options.bench = events },
  }
}
`

// Preloaded into each child: its own CPU time, written when it exits (process.exit included).
const RUSAGE = `const fs = require("node:fs")
process.on("exit", () => { const u = process.resourceUsage(); fs.writeFileSync(process.env.WRIGHT_BENCH_RUSAGE, JSON.stringify({ user: u.userCPUTime, system: u.systemCPUTime })) })
`

function expectHi(r) {
  if (r.code !== 0 || !r.stdout.includes("Hello! How can I help?")) throw new Error(`run hi: exit ${r.code}\nstdout: ${r.stdout.slice(-1000)}\nstderr: ${r.stderr.slice(-1000)}`)
}

/** Runs one `wright run hi`: wall ms from spawn to exit, and the child's CPU ms. */
function runHi(bin, box, extraEnv, preload) {
  const usage = path.join(os.tmpdir(), `wright-bench-rusage-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(process.execPath, ["--require", preload, bin, "run", "hi"], {
      cwd: box.project,
      env: { ...box.env, ...extraEnv, WRIGHT_BENCH_RUSAGE: usage },
      stdio: ["ignore", "pipe", "pipe"],
    })
    const out = []
    const err = []
    child.stdout.on("data", (d) => out.push(d))
    child.stderr.on("data", (d) => err.push(d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      const ms = performance.now() - start
      let cpuMs = NaN
      try {
        const u = JSON.parse(readFileSync(usage, "utf8"))
        cpuMs = (u.user + u.system) / 1000
      } catch {}
      rmSync(usage, { force: true })
      const r = { ms, cpuMs, code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }
      try {
        expectHi(r)
        resolve(r)
      } catch (e) {
        reject(e)
      }
    })
  })
}

/** Median, and the interquartile range, of subject − baseline per round. */
function paired(subject, baseline, key) {
  const d = subject.map((s, i) => s[key] - baseline[i][key]).sort((a, b) => a - b)
  const q = (p) => d[Math.min(d.length - 1, Math.floor(p * d.length))]
  return { median: median(d), q1: q(0.25), q3: q(0.75) }
}

function compare(arms, subject, baseline) {
  const s = arms[subject]
  const b = arms[baseline]
  const wall = { medianMs: median(s.map((r) => r.ms)), baselineMs: median(b.map((r) => r.ms)) }
  const cpu = { medianMs: median(s.map((r) => r.cpuMs)), baselineMs: median(b.map((r) => r.cpuMs)) }
  return {
    wall: { ...wall, ratio: wall.medianMs / wall.baselineMs, pairedMs: paired(s, b, "ms") },
    cpu: { ...cpu, ratio: cpu.medianMs / cpu.baselineMs, pairedMs: paired(s, b, "cpuMs") },
  }
}

export async function runPluginBench() {
  const server = await startLLMServer({ strict: false, fallback: () => ({ text: "Hello! How can I help?" }) })
  const plain = sandbox()
  const withPlugin = sandbox()
  const preload = path.join(plain.home, "rusage.cjs")
  try {
    writeFileSync(preload, RUSAGE)
    for (const box of [plain, withPlugin]) writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
    mkdirSync(path.join(withPlugin.project, ".wright", "plugin"), { recursive: true })
    writeFileSync(path.join(withPlugin.project, ".wright", "plugin", "counter.ts"), PLUGIN)
    const base = process.env.WRIGHT_BASE_BIN
    const subjects = {
      none: () => runHi(BIN, plain, {}, preload),
      pure: () => runHi(BIN, plain, { WRIGHT_PURE: "1" }, preload),
      one: () => runHi(BIN, withPlugin, {}, preload),
      ...(base ? { base: () => runHi(base, plain, {}, preload) } : {}),
    }
    const names = Object.keys(subjects)
    // Warm-up: the page cache, the plugin's bundle, each binary's first start.
    for (const name of names) await subjects[name]()
    const arms = Object.fromEntries(names.map((n) => [n, []]))
    for (let i = 0; i < RUNS; i++) {
      // A different order each round, so no arm always runs first or after the same one.
      const order = names.map((n, j) => names[(i + j) % names.length])
      if (i % 2) order.reverse()
      for (const name of order) arms[name].push(await subjects[name]())
    }
    return {
      runs: RUNS,
      none: compare(arms, "none", "pure"),
      one: compare(arms, "one", "none"),
      ...(base ? { base: compare(arms, "none", "base") } : {}),
    }
  } finally {
    await server.close()
    plain.remove()
    withPlugin.remove()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runPluginBench(), null, 2))
}
