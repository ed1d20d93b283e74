// The startup snapshot of `wright run`: the run path bundled as one CommonJS script, evaluated
// once by `node --build-snapshot`, and the heap that results kept as dist/snapshot/run.blob.
// bin/wright starts `wright run` from it when the stamp says this Node binary built it, so a
// run neither reads, compiles nor evaluates the bundle (bench/README.md, "A V8 startup
// snapshot"). Everything else, and any doubt, stays on the ESM build.
//
// A snapshot freezes what module-level code computes while it is built, so the build traps
// reads of the process's state (environment, stdio, cwd, clock, randomness) and refuses to
// write the stamp when wright's code or a bundled package makes one; Node's own reads while it
// loads a built-in are expected. Usage: `node scripts/snapshot.mjs [distDir]` (build.mjs calls
// buildSnapshot on the dist it is about to swap in).
import { spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { startupPlugins } from "./startup-plugins.mjs"

const ROOT = fileURLToPath(new URL("..", import.meta.url))

/** One virtual module in place of an import, for the snapshot bundle only. */
function virtual(name, filter, contents, when = () => true) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter }, (args) => (args.namespace === name || !when(args) ? undefined : { path: args.path, namespace: name }))
      b.onLoad({ filter: /.*/, namespace: name }, (args) => ({ contents: contents(args.path), loader: "js", resolveDir: ROOT }))
    },
  }
}

/** Replaces each `[from, to]` in the module matching `filter`; fails the build when one is missing. */
function rewrite(name, filter, ...pairs) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, (args) => {
        let source = readFileSync(args.path, "utf8")
        for (const [from, to] of pairs) {
          if (!source.includes(from)) throw new Error(`${name}: ${args.path} no longer contains ${JSON.stringify(from)}; update scripts/snapshot.mjs`)
          source = source.replace(from, to)
        }
        return { contents: source, loader: /\.ts$/.test(args.path) ? "ts" : "js" }
      })
    },
  }
}

/** The http2.constants undici's HTTP/2 client reads as it loads (the "undici-lazy-http2" rewrite). */
export const HTTP2_HEADERS = {
  HTTP2_HEADER_AUTHORITY: ":authority",
  HTTP2_HEADER_METHOD: ":method",
  HTTP2_HEADER_PATH: ":path",
  HTTP2_HEADER_SCHEME: ":scheme",
  HTTP2_HEADER_CONTENT_LENGTH: "content-length",
  HTTP2_HEADER_EXPECT: "expect",
  HTTP2_HEADER_STATUS: ":status",
}

/**
 * node:http's `maxHeaderSize` without loading node:http (~4 ms on the first request): Node's
 * `--max-http-header-size` (dashes or underscores), from NODE_OPTIONS and then the command
 * line (the last one given wins), else its default of 16 KiB. Evaluated in undici's client
 * (the "undici-max-header-size" rewrite); test/e2e/start-snapshot.test.ts compares it with
 * node:http's own.
 */
export function maxHeaderSize(execArgv, nodeOptions) {
  const args = [...(nodeOptions ?? "").split(/\s+/), ...execArgv]
  let size = 16384
  for (let i = 0; i < args.length; i++) {
    const m = /^--max[-_]http[-_]header[-_]size(?:=(.*))?$/.exec(args[i])
    if (m) size = Number(m[1] ?? args[++i])
  }
  return size
}

// The first module of the snapshot bundle, so that nothing captures Node's fetch before it is
// replaced. Only while the blob is built: run.cjs run as a plain script keeps Node's fetch.
// undici starts compiling its HTTP/1 parser (WebAssembly) as it loads, and the builder has no
// WebAssembly: the compile is held as a pending promise and made, for real, as the blob is
// deserialised, long before the first request needs the parser, and under the baseline-wasm
// hold that `wright run` (the blob's only command) keeps until it exits (src/util/wasm-tier.ts).
const SNAPSHOT_FETCH = `const v8 = require("node:v8")
const { holdBaselineWasm } = require("./src/util/wasm-tier.ts")
if (v8.startupSnapshot.isBuildingSnapshot()) {
  const held = []
  const stand_in = !globalThis.WebAssembly
  if (stand_in) globalThis.WebAssembly = { compile: (bytes) => new Promise((resolve, reject) => held.push({ bytes, resolve, reject })) }
  const undici = require("undici/index-fetch.js")
  for (const name of ["fetch", "Request", "Response", "Headers", "FormData"]) Object.defineProperty(globalThis, name, { value: undici[name], writable: true, configurable: true, enumerable: false })
  if (stand_in) delete globalThis.WebAssembly
  v8.startupSnapshot.addDeserializeCallback(() => {
    holdBaselineWasm()
    for (const h of held) WebAssembly.compile(h.bytes).then(h.resolve, h.reject)
  })
}
`

