// Experiment (not shipped): `run "hi"` started from a V8 user-land startup snapshot
// (`node --snapshot-blob … --build-snapshot`) against the ESM build and the floor, interleaved.
// Build first (`node scripts/build.mjs`), then:
//   node bench/foundation/startup-snapshot.mjs [runs]
// It bundles the run path as one CommonJS file into dist/snapshot-proto/, evaluates it while
// building the blob, lists what module-level code read of the build process's state (env,
// stdio, cwd, clock: values a shipped snapshot would freeze), and times three subjects:
// the ESM build through bin/wright.cjs, the snapshot started directly, and the snapshot
// started through a /bin/sh launcher (what a `wright` bin would have to be). See
// bench/README.md, "A V8 startup snapshot, tried and not shipped".
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { startupPlugins } from "../../scripts/startup-plugins.mjs"
import { median, providerConfig, sandbox } from "./measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const runs = Number(process.argv[2] ?? 11)
const NODE = process.execPath
const OUT = path.join(ROOT, "dist/snapshot-proto")
const SCRIPT = path.join(OUT, "wright-run.cjs")
const BLOB = path.join(OUT, "wright-run.blob")

/** One virtual module in place of an import, for the snapshot bundle only. */
function virtual(name, filter, contents, when = () => true) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter }, (args) => (args.namespace === name || !when(args) ? undefined : { path: args.path, namespace: name }))
      b.onLoad({ filter: /.*/, namespace: name }, (args) => ({ contents: contents(args.path), loader: "js" }))
    },
  }
}

// What the snapshot builder refuses, each found by a failed build:
const plugins = [
  // main.ts starts the CLI as it loads; in the snapshot it must start after deserialisation.
  {
    name: "main-deferred",
    setup(b) {
      b.onLoad({ filter: /src[\\/]cli[\\/]main\.ts$/ }, (args) => {
        const source = readFileSync(args.path, "utf8")
        if (!source.includes("main().catch(fail)")) throw new Error("main-deferred: src/cli/main.ts changed")
        return { contents: source.replace("main().catch(fail)", "globalThis.__wrightMain = () => main().catch(fail)"), loader: "ts" }
      })
    },
  },
  // Native addons cannot be in a snapshot: better-sqlite3 is required on the first `new Database`.
  virtual("sqlite-at-run-time", /^better-sqlite3$/, () => `let real;\nexport default function Database(...args) { return new (real ??= globalThis.__wrightRequire("better-sqlite3"))(...args) }`),
  // node:http does not load in Node 20's snapshot builder ("methods.toSorted is not a function").
  virtual(
    "http-at-run-time",
    /^(node:)?http$/,
    () => `let m; const load = () => (m ??= __wrightBuiltinRequire("node:http"));\nexport const STATUS_CODES = new Proxy({}, { get: (_, k) => load().STATUS_CODES[k] });\nexport default new Proxy({}, { get: (_, k) => load()[k] });`,
    (args) => /[\\/]src[\\/]/.test(args.importer),
  ),
  // ink and yoga-layout use top-level await, which CommonJS cannot bundle: the TUI stays ESM.
  virtual("no-tui", /^(ink|yoga-layout|ink-.*|react-reconciler)$/, (p) => `throw new Error("the TUI is not in the snapshot: ${p}")`),
  // fdir require()s picomatch from node_modules at import: a user module loaded while building,
  // after which Node refuses to start from the blob (ERR_INTERNAL_ASSERTION in setupUserModules).
  {
    name: "fdir-bundled-picomatch",
    setup(b) {
      b.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, (args) => {
        const from = '__require.resolve("picomatch");\n\tpm = __require("picomatch");'
        const source = readFileSync(args.path, "utf8")
        if (!source.includes(from)) throw new Error("fdir-bundled-picomatch: fdir changed")
        return { contents: `import __wrightPicomatch from "picomatch";\n${source.replace(from, "pm = __wrightPicomatch;")}`, loader: "js" }
      })
    },
  },
  ...startupPlugins,
]

// The audit build traps what module-level code reads of the process while the blob is built:
// each value would be the build's, frozen, in every run started from the blob.
const AUDIT = `{
  const seen = new Map();
  const note = (what) => {
    const limit = Error.stackTraceLimit; Error.stackTraceLimit = 40;
    const stack = String(new Error().stack || ""); Error.stackTraceLimit = limit;
    const frame = stack.split("\\n").slice(2).find((l) => /wright-run\\.cjs:\\d{3,}:/.test(l)) || "(Node's own code)";
    seen.set(what + " at " + frame.trim().replace(/^at /, ""), true);
  };
  const undo = [];
  const env = process.env;
  process.env = new Proxy(env, { get(t, k) { if (typeof k === "string") note("process.env." + k); return t[k] }, ownKeys(t) { note("process.env keys"); return Reflect.ownKeys(t) } });
  undo.push(() => { process.env = env });
  for (const name of ["stdout", "stderr", "stdin"]) {
    const d = Object.getOwnPropertyDescriptor(process, name);
    Object.defineProperty(process, name, { configurable: true, enumerable: d.enumerable, get() { note("process." + name); return d.get.call(process) } });
    undo.push(() => Object.defineProperty(process, name, d));
  }
  for (const [obj, name, label] of [[process, "cwd", "process.cwd()"], [Date, "now", "Date.now()"], [Math, "random", "Math.random()"]]) {
    const f = obj[name]; obj[name] = function (...a) { note(label); return f.apply(this, a) }; undo.push(() => { obj[name] = f });
  }
  globalThis.__wrightAuditReport = () => { for (const f of undo) f(); for (const k of seen.keys()) process.stderr.write("build-time read: " + k + "\\n") };
}`

