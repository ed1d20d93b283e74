// Searches behind `/find` (text, through ripgrep's JSON output) and `/find/file` (fuzzy
// file and directory names over `rg --files`). Both honour .gitignore, include hidden files
// and skip `.git`, like the tools the model uses.
import type { Exec } from "../process"
import { BadRequestError, type FindMatch } from "../protocol"
import { RIPGREP_FLAGS, ripgrep } from "../tool"

/** More files than this are not considered by the fuzzy finder. */
const MAX_FILES = 100_000

/** Runs rg (the tools' runner), handing each output line to `onLine` until it returns false. */
async function rg(exec: Exec, cwd: string, args: string[], onLine: (line: string) => boolean | void): Promise<void> {
  await ripgrep({ exec, cwd, args, signal: new AbortController().signal, onLine: (line) => onLine(line) !== false })
}

type RgText = { text?: string; bytes?: string }
const decode = (v: RgText | undefined) => (v ? (v.text ?? Buffer.from(v.bytes ?? "", "base64").toString("utf8")) : "")

/** The first `limit` ripgrep matches of `pattern` (a regex) under `cwd`. */
export async function findText(exec: Exec, cwd: string, pattern: string, limit: number): Promise<FindMatch[]> {
  const out: FindMatch[] = []
  try {
    await rg(exec, cwd, ["--json", ...RIPGREP_FLAGS, "--", pattern], (line) => {
      if (!line.startsWith('{"type":"match"')) return
      const data = JSON.parse(line).data as {
        path: RgText
        lines: RgText
        line_number: number
        absolute_offset: number
        submatches: { match: RgText; start: number; end: number }[]
      }
      out.push({
        path: { text: decode(data.path) },
        lines: { text: decode(data.lines) },
        line_number: data.line_number,
        absolute_offset: data.absolute_offset,
        submatches: data.submatches.map((s) => ({ match: { text: decode(s.match) }, start: s.start, end: s.end })),
      })
      return out.length < limit
    })
  } catch (e) {
    if (!(e as Error).message.startsWith("ripgrep failed")) throw e
    const message = `not a valid search pattern: ${(e as Error).message.split("\n").slice(-3).join(" ").trim()}`
    throw new BadRequestError({ message: `Invalid request: query.pattern: ${message}`, issues: [{ path: "query.pattern", message }] })
  }
  return out
}

export interface FindFilesInput {
  query: string
  /** "file", "directory", or both (directories end in "/"). */
  kind: "file" | "directory" | "all"
  limit: number
}

/** Paths under `cwd` (relative, `/`-separated) that fuzzily match the query, best first. */
export async function findFiles(exec: Exec, cwd: string, input: FindFilesInput): Promise<string[]> {
  const files: string[] = []
  await rg(exec, cwd, ["--files", ...RIPGREP_FLAGS], (line) => {
    if (line) files.push(line.replace(/^\.\//, ""))
    return files.length < MAX_FILES
  })
  const dirs = new Set<string>()
  if (input.kind !== "file") {
    for (const f of files) {
      for (let i = f.indexOf("/"); i !== -1; i = f.indexOf("/", i + 1)) dirs.add(f.slice(0, i + 1))
    }
  }
  const candidates = [...(input.kind === "directory" ? [] : files), ...dirs]
  if (!input.query) return candidates.sort().slice(0, input.limit)
  const scored: { path: string; score: number }[] = []
  for (const path of candidates) {
    const score = fuzzyScore(input.query, path)
    if (score !== undefined) scored.push({ path, score })
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1))
  return scored.slice(0, input.limit).map((s) => s.path)
}

/**
 * Subsequence match, case-insensitive. Runs of consecutive letters, letters at word starts,
 * letters in the file name and a plain substring score higher; undefined when no match.
 */
export function fuzzyScore(query: string, candidate: string): number | undefined {
  const q = query.toLowerCase()
  const c = candidate.toLowerCase()
  const nameStart = c.lastIndexOf("/", c.length - 2) + 1
  let qi = 0
  let score = 0
  let previous = -2
  for (let ci = 0; ci < c.length && qi < q.length; ci++) {
    if (c[ci] !== q[qi]) continue
    score += 1
    if (ci === previous + 1) score += 5
    if (ci === 0 || "/._- ".includes(c[ci - 1]!)) score += 3
    if (ci >= nameStart) score += 2
    previous = ci
    qi++
  }
  if (qi < q.length) return undefined
  if (c.slice(nameStart).includes(q)) score += 20
  else if (c.includes(q)) score += 10
  return score
}
