// What every matcher produces: a span of the (LF-normalised) file and a way to build its
// replacement. Also the shared context the matchers read from.

import { fancyChars, normalizeText, type Level } from "./normalize"
import { rebuild, type Alignment } from "./rebuild"
import type { Lines } from "./text"

export interface Candidate {
  start: number
  end: number
  /** Replacement text (LF line endings). */
  build(): string
}

export interface Context {
  lf: string
  idx: Lines
  norm(level: Level): string[]
}

export function makeContext(lf: string, idx: Lines): Context {
  const cache = new Map<Level, string[]>()
  return {
    lf,
    idx,
    norm(level) {
      let lines = cache.get(level)
      if (!lines) {
        lines = idx.lines.map((l) => normalizeText(l, level))
        cache.set(level, lines)
      }
      return lines
    },
  }
}

export interface Snippet {
  lines: string[]
  /** The text ended with a newline (not part of `lines`). */
  nl: boolean
}

export function snippet(s: string): Snippet {
  if (s === "") return { lines: [], nl: false }
  const nl = s.endsWith("\n")
  return { lines: (nl ? s.slice(0, -1) : s).split("\n"), nl }
}

/** Replacement text for a line-based match, given how old lines map onto the file. */
export function buildReplacement(
  old: Snippet,
  neu: Snippet,
  spanText: string,
  parts: Omit<Alignment, "oldLines" | "newLines" | "fancy">,
  eofNoNewline: boolean,
): string {
  const fancy = new Set([...fancyChars(old.lines.join("\n"))].filter((c) => !spanText.includes(c)))
  const lines = rebuild({ ...parts, oldLines: old.lines, newLines: neu.lines, fancy })
  // An empty newString deletes the lines; file lines the model never saw still end their lines.
  if (neu.lines.length === 0) return old.nl && !eofNoNewline ? lines.map((l) => l + "\n").join("") : lines.join("\n")
  return lines.join("\n") + (neu.nl && !eofNoNewline ? "\n" : "")
}
