// Bundles the CLI into dist/wright.mjs. Commands load their heavy modules with
// `await import()`, and code splitting keeps those in separate chunks, so
// `wright --version` and `--help` load almost nothing.
import { build } from "esbuild"
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { buildSnapshot } from "./snapshot.mjs"
import { startupPlugins } from "./startup-plugins.mjs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
// Build beside dist/ and swap it in at the end, so a wright started while the build runs
// (a test, a second terminal) never finds dist/ half written.
const finalDir = fileURLToPath(new URL("../dist", import.meta.url))
const outdir = `${finalDir}.build-${process.pid}`
rmSync(outdir, { recursive: true, force: true })

await build({
  entryPoints: { wright: "src/cli/main.ts", "tui-worker": "src/cli/tui/worker.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: "linked",
  legalComments: "none",
  loader: { ".txt": "text" },
  // Prefer ESM builds: some packages' UMD builds require() relative files at run time.
  mainFields: ["module", "main"],
  // NODE_ENV: React (the TUI) ships its production build; only React and its reconciler read it
  // in the bundle, and the development build's checks and performance tracks were about a third
  // of the TUI's first render.
  define: { __WRIGHT_VERSION__: JSON.stringify(pkg.version), "process.env.NODE_ENV": JSON.stringify("production") },
  // Native addons, wasm grammars and packages that locate binaries next to themselves stay in node_modules
  // (esbuild too: plugins are bundled with it at run time).
  external: ["better-sqlite3", "web-tree-sitter", "tree-sitter-bash", "@vscode/ripgrep", "react-devtools-core", "esbuild", "sharp"],
  banner: {
    // Bundled CommonJS code calls require() for Node built-ins.
    js: "import { createRequire as __wrightRequire } from 'node:module'; const require = __wrightRequire(import.meta.url);",
  },
  logLevel: "warning",
  plugins: startupPlugins,
})

// The scripted model server behind the offline demo and the benchmarks.
await build({
  entryPoints: { "llm-server": "test/lib/llm-server/index.ts" },
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  logLevel: "warning",
})

// The browser UI (wright web): Preact and the sdk for browsers, minified, no CDN; served from
// dist/web by the guarded listener (src/server/web.ts).
await build({
  entryPoints: { app: "src/web/main.tsx" },
  outdir: `${outdir}/web`,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome110", "safari16", "firefox115"],
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  legalComments: "none",
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  logLevel: "warning",
})
copyFileSync(fileURLToPath(new URL("../src/web/index.html", import.meta.url)), `${outdir}/web/index.html`)
copyFileSync(fileURLToPath(new URL("../src/web/app.css", import.meta.url)), `${outdir}/web/app.css`)

// The model catalogue snapshot stays a JSON file beside the bundle: read (and parsed) only when
// a provider lookup needs it, never on start-up (src/llm/catalog.ts finds it here).
copyFileSync(fileURLToPath(new URL("../src/llm/snapshot/models.json", import.meta.url)), `${outdir}/models.json`)

// `wright run`'s startup snapshot (bin/wright): optional, so a failure only says so.
const snapshot = await buildSnapshot(outdir)
if (!snapshot.ok) process.stderr.write(`build: no startup snapshot, \`wright run\` stays on the ESM build: ${snapshot.reason}\n`)

const old = `${finalDir}.old-${process.pid}`
if (existsSync(finalDir)) renameSync(finalDir, old)
renameSync(outdir, finalDir)
rmSync(old, { recursive: true, force: true })
