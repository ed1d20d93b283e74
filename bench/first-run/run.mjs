// A user's first hour, measured: the built binary in a fresh HOME with empty caches and the
// default config (language servers, formatters, snapshots, the sandbox all on), on a small
// library of real .ts, .js and .py files that the model reads, edits and runs. The provider
// sits in the user's global config, as a user's key does; the project is a fresh clone, so it
// is untrusted. Each scenario runs the same task with those features off as its baseline,
// interleaved, every run in a new HOME:
//   - the 20-step loop (read, edit, run in turn over the three languages) ≤ 1.25× features off;
//   - the first edit of a fresh TypeScript project ≤ 100 ms more than the same edit with `lsp: false`.
// Each is run with and without the project's node_modules (typescript in it), and with the npm
// registry reachable (whatever npm reaches here) and unreachable (a closed loopback port).
// Run alone: node scripts/build.mjs && node bench/first-run/run.mjs
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { interleaved, measure, median, providerConfig, sandbox } from "../foundation/measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const BIN = path.join(ROOT, "bin/wright")
export const LOOP_STEPS = 20
const RUNS = { loop: Number(process.env.FR_RUNS ?? 5), edit: Number(process.env.FR_RUNS ?? 7) }
const OFF = { lsp: false, formatter: false, snapshot: false, sandbox: { mode: "off" } }

/** The library: a TypeScript module, a JavaScript module and a Python one, with numbered constants to edit. */
const FILES = {
  "src/math.ts": (n) =>
    [`export function add(a: number, b: number): number {`, `  return a + b`, `}`, ``, ...Array.from({ length: n }, (_, i) => `export const v${i}: number = ${i}`), ``].join("\n"),
  "src/strings.js": (n) =>
    [`export function shout(s) {`, `  return s.toUpperCase() + "!"`, `}`, ``, ...Array.from({ length: n }, (_, i) => `export const v${i} = ${i}`), `console.log(shout("ok"), v0)`, ``].join("\n"),
  "py/stats.py": (n) => [`def mean(xs):`, `    return sum(xs) / len(xs)`, ``, ...Array.from({ length: n }, (_, i) => `v${i} = ${i}`), `print(mean([v0, 1, 2]))`, ``].join("\n"),
}
const RUNNERS = { "src/math.ts": "node -e \"console.log('ts ok')\"", "src/strings.js": "node src/strings.js", "py/stats.py": "python3 py/stats.py" }

function project(dir, withNodeModules) {
  for (const [rel, make] of Object.entries(FILES)) {
    mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), make(LOOP_STEPS))
  }
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "lib", version: "1.0.0", type: "module", scripts: { test: "node src/strings.js" } }, null, 2))
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "nodenext" } }, null, 2))
  writeFileSync(path.join(dir, "pyproject.toml"), `[project]\nname = "lib"\nversion = "1.0.0"\n`)
  if (withNodeModules) {
    mkdirSync(path.join(dir, "node_modules"), { recursive: true })
    symlinkSync(path.join(ROOT, "node_modules/typescript"), path.join(dir, "node_modules/typescript"))
  }
}

/** The scenario is the first user message; step k is the number of tool results so far. */
function reply(req) {
  const messages = req.body?.messages ?? []
  const user = messages.find((m) => m.role === "user")
  const prompt = typeof user?.content === "string" ? user.content : (user?.content ?? []).map((c) => c.text ?? "").join("")
  const k = messages.filter((m) => m.role === "tool").length
  if (prompt.startsWith("edit")) {
    if (k >= 1) return { text: "edited" }
    return { toolCalls: [{ name: "edit", input: { filePath: "src/math.ts", oldString: "export const v0: number = 0", newString: "export const v0: number = 100" } }] }
  }
  if (k >= LOOP_STEPS - 1) return { text: "loop done" }
  const files = Object.keys(FILES)
  const file = files[Math.floor(k / 3) % files.length]
  const kind = k % 3
  if (kind === 0) return { toolCalls: [{ name: "read", input: { filePath: file } }] }
  if (kind === 1) {
    const ts = file.endsWith(".ts")
    const before = ts ? `export const v${k}: number = ${k}` : `v${k} = ${k}`
    const line = file.endsWith(".js") ? `export const v${k} = ${k}` : before
    return { toolCalls: [{ name: "edit", input: { filePath: file, oldString: line, newString: line.replace(/= \d+$/, `= ${k * 10}`) } }] }
  }
  return { toolCalls: [{ name: "bash", input: { command: RUNNERS[file], description: `Run ${file}` } }] }
}

