#!/usr/bin/env node
// `wright --version` answers without loading the bundle; everything else goes to dist/.
const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { readFileSync } = await import("node:fs")
  process.stdout.write(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version + "\n")
} else {
  await import("../dist/wright.mjs")
}
