// Bundles the CLI into dist/wright.mjs. Commands load their heavy modules with
// `await import()`, and code splitting keeps those in separate chunks, so
// `wright --version` and `--help` load almost nothing.
import { build } from "esbuild"
import { readFileSync, rmSync } from "node:fs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true })

await build({
  entryPoints: { wright: "src/cli/main.ts" },
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
  define: { __WRIGHT_VERSION__: JSON.stringify(pkg.version) },
  // Native addons, wasm grammars and packages that locate binaries next to themselves stay in node_modules.
  external: ["better-sqlite3", "web-tree-sitter", "tree-sitter-bash", "@vscode/ripgrep", "react-devtools-core"],
  banner: {
    js: [
      "import { createRequire as __wrightRequire } from 'node:module';",
      "import { fileURLToPath as __wrightPath } from 'node:url';",
      "const require = __wrightRequire(import.meta.url);",
      "const __filename = __wrightPath(import.meta.url);",
      "const __dirname = __wrightPath(new URL('.', import.meta.url));",
    ].join(" "),
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
