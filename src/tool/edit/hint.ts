// Explains a failed match: where the file diverges from oldString, or which line of the file
// looks most like it, so the model can fix oldString in one more try.

import { normalizeText } from "./normalize"
import { clip, dice, isBlank, type Lines } from "./text"

const LEVEL = "whitespace-normalized" as const

export function notFoundHint(idx: Lines, old: string): string {
  const oldLines = old.replace(/\n$/, "").split("\n")
  const first = oldLines.findIndex((l) => !isBlank(l))
  if (first === -1) return ""
  const o = oldLines.map((l) => normalizeText(l, LEVEL))
  const f = idx.lines.map((l) => normalizeText(l, LEVEL))

  // Longest run of oldString lines (from its first non-blank line) found consecutively in the file.
  let best: { at: number; run: number } | undefined
  for (let i = 0; i < f.length; i++) {
    if (f[i] !== o[first]) continue
    let run = 1
    while (first + run < o.length && i + run < f.length && f[i + run] === o[first + run]) run++
    if (!best || run > best.run) best = { at: i, run }
  }
  if (best && first + best.run < o.length) {
    const j = first + best.run
    const fileLine = best.at + best.run
    const fileText = fileLine < idx.lines.length ? `line ${fileLine + 1} of the file is "${clip(idx.lines[fileLine].trim())}"` : "the file ends there"
    return (
      ` ${best.run === 1 ? "The first line of oldString matches" : `The first ${best.run} lines of oldString match`} the file at line ${best.at + 1}, ` +
      `but line ${j + 1} of oldString ("${clip(oldLines[j].trim())}") differs: ${fileText}.`
    )
  }

  let near: { at: number; score: number } | undefined
  const target = o[first]
  for (let i = 0; i < f.length; i++) {
    if (Math.abs(f[i].length - target.length) > Math.max(20, target.length)) continue
    const score = dice(f[i], target)
    if (!near || score > near.score) near = { at: i, score }
  }
  if (near && near.score >= 0.5) {
    return ` The line most like the start of oldString is line ${near.at + 1}: "${clip(idx.lines[near.at].trim())}".`
  }
  return ` No line of the file resembles the first line of oldString ("${clip(oldLines[first].trim())}"); check that this is the right file.`
}
