// Turns a plugin or tool source into a module. A file of the user's (.js or .ts) is bundled
// with esbuild, the transpiler wright's own build uses: TypeScript is stripped, its relative
// imports and packages (from the folder's node_modules) are inlined, and
// `@opencode-ai/plugin` and `zod` resolve to the copies wright runs with, so a plugin
// folder needs no `npm install` of its own. The bundle is cached by content under the cache
// directory; an unchanged file loads without starting esbuild. An npm package (installed by
// npm.ts) is imported where it lies, unless its entry is TypeScript.
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { z } from "zod"

/** What `@opencode-ai/plugin` (and `/tool`) resolves to inside a bundled plugin. */
const API_KEY = Symbol.for("wright.plugin-api")
// Bumped when the shim or the bundle options change, so old bundles are not reused.
const BUNDLE_VERSION = "2"

export function tool<T>(input: T): T {
  return input
}
tool.schema = z

function installApi() {
  const g = globalThis as Record<symbol, unknown>
  g[API_KEY] ??= { tool, z }
}

const SHIM = `const api = globalThis[Symbol.for("wright.plugin-api")];
export const tool = api.tool;
export const z = api.z;
export default api.z;`

/**
 * Imports a file of the user's, bundling it first (or reusing the cached bundle). `beside`
 * puts the bundle in that folder instead (an installed package's own folder, so what the
 * code finds relative to `import.meta.url` is still there).
 */
export async function importFile(file: string, cacheDir: string, beside?: string): Promise<Record<string, unknown>> {
  installApi()
  const source = readFileSync(file)
  const key = createHash("sha256").update(BUNDLE_VERSION).update("\0").update(file).update("\0").update(source).digest("hex").slice(0, 24)
  const name = `${path.basename(file).replace(/[^\w.-]/g, "_")}-${key}.mjs`
  const out = beside ? path.join(beside, `.wright-${name}`) : path.join(cacheDir, "plugin-build", name)
  if (!existsSync(out)) await bundle(file, out)
  return (await import(pathToFileURL(out).href)) as Record<string, unknown>
}

/**
 * Imports an installed package's entry. A TypeScript entry is bundled like a file, and so is
 * one built for Bun's `import.meta.require`/`import.meta.dir` (which become Node's
 * createRequire and the file's folder); any other entry is imported where it lies.
 */
export async function importPackage(dir: string, cacheDir: string): Promise<Record<string, unknown>> {
  const entry = packageEntry(dir)
  const beside = path.resolve(dir).startsWith(path.resolve(cacheDir) + path.sep) ? path.dirname(entry) : undefined
  if (/\.[mc]?tsx?$/.test(entry) || /import\.meta\.(require|dir|path)\b/.test(readFileSync(entry, "utf8"))) return importFile(entry, cacheDir, beside)
  installApi()
  return (await import(pathToFileURL(entry).href)) as Record<string, unknown>
}

/** The file a package's `exports["."]` (import condition), `module` or `main` names. */
export function packageEntry(dir: string): string {
  const pkgFile = path.join(dir, "package.json")
  if (!existsSync(pkgFile)) {
    for (const name of ["index.ts", "index.js", "index.mjs"]) if (existsSync(path.join(dir, name))) return path.join(dir, name)
    throw new Error(`${dir} has no package.json and no index.ts or index.js to load`)
  }
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { exports?: unknown; module?: string; main?: string }
  // Node's order (exports, then main); `module` last, since some packages name unshipped sources there.
  const targets = [exportTarget(pkg.exports), pkg.main, pkg.module, "index.js"].filter((t): t is string => typeof t === "string")
  for (const target of targets) {
    const file = path.resolve(dir, target)
    if (existsSync(file) && statSync(file).isFile()) return file
    for (const ext of [".js", ".mjs", ".ts", "/index.js", "/index.ts"]) if (existsSync(file + ext)) return file + ext
  }
  throw new Error(`${pkgFile} names ${targets[0]} as its entry, which does not exist`)
}

function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === "string") return exports
  if (!exports || typeof exports !== "object") return undefined
  const map = exports as Record<string, unknown>
  const root = "." in map ? map["."] : map
  if (typeof root === "string") return root
  if (root && typeof root === "object") {
    const r = root as Record<string, unknown>
    for (const cond of ["import", "node", "default", "bun", "require"]) {
      const v = r[cond]
      if (typeof v === "string") return v
      if (v && typeof v === "object") {
        const nested = exportTarget({ ".": v })
        if (nested) return nested
      }
    }
  }
  return undefined
}

async function bundle(file: string, out: string) {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
    // Bundled CommonJS dependencies call require() for Node built-ins; code built for Bun asks import.meta for it.
    banner: { js: "import { createRequire as __wrightCreateRequire } from 'node:module'; const require = __wrightCreateRequire(import.meta.url); const __wrightRequire = require;" },
    define: { "import.meta.require": "__wrightRequire", "import.meta.dir": JSON.stringify(path.dirname(file)), "import.meta.path": JSON.stringify(file) },
    plugins: [
      {
        name: "wright-plugin-api",
        setup(b) {
          b.onResolve({ filter: /^(@opencode-ai\/plugin(\/tool)?|zod(\/v4)?)$/ }, () => ({ path: "api", namespace: "wright-plugin-api" }))
          b.onLoad({ filter: /.*/, namespace: "wright-plugin-api" }, () => ({ contents: SHIM, loader: "js" }))
        },
      },
    ],
  })
  mkdirSync(path.dirname(out), { recursive: true })
  const tmp = `${out}.${process.pid}.tmp`
  writeFileSync(tmp, result.outputFiles[0]!.contents)
  const { renameSync } = await import("node:fs")
  renameSync(tmp, out)
}
