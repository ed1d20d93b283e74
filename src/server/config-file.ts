// PATCH /config writes into the project's own config file, keeping its comments and layout
// (jsonc edits), or creates `wright.json` when the project has none.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { applyEdits, modify, parse } from "jsonc-parser"
import { mergeDeep, type Config } from "../config"

const CANDIDATES = ["wright.json", "wright.jsonc", "opencode.json", "opencode.jsonc"]

export function projectConfigFile(directory: string): string {
  const found = CANDIDATES.map((name) => path.join(directory, name)).find((file) => existsSync(file))
  return found ?? path.join(directory, "wright.json")
}

/** Merges `patch` into the project config file, key by key; returns the file written. */
export function writeProjectConfig(directory: string, patch: Config): string {
  const file = projectConfigFile(directory)
  let text = existsSync(file) ? readFileSync(file, "utf8") : "{}\n"
  const current = (parse(text) ?? {}) as Record<string, unknown>
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue
    const merged = mergeDeep(current[key], value)
    text = applyEdits(text, modify(text, [key], merged, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } }))
  }
  writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`)
  return file
}
