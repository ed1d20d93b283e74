#!/usr/bin/env node
// The `wright` command. CommonJS on purpose: Node starts a CommonJS entry faster than an ES
// module. `wright --version` answers here without loading the bundle, and writes with
// fs.writeSync because creating process.stdout alone costs more than the rest.
"use strict"
const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const fs = require("node:fs")
  const { version } = JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, "utf8"))
  fs.writeSync(1, `${version}\n`)
} else {
  import("../dist/wright.mjs")
}
