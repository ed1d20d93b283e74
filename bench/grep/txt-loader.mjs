// Node module hook: `import text from "./x.txt"` yields the file as a string, as the bundler
// and vitest do, so the bench can load the tools straight from source under tsx.
import { readFile } from "node:fs/promises"

export async function load(url, context, next) {
  if (!url.endsWith(".txt")) return next(url, context)
  const text = await readFile(new URL(url), "utf8")
  return { format: "module", source: `export default ${JSON.stringify(text)}`, shortCircuit: true }
}
