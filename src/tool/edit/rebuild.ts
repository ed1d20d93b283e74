// Builds the replacement for a fuzzy match as a small three-way merge:
//   base   = the model's oldString lines (what it believes the file says),
//   theirs = the file's lines at the match (what the file really says),
//   ours   = the model's newString lines (what it wants).
// Lines the model kept unchanged come back exactly as the file has them (so indentation,
// trailing spaces, quotes and even a line that went stale stay untouched); lines the model
// added or rewrote are re-indented into the file's style; file lines the model never saw are kept.

import { learnIndent } from "./indent"
import { lcsPairs, leadingWs, isBlank } from "./text"
import { fold } from "./normalize"

export interface Alignment {
  oldLines: string[]
  newLines: string[]
  /** For each old line, the file's current text for it, or undefined if the file lacks it. */
  fileFor: (string | undefined)[]
  /** File lines with no counterpart in oldLines, by gap: index g sits before oldLines[g]. */
  fileExtra: string[][]
  /** (model indent, file indent) of lines known to be the same line. */
  indentPairs: [string, string][]
  /** Old line 0 starts mid-line: it pairs only with new line 0, which is never re-indented. */
  partialStart: boolean
  /** The last old line stops mid-line: it pairs only with the last new line. */
  partialEnd: boolean
  /** Typographic characters the model typed that the matched file text does not use. */
  fancy: Set<string>
}

export function rebuild(a: Alignment): string[] {
  const k = a.oldLines.length
  const n = a.newLines.length
  const pairs = lcsPairs(a.oldLines, a.newLines, (o, nl, j, t) => {
    if (o !== nl) return false
    if (a.partialStart && (j === 0 || t === 0) && !(j === 0 && t === 0)) return false
    if (a.partialEnd && (j === k - 1 || t === n - 1) && !(j === k - 1 && t === n - 1)) return false
    return true
  })
  const kept = new Set(pairs.map(([j]) => j))
  const added: number[][] = Array.from({ length: k + 1 }, () => [])
  let p = 0
  for (let t = 0; t < n; t++) {
    while (p < pairs.length && pairs[p][1] < t) p++
    if (p < pairs.length && pairs[p][1] === t) continue
    const gap = p > 0 ? pairs[p - 1][0] + 1 : 0
    added[gap].push(t)
  }

  const convert = newLineConverter(a)
  const out: string[] = []
  for (let g = 0; g <= k; g++) {
    out.push(...a.fileExtra[g])
    // Old lines this gap's new lines replace, so a rewritten line can take its file line's indent.
    const removed: number[] = []
    let next = g
    while (next < k && !kept.has(next)) removed.push(next++)
    added[g].forEach((t, r) => {
      const replaces = r < removed.length ? removed[r] : undefined
      out.push(convert(a.newLines[t], t, replaces !== undefined ? [replaces] : [g - 1, next], replaces))
    })
    if (g < k && kept.has(g) && a.fileFor[g] !== undefined) out.push(a.fileFor[g]!)
  }
  return out
}

/**
 * Converts one added line: `t` is its index in newLines, `refs` the old lines whose indentation
 * it should follow, `replaces` the old line it rewrites one-for-one, if any.
 */
export type Convert = (line: string, t: number, refs: number[], replaces?: number) => string

export function newLineConverter(a: Alignment): Convert {
  const fancy = [...a.fancy]
  const unfancy = (line: string) =>
    fancy.some((c) => line.includes(c)) ? [...line].map((c) => (a.fancy.has(c) ? fold(c) : c)).join("") : line
  const map = learnIndent(a.indentPairs)
  const indents = a.newLines.filter((l, t) => !isBlank(l) && !(a.partialStart && t === 0)).map(leadingWs)
  // undefined: the model indents like the file; alreadyFileStyle: newString was written in the file's style.
  const skip = map === undefined || (map !== null && map.alreadyFileStyle(indents))
  return (line, t, refs, replaces) => {
    const out = keepTrailing(a, unfancy(line), replaces)
    if (skip || (a.partialStart && t === 0) || isBlank(out)) return out
    const lead = leadingWs(out)
    const next = map?.apply(lead) ?? localIndent(a, lead, refs)
    return next === null ? out : next + out.slice(lead.length)
  }
}

/**
 * A rewritten line keeps a Markdown hard break (two or more trailing spaces) the model never
 * saw: its old line had no trailing whitespace, the file's line has the break, the new line
 * has none. Other trailing whitespace is noise and is not carried over.
 */
function keepTrailing(a: Alignment, line: string, replaces: number | undefined): string {
  if (replaces === undefined || isBlank(line) || /\s$/.test(line)) return line
  const file = a.fileFor[replaces]
  if (file === undefined || isBlank(file) || /\s$/.test(a.oldLines[replaces])) return line
  const trail = / {2,}$/.exec(file)
  return trail ? line + trail[0] : line
}

/**
 * When no single rule explains the indentation (e.g. the model flattened a nested block),
 * indent a new line like the old line it replaces, or its deeper neighbour, shifted by the
 * difference the model itself made.
 */
function localIndent(a: Alignment, lead: string, refs: number[]): string | null {
  let best: { model: string; file: string } | undefined
  for (const j of refs) {
    const file = a.fileFor[j]
    if (j < 0 || j >= a.oldLines.length || file === undefined || isBlank(a.oldLines[j]) || isBlank(file)) continue
    const cand = { model: leadingWs(a.oldLines[j]), file: leadingWs(file) }
    if (!best || cand.file.length > best.file.length) best = cand
  }
  if (!best) return null
  if (lead.startsWith(best.model)) return best.file + lead.slice(best.model.length)
  const less = best.model.length - lead.length
  if (best.model.startsWith(lead) && best.file.length >= less) return best.file.slice(0, best.file.length - less)
  return null
}