// In the builder `require` loads built-ins only; after deserialisation user modules come from a
// createRequire made from the script's run-time path (argv[1]: Node 20 does not expand it).
const banner = `void 0;
var __wrightBuiltinRequire = require;
var __wrightMetaUrl = require("node:url").pathToFileURL(__dirname + "/../wright.mjs").href;
require = function (id) { return __wrightBuiltinRequire("node:module").isBuiltin(id) ? __wrightBuiltinRequire(id) : globalThis.__wrightRequire(id) };
require.resolve = (id, o) => globalThis.__wrightRequire.resolve(id, o);
`
const footer = `
__wrightBuiltinRequire("node:v8").startupSnapshot.setDeserializeMainFunction(() => {
  const script = process.argv[1];
  __wrightMetaUrl = require("node:url").pathToFileURL(require("node:path").join(script, "../../wright.mjs")).href;
  globalThis.__wrightRequire = __wrightBuiltinRequire("node:module").createRequire(script);
  globalThis.__wrightMain();
});`

async function bundle(audit) {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"))
  await build({
    // Evaluated while the blob is built: the CLI and the whole `run` path.
    stdin: { contents: `import "./run/execute"\nimport "./main"\n`, resolveDir: path.join(ROOT, "src/cli"), loader: "ts" },
    outfile: SCRIPT,
    absWorkingDir: ROOT,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    // Whitespace and names: 7.9 → 3.5 MB of source, a 24 → 15 MB blob (the source is in it).
    minify: !audit,
    legalComments: "none",
    loader: { ".txt": "text" },
    mainFields: ["module", "main"],
    supported: { "dynamic-import": false },
    define: { __WRIGHT_VERSION__: JSON.stringify(pkg.version), "import.meta.url": "__wrightMetaUrl" },
    external: ["better-sqlite3", "web-tree-sitter", "tree-sitter-bash", "@vscode/ripgrep", "react-devtools-core", "esbuild"],
    banner: { js: audit ? `${banner}\n${AUDIT}` : banner },
    footer: { js: audit ? `globalThis.__wrightAuditReport();\n${footer}` : footer },
    logLevel: "error",
    plugins,
  })
  const r = spawnSync(NODE, ["--snapshot-blob", BLOB, "--build-snapshot", SCRIPT], { encoding: "utf8" })
  if (r.status !== 0) throw new Error(`building the snapshot failed:\n${r.stderr}`)
  return r.stderr
}

rmSync(OUT, { recursive: true, force: true })
mkdirSync(OUT, { recursive: true })
const auditLog = await bundle(true)
const reads = auditLog.split("\n").filter((l) => l.startsWith("build-time read:"))
await bundle(false)
const launcher = path.join(OUT, "wright")
writeFileSync(launcher, `#!/bin/sh\nd=$(dirname "$0")\nexec node --snapshot-blob "$d/wright-run.blob" "$d/wright-run.cjs" "$@"\n`, { mode: 0o755 })

const server = await startLLMServer({ strict: false, fallback: () => ({ text: "Hello! How can I help?" }) })
const box = sandbox()
writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))

/** Wall, CPU (user + system) and peak RSS of one command, through /usr/bin/time. */
function timed(argv) {
  const out = path.join(os.tmpdir(), `wright-snap-${process.pid}`)
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn("/usr/bin/time", ["-f", "%U %S %M", "-o", out, ...argv], { cwd: box.project, env: box.env, stdio: ["ignore", "pipe", "pipe"] })
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

// Each subject its own database, so no run waits on another's WAL.
const own = (name) => ["/usr/bin/env", `WRIGHT_DB=${path.join(box.home, `${name}.db`)}`]
const subjects = {
  esm: [...own("esm"), NODE, path.join(ROOT, "bin/wright.cjs"), "run", "hi"],
  snapshot: [...own("snapshot"), NODE, "--snapshot-blob", BLOB, SCRIPT, "run", "hi"],
  "snapshot-sh": [...own("sh"), launcher, "run", "hi"],
}
await timed(subjects.esm)
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

const result = { runs, loadavg: load.map((l) => +l.toFixed(2)), scriptKB: Math.round(statSync(SCRIPT).size / 1024), blobMB: +(statSync(BLOB).size / 2 ** 20).toFixed(1) }
for (const [name, s] of Object.entries(samples)) {
  result[name] = { cpuMs: +median(s.map((r) => r.cpu)).toFixed(0), wallMs: +median(s.map((r) => r.ms)).toFixed(0), rssMB: +median(s.map((r) => r.rssMB)).toFixed(1) }
}
for (const name of Object.keys(samples)) {
  if (name !== "floor") Object.assign(result[name], { cpuRatio: +(result[name].cpuMs / result.floor.cpuMs).toFixed(2), wallRatio: +(result[name].wallMs / result.floor.wallMs).toFixed(2) })
}
console.log(JSON.stringify({ ...result, buildTimeReads: reads }, null, 1))
