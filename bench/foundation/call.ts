// Runs one exported bench function and writes what it returns, as JSON, to a file. bench/run.mjs
// starts one of these per TypeScript bench, so each runs in a fresh process under tsx:
//   node --import tsx bench/foundation/call.ts <module.ts> <exportName> <out.json>
import { writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"

const [file, name, out] = process.argv.slice(2)
if (!file || !name || !out) {
  console.error("usage: node --import tsx bench/foundation/call.ts <module.ts> <exportName> <out.json>")
  process.exit(2)
}

const mod = (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>
const fn = mod[name]
if (typeof fn !== "function") {
  console.error(`${file} has no exported function ${name} (exports: ${Object.keys(mod).join(", ") || "none"})`)
  process.exit(2)
}
const result = await (fn as () => unknown)()
writeFileSync(out, JSON.stringify(result ?? null))
// Benches may leave servers or timers behind; the result is written, so end here.
process.exit(0)