const plugins = [
  // main.ts starts the CLI as it loads; from the snapshot it starts after deserialisation.
  rewrite("main-deferred", /[\\/]src[\\/]cli[\\/]main\.ts$/, ["main().catch(fail)", "globalThis.__wrightMain = () => main().catch(fail)"]),
  // A native addon cannot be in a snapshot, but better-sqlite3's JavaScript can (requiring it at
  // run time cost ~10 ms of resolving and compiling): its addon is loaded on the first
  // `new Database`, through `bindings`, which here finds it in the package's build/Release (where
  // npm's install puts it) and otherwise asks the real `bindings` with the package's root, since
  // its own search starts from the caller's file (this bundle).
  virtual(
    "sqlite-addon-at-run-time",
    /^bindings$/,
    () =>
      'module.exports = function bindings(name) {\n  const req = globalThis.__wrightRequire\n  const root = __wrightBuiltinRequire("node:path").dirname(req.resolve("better-sqlite3/package.json"))\n  try { return req(root + "/build/Release/" + name) } catch { return req("bindings")({ bindings: name, module_root: root }) }\n}\n',
    (args) => /[\\/]better-sqlite3[\\/]/.test(args.importer),
  ),
  // node:http does not load in Node 20's snapshot builder ("methods.toSorted is not a function");
  // src/ uses STATUS_CODES (llm/error.ts) and createServer (mcp/oauth.ts), both after start-up.
  virtual(
    "http-at-run-time",
    /^(node:)?http$/,
    () => "let m; const load = () => (m ??= __wrightBuiltinRequire(\"node:http\"));\nexport const STATUS_CODES = new Proxy({}, { get: (_, k) => load().STATUS_CODES[k] });\nexport default new Proxy({}, { get: (_, k) => load()[k] });",
    (args) => /[\\/]src[\\/]/.test(args.importer),
  ),
  // ink and yoga-layout use top-level await, which a CommonJS bundle cannot hold: the TUI is
  // never started from the snapshot (bin/wright sends only `run` there).
  virtual("no-tui", /^(ink|yoga-layout|ink-.*|react-reconciler)$/, (p) => `throw new Error("the TUI is not in the startup snapshot (${p}): start it with bin/wright.cjs")`),
  // Nor are the other front ends, which bin/wright never sends here: their source would only
  // make the blob larger (the source is in it) and every run's RSS with it.
  virtual(
    "other-front-ends",
    /^\.\.\/(tui\/thread|tui\/attach|\.\.\/acp)$/,
    (p) => `throw new Error("only \`wright run\` starts from the startup snapshot (${p}): start the others with bin/wright.cjs")`,
    (args) => args.kind === "dynamic-import" && /[\\/]src[\\/]cli[\\/]cmd$/.test(args.resolveDir),
  ),
  // fdir require()s picomatch from node_modules as it loads: once a user module has loaded while
  // building, Node refuses to start from the blob. The bundled picomatch is the same package.
  rewrite("fdir-bundled-picomatch", /[\\/]fdir[\\/]dist[\\/]index\.mjs$/, [
    '__require.resolve("picomatch");\n\tpm = __require("picomatch");',
    "pm = __wrightPicomatch;",
  ], ['import { createRequire } from "module";', 'import { createRequire } from "module";\nimport __wrightPicomatch from "picomatch";']),
  // Code from the blob cannot `import()` (Node 20: ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so a
  // plugin's module is imported by import.cjs beside the blob, which Node loads as usual.
  rewrite("plugins-imported-beside", /[\\/]src[\\/]plugin[\\/]load\.ts$/, ...Array(2).fill(["await import(pathToFileURL(", "await globalThis.__wrightImport(pathToFileURL("])),
  // Read when asked, not when the blob is built.
  rewrite(
    "yargs-shim-at-run-time",
    /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/,
    ["mainFilename: mainFilename || process.cwd(),", "get mainFilename() { return mainFilename || process.cwd() },"],
    ["stdColumns: typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null", "get stdColumns() { return typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null }"],
  ),
  rewrite("tinyglobby-debug-at-run-time", /[\\/]tinyglobby[\\/]dist[\\/]index\.mjs$/, ["debug: !!process.env.TINYGLOBBY_DEBUG,", "get debug() { return !!process.env.TINYGLOBBY_DEBUG },"]),
  // `fetch` and its classes from the npm undici (the package Node's own fetch is built from, the
  // same major), evaluated in the blob: Node's global fetch loads its undici on first use, ~45
  // ms of every run (bench/README.md, "fetch in the snapshot"). Node's copy cannot be built in:
  // it requires node:http, whose parser binding the builder cannot serialise.
  virtual("fetch-in-snapshot", /^wright:snapshot-fetch$/, () => SNAPSHOT_FETCH),
  // What keeps node:http (and node:http2, which requires it) out of undici's evaluation: each is
  // required where it is used instead of as undici loads, and a fetch needs neither. The header
  // names are http2.constants' own values (test/e2e/start-snapshot.test.ts compares them).
  rewrite("undici-lazy-http", /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/, ["const { IncomingMessage } = require('node:http')", ""], ["constructor === IncomingMessage", "constructor === require('node:http').IncomingMessage"]),
  rewrite("undici-lazy-status-codes", /[\\/]undici[\\/]lib[\\/]web[\\/]fetch[\\/]index\.js$/, ["const { STATUS_CODES } = require('node:http')", "const STATUS_CODES = new Proxy({}, { get: (_, k) => require('node:http').STATUS_CODES[k] })"]),
  rewrite("undici-max-header-size", /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/, ["const http = require('node:http')", `const http = { get maxHeaderSize() { return (${maxHeaderSize})(process.execArgv, process.env.NODE_OPTIONS) } }`]),
  rewrite(
    "undici-lazy-http2",
    /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    ["try {\n  http2 = require('node:http2')\n} catch {\n  // @ts-ignore\n  http2 = { constants: {} }\n}", "http2 = new Proxy({}, { get: (_, k) => require('node:http2')[k] })"],
    ["} = http2\n", `} = { constants: ${JSON.stringify(HTTP2_HEADERS)} }\n`],
  ),
  ...startupPlugins,
]

