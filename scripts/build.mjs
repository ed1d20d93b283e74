// Bundles the CLI into dist/wright.mjs. Commands load their heavy modules with
// `await import()`, and code splitting keeps those in separate chunks, so
// `wright --version` and `--help` load almost nothing.
import { build } from "esbuild"
import { readFileSync, rmSync } from "node:fs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true })

await build({
  entryPoints: { wright: "src/cli/main.ts", "tui-worker": "src/cli/tui/worker.ts" },
  outdir: "dist",
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
  define: { __WRIGHT_VERSION__: JSON.stringify(pkg.version) },
  // Native addons, wasm grammars and packages that locate binaries next to themselves stay in node_modules.
  external: ["better-sqlite3", "web-tree-sitter", "tree-sitter-bash", "@vscode/ripgrep", "react-devtools-core"],
  banner: {
    // Bundled CommonJS code calls require() for Node built-ins.
    js: "import { createRequire as __wrightRequire } from 'node:module'; const require = __wrightRequire(import.meta.url);",
  },
  logLevel: "warning",
})

// The scripted model server behind the offline demo and the benchmarks.
await build({
  entryPoints: { "llm-server": "test/lib/llm-server/index.ts" },
  outdir: "dist",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  logLevel: "warning",
})