async function closedPort() {
  const s = net.createServer()
  await new Promise((r) => s.listen(0, "127.0.0.1", r))
  const port = s.address().port
  await new Promise((r) => s.close(r))
  return port
}

/** One run in a new HOME: the provider in the global config, `extra` beside it, the library as the project. */
function runner(server, { extra, withNodeModules, registry, prompt }) {
  return async () => {
    const box = sandbox()
    try {
      const globalDir = path.join(box.env.XDG_CONFIG_HOME, "wright")
      mkdirSync(globalDir, { recursive: true })
      writeFileSync(path.join(globalDir, "wright.json"), JSON.stringify({ ...providerConfig(server.url), ...extra }))
      project(box.project, withNodeModules)
      const env = { ...box.env, WRIGHT_NODE: process.execPath, ...(registry ? { npm_config_registry: registry } : {}) }
      return await measure([BIN, "run", prompt], { cwd: box.project, env, timeoutMs: 180_000 })
    } finally {
      box.remove()
    }
  }
}

function expectDone(what, answer) {
  return (r) => {
    if (r.code !== 0 || !r.stdout.includes(answer)) throw new Error(`${what}: exit ${r.code}\nstdout: ${r.stdout.slice(-1500)}\nstderr: ${r.stderr.slice(-3000)}`)
    const failed = (r.stderr.match(/✗/g) ?? []).length
    if (failed) throw new Error(`${what}: ${failed} tool call(s) failed\n${r.stderr.slice(-3000)}`)
  }
}

const summary = (m) => {
  const s = median(m.subject.map((r) => r.ms))
  const b = median(m.baseline.map((r) => r.ms))
  // Language servers install once no tool call has run for a second (session/app.ts): a loop
  // whose model answers at once never pauses, so none starts; this says so if that changes.
  const installs = m.subject.filter((r) => /^Installing the /m.test(r.stderr)).length
  return { medianMs: s, baselineMs: b, ratio: s / b, deltaMs: s - b, runs: m.subject.length, runsThatInstalled: installs }
}

export async function runFirstRunBench() {
  const server = await startLLMServer({ strict: false, fallback: reply })
  const offline = `http://127.0.0.1:${await closedPort()}/`
  const out = []
  try {
    for (const withNodeModules of [false, true]) {
      for (const registry of [undefined, offline]) {
        const label = `${withNodeModules ? "node_modules" : "no node_modules"}, registry ${registry ? "unreachable" : "reachable"}`
        const loop = await interleaved({
          subject: runner(server, { extra: {}, withNodeModules, registry, prompt: "loop" }),
          baseline: runner(server, { extra: OFF, withNodeModules, registry, prompt: "loop" }),
          runs: RUNS.loop,
          check: expectDone(`loop (${label})`, "loop done"),
        })
        const edit = await interleaved({
          subject: runner(server, { extra: {}, withNodeModules, registry, prompt: "edit" }),
          baseline: runner(server, { extra: { lsp: false }, withNodeModules, registry, prompt: "edit" }),
          runs: RUNS.edit,
          check: expectDone(`first edit (${label})`, "edited"),
        })
        out.push({ label, loop: summary(loop), firstEdit: summary(edit) })
      }
    }
    return { steps: LOOP_STEPS, scenarios: out }
  } finally {
    await server.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runFirstRunBench(), null, 2))
}