// Reads that may stay frozen: yargs refuses a Node older than this at load, and the blob only
// ever runs on the Node binary that built it. undici reads the other three as it loads, for
// workarounds that a `wright run` never wants: under Jest a second copy of its parser, and
// under V8 coverage (a Node 18 bug) a TLS session cache without FinalizationRegistry.
const ALLOWED_READS = new Set(["process.env.YARGS_MIN_NODE_VERSION", "process.env.JEST_WORKER_ID", "process.env.NODE_V8_COVERAGE", "process.env.UNDICI_NO_FG"])

// The builder's `require` loads built-ins only; after deserialisation user modules come from a
// createRequire of the script's run-time path (Node 20 leaves it in argv[1]: bin/wright passes it).
const banner = `void 0;
var __wrightBuiltinRequire = require;
var __wrightMetaUrl = require("node:url").pathToFileURL(__dirname + "/../wright.mjs").href;
require = function (id) { return __wrightBuiltinRequire("node:module").isBuiltin(id) ? __wrightBuiltinRequire(id) : globalThis.__wrightRequire(id) };
require.resolve = (id, o) => globalThis.__wrightRequire.resolve(id, o);
{
  const reads = new Set();
  let trapping = true;
  const note = (what) => {
    if (!trapping) return;
    const limit = Error.stackTraceLimit; Error.stackTraceLimit = 50;
    const frames = String(new Error().stack || "").split("\\n").slice(3);
    Error.stackTraceLimit = limit;
    // Node's own code reading it (a built-in's set-up, a warning printed) is Node's business.
    if (/\\(node:|at node:/.test(frames[0] || "")) return;
    reads.add(what + " at " + (frames.find((l) => /run\\.cjs/.test(l)) || frames[0] || "?").trim().replace(/^at /, ""));
  };
  const undo = [];
  const env = process.env;
  process.env = new Proxy(env, { get(t, k) { if (typeof k === "string") note("process.env." + k); return t[k] }, ownKeys(t) { note("process.env (all keys)"); return Reflect.ownKeys(t) } });
  undo.push(() => { process.env = env });
  for (const name of ["stdout", "stderr", "stdin"]) {
    const d = Object.getOwnPropertyDescriptor(process, name);
    Object.defineProperty(process, name, { configurable: true, enumerable: d.enumerable, get() { note("process." + name); return d.get.call(process) } });
    undo.push(() => Object.defineProperty(process, name, d));
  }
  for (const [obj, name, label] of [[process, "cwd", "process.cwd()"], [Date, "now", "Date.now()"], [Math, "random", "Math.random()"]]) {
    const f = obj[name]; obj[name] = function (...a) { note(label); return f.apply(this, a) }; undo.push(() => { obj[name] = f });
  }
  globalThis.__wrightBuildReads = () => { trapping = false; for (const f of undo) f(); return [...reads] };
}`

