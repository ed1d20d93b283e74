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
