import { readdirSync, statSync } from "node:fs"
import path from "node:path"
import { lazyModule } from "./lazy"

const yaml = lazyModule<typeof import("yaml")>("yaml")

/** Splits a Markdown file into its YAML frontmatter (between `---` lines) and body. */
export function parseFrontmatter(text: string, file: string): { data: Record<string, unknown>; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return { data: {}, body: text.trim() }
  let data: unknown
  try {
    data = yaml().parse(match[1]!) ?? {}
  } catch (e) {
    throw new Error(`Invalid frontmatter in ${file}: ${(e as Error).message}`)
  }
  if (typeof data !== "object" || Array.isArray(data)) throw new Error(`Invalid frontmatter in ${file}: expected key: value pairs`)
  return { data: data as Record<string, unknown>, body: text.slice(match[0].length).trim() }
}

/** Every `.md` file under `root`, depth first, sorted by name; none when `root` does not exist. */
export function markdownFiles(root: string): string[] {
  let entries: string[]
  try {
    entries = readdirSync(root)
  } catch {
    return []
  }
  const files: string[] = []
  for (const entry of entries.sort()) {
    const full = path.join(root, entry)
    const stat = statSync(full, { throwIfNoEntry: false })
    if (stat?.isDirectory()) files.push(...markdownFiles(full))
    else if (stat?.isFile() && entry.endsWith(".md")) files.push(full)
  }
  return files
}