// Run as a plain script (not from the blob), it starts the CLI at once.
const footer = `{
  const reads = globalThis.__wrightBuildReads().filter((r) => !${JSON.stringify([...ALLOWED_READS])}.includes(r.split(" at ")[0]));
  delete globalThis.__wrightBuildReads;
  const v8 = __wrightBuiltinRequire("node:v8");
  const start = () => {
    const script = __wrightBuiltinRequire("node:path").resolve(process.argv[1]);
    __wrightMetaUrl = __wrightBuiltinRequire("node:url").pathToFileURL(__wrightBuiltinRequire("node:path").join(script, "../../wright.mjs")).href;
    globalThis.__wrightRequire = __wrightBuiltinRequire("node:module").createRequire(script);
    globalThis.__wrightImport = (specifier) => globalThis.__wrightRequire("./import.cjs")(specifier);
    globalThis.__wrightMain();
  };
  if (!v8.startupSnapshot.isBuildingSnapshot()) start();
  else if (reads.length) { process.stderr.write("module-level reads of the build's state:\\n" + reads.join("\\n") + "\\n"); process.exitCode = 3 }
  else v8.startupSnapshot.setDeserializeMainFunction(start);
}`

/**
 * Builds `<dist>/snapshot/{run.cjs, run.blob, stamp}`; the stamp (the Node binary that built the
 * blob, and the blob's size) is written last, and bin/wright uses nothing without it. On any
 * failure the folder is removed and the reason returned: `wright run` stays on the ESM build.
 */
export async function buildSnapshot(dist) {
  const dir = path.join(dist, "snapshot")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const script = path.join(dir, "run.cjs")
  const blob = path.join(dir, "run.blob")
  try {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"))
    await build({
      // Evaluated while the blob is built: the CLI and all that `run` imports statically.
      stdin: { contents: 'import "wright:snapshot-fetch"\nimport "./run/execute"\nimport "./main"\n', resolveDir: path.join(ROOT, "src/cli"), sourcefile: "snapshot-entry.ts", loader: "ts" },
      outfile: script,
      absWorkingDir: ROOT,
      bundle: true,
      format: "cjs",
      platform: "node",
      target: "node20",
      // The source is in the blob: minified, 7.9 → 3.4 MB of it and a 24 → 14 MB blob
      // (`run "hi"` peaked at 135 MB unminified, 117 MB minified).
      minify: true,
      keepNames: false,
      legalComments: "none",
      loader: { ".txt": "text" },
      mainFields: ["module", "main"],
      supported: { "dynamic-import": false },
      define: { __WRIGHT_VERSION__: JSON.stringify(pkg.version), "import.meta.url": "__wrightMetaUrl" },
      external: ["web-tree-sitter", "tree-sitter-bash", "@vscode/ripgrep", "react-devtools-core", "esbuild"],
      banner: { js: banner },
      footer: { js: footer },
      logLevel: "error",
      plugins,
    })
    // V8 keeps a script's source in the blob, and a source with one character outside Latin-1
    // as two bytes per character: esbuild escapes such characters in strings but not in regular
    // expressions (five of them, in the edit tools' quote and arrow classes), which doubled 3.2
    // MB of source to 6.5 MB and cost every run ~9 ms of deserialising it. `\uXXXX` means the
    // same character in a string, a template's cooked text and a regular expression alike.
    const source = readFileSync(script, "utf8")
    const ascii = source.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    if (ascii !== source) writeFileSync(script, ascii)
    // Built in an empty environment and a neutral folder: whatever still leaked would be visible.
    const r = spawnSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", script], { cwd: dir, env: { PATH: process.env.PATH ?? "" }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    if (r.status !== 0) throw new Error(`node --build-snapshot exited ${r.status ?? r.signal}: ${r.stderr.split("\n").filter((l) => !/not yet fully verified|may still work|To request support|--trace-warnings|Error.stackTraceLimit/.test(l)).join("\n").trim()}`)
    writeFileSync(path.join(dir, "import.cjs"), "// import() for code started from run.blob, which cannot call it itself (scripts/snapshot.mjs).\nmodule.exports = (specifier) => import(specifier)\n")
    writeFileSync(path.join(dir, "stamp"), `${process.execPath}\n${statSync(blob).size}\n`)
    return { ok: true, blobBytes: statSync(blob).size }
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    return { ok: false, reason: e instanceof Error ? e.message : String(e) }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await buildSnapshot(path.resolve(process.argv[2] ?? path.join(ROOT, "dist")))
  if (!result.ok) {
    process.stderr.write(`startup snapshot not built (wright run stays on the ESM build): ${result.reason}\n`)
    process.exitCode = 1
  }
}
