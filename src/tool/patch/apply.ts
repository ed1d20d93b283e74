// Applies the hunks of one "*** Update File" section to a file's text, in memory.
// Each hunk's old lines (context + removed) are looked up from where the previous hunk ended,
// after its `@@` anchors, trying exact lines first, then ignoring trailing whitespace, then
// leading whitespace too, then typographic characters (codex's order). Unchanged lines are
// written back exactly as the file has them; added lines follow the file's indentation.
// A first hunk that could land in two places is refused instead of guessed.

import { notFoundHint } from "../edit/hint"
import { isWordChar, normalizeText } from "../edit/normalize"
import { newLineConverter } from "../edit/rebuild"
import { isBlank, leadingWs, openDoc, splitLines, spliceDoc, type Splice } from "../edit/text"
import type { PatchChunk, PatchLine } from "./types"

type SeekLevel = (line: string) => string

const SEEK_LEVELS: SeekLevel[] = [
  (l) => l,
  (l) => l.trimEnd(),
  (l) => l.trim(),
  (l) => normalizeText(l, "unicode-normalized"),
]

/**
 * Compares only as much of a file line as the anchor has (trimmed, typographic characters
 * folded), and only where the anchor ends on a word boundary of the line.
 */
function ANCHOR_PREFIX(anchor: string): SeekLevel {
  const a = normalizeText(anchor, "unicode-normalized")
  return (l) => {
    const t = normalizeText(l, "unicode-normalized")
    return isWordChar(t[a.length]) && isWordChar(a[a.length - 1]) ? t : t.slice(0, a.length)
  }
}

function fail(label: string, chunk: PatchChunk, index: number, reason: string): Error {
  return new Error(`apply_patch verification failed: ${label}: hunk ${index + 1} (patch line ${chunk.line}) ${reason}`)
}

class Seeker {
  private cache = new Map<SeekLevel, string[]>()
  constructor(readonly lines: string[]) {}

  private norm(level: SeekLevel): string[] {
    let n = this.cache.get(level)
    if (!n) this.cache.set(level, (n = this.lines.map(level)))
    return n
  }

  private at(level: SeekLevel, pattern: string[], p: number): boolean {
    const f = this.norm(level)
    return pattern.every((l, j) => f[p + j] === level(l))
  }

  /** First position ≥ from where pattern matches, at the strictest level that matches anywhere. */
  seek(pattern: string[], from: number, eof: boolean): { pos: number; level: SeekLevel } | undefined {
    const last = this.lines.length - pattern.length
    if (eof && last >= from) {
      for (const level of SEEK_LEVELS) if (this.at(level, pattern, last)) return { pos: last, level }
    }
    for (const level of SEEK_LEVELS) {
      for (let p = from; p <= last; p++) if (this.at(level, pattern, p)) return { pos: p, level }
    }
    return undefined
  }

  /** An `@@` anchor: a whole line as in seek, or else the start of a line ("def total" for "def total(self):"). */
  anchor(text: string, from: number): { pos: number; level: SeekLevel } | undefined {
    const hit = this.seek([text], from, false)
    if (hit || text.trim().length < 4) return hit
    const level = ANCHOR_PREFIX(text)
    for (let p = from; p < this.lines.length; p++) if (level(this.lines[p]) === level(text)) return { pos: p, level }
    return undefined
  }

  all(pattern: string[], from: number, level: SeekLevel): number[] {
    const out: number[] = []
    for (let p = from; p <= this.lines.length - pattern.length; p++) if (this.at(level, pattern, p)) out.push(p)
    return out
  }
}

interface Located {
  kind: "replace"
  pos: number
  level: SeekLevel
  old: string[]
  lines: PatchLine[]
}

/** Follows a chunk's anchors in order from `from`; returns the line of the last one. */
function followAnchors(seeker: Seeker, anchors: string[], from: number, onMissing: (anchor: string, at: number) => never): number {
  let at = from
  let pos = -1
  for (const anchor of anchors) {
    const hit = seeker.anchor(anchor, at)
    if (!hit) onMissing(anchor, at)
    pos = hit.pos
    at = pos + 1
  }
  return pos
}

/**
 * Finds a chunk: its anchors in order from `from`, then its old lines from the last anchor on
 * (a model often repeats the anchor line as the first unchanged line).
 */
function locate(seeker: Seeker, chunk: PatchChunk, from: number, label: string, index: number): Located | { kind: "insert"; at: number } | undefined {
  const anchored = chunk.context.length > 0
  const missing = (anchor: string): never => {
    throw fail(label, chunk, index, `has the anchor "@@ ${anchor}", but no line of the file reads like it. Use a line that exists in the file (for example the enclosing function's signature).`)
  }
  // Anchors are looked for after the previous hunk; models also repeat an earlier hunk's anchor
  // for a later change in the same function, so an anchor behind the cursor counts as the cursor.
  let anchorPos: number
  try {
    anchorPos = followAnchors(seeker, chunk.context, from, () => {
      throw new Error("behind")
    })
  } catch {
    anchorPos = Math.max(followAnchors(seeker, chunk.context, 0, missing), from - 1)
  }
  const start = anchored ? Math.max(anchorPos, from) : from
  let lines = chunk.lines
  const oldOf = (ls: PatchLine[]) => ls.filter((l) => l.op !== "+").map((l) => l.text)
  // Only added lines: after the anchor, or at the end of the file without one.
  if (oldOf(lines).length === 0) return { kind: "insert", at: anchored ? Math.max(anchorPos + 1, from) : seeker.lines.length }
  let hit = seeker.seek(oldOf(lines), start, chunk.endOfFile)
  // A blank context line at the end is often the model's separator, not the file's blank line.
  while (!hit && lines.length > 1 && lines[lines.length - 1].op === " " && isBlank(lines[lines.length - 1].text)) {
    lines = lines.slice(0, -1)
    hit = seeker.seek(oldOf(lines), start, chunk.endOfFile)
  }
  if (!hit) return undefined
  return { kind: "replace", pos: hit.pos, level: hit.level, old: oldOf(lines), lines }
}

export function applyChunks(text: string, chunks: PatchChunk[], label: string): string {
  const doc = openDoc(text)
  const finalNewline = doc.lf.endsWith("\n")
  const lines = doc.lf === "" ? [] : (finalNewline ? doc.lf.slice(0, -1) : doc.lf).split("\n")
  const starts = splitLines(doc.lf).starts
  const seeker = new Seeker(lines)
  const splices: Splice[] = []
  let cursor = 0

  chunks.forEach((chunk, index) => {
    const found = locate(seeker, chunk, cursor, label, index)
    if (!found) {
      const old = chunk.lines.filter((l) => l.op !== "+").map((l) => l.text)
      const shown = old.slice(0, 12).map((l) => `  ${l}`).join("\n") + (old.length > 12 ? "\n  …" : "")
      throw fail(
        label,
        chunk,
        index,
        `does not match the file. Could not find these lines${cursor > 0 ? ` after line ${cursor}` : ""}:\n${shown}\n` +
          notFoundHint(splitLines(lines.join("\n")), old.join("\n")).trim() +
          " Read the file again and resend the whole patch with the unchanged and removed lines copied exactly.",
      )
    }
    if (found.kind === "insert") {
      if (index === 0 && chunk.context.length > 0) refuseAmbiguous(seeker, chunk, label, [], undefined, found.at)
      splices.push(lineSplice(doc.lf, lines, starts, finalNewline, found.at, 0, chunk.lines.map((l) => l.text)))
      cursor = found.at
      return
    }
    if (index === 0) refuseAmbiguous(seeker, chunk, label, found.old, found.level, found.pos)
    splices.push(lineSplice(doc.lf, lines, starts, finalNewline, found.pos, found.old.length, newLines(found, lines)))
    cursor = found.pos + found.old.length
  })
  return spliceDoc(doc, splices)
}

/** A first hunk is positioned by nothing but its own text: two places where it fits is a guess. */
function refuseAmbiguous(seeker: Seeker, chunk: PatchChunk, label: string, old: string[], level: SeekLevel | undefined, pos: number): void {
  if (chunk.endOfFile && pos === seeker.lines.length - old.length) return
  let places: number[]
  if (chunk.context.length === 0) places = level ? seeker.all(old, 0, level) : [pos]
  else {
    const results = new Set<number>()
    const first = seeker.anchor(chunk.context[0], 0)
    for (const at of first ? seeker.all([chunk.context[0]], 0, first.level) : []) {
      let anchorPos: number
      try {
        anchorPos = followAnchors(seeker, chunk.context.slice(1), at + 1, () => {
          throw new Error("anchor missing")
        })
      } catch {
        continue
      }
      const last = chunk.context.length > 1 ? anchorPos : at
      if (old.length === 0) results.add(last + 1)
      else {
        const hit = seeker.seek(old, last, chunk.endOfFile)
        if (hit) results.add(hit.pos)
      }
    }
    places = [...results]
  }
  if (places.length <= 1) return
  throw fail(
    label,
    chunk,
    0,
    `matches ${places.length} places in the file (at lines ${places.slice(0, 6).map((p) => p + 1).join(", ")}). Nothing was changed. Add an "@@ <line>" anchor naming a unique line above the change (such as the enclosing function or class), or more unchanged lines around it.`,
  )
}

/** The hunk's new lines: unchanged lines from the file, added lines re-indented like the file. */
function newLines(found: Located, fileLines: string[]): string[] {
  const fileFor = found.old.map((_, j) => fileLines[found.pos + j])
  const indentPairs: [string, string][] = []
  found.old.forEach((l, j) => {
    if (!isBlank(l)) indentPairs.push([leadingWs(l), leadingWs(fileFor[j])])
  })
  const added = found.lines.filter((l) => l.op === "+").map((l) => l.text)
  const convert = newLineConverter({
    oldLines: found.old,
    newLines: added,
    fileFor,
    fileExtra: [],
    indentPairs,
    partialStart: false,
    partialEnd: false,
    fancy: new Set(),
  })
  const out: string[] = []
  let oldIdx = 0
  let addIdx = 0
  let removedRun: number[] = []
  let runPos = 0
  for (const l of found.lines) {
    if (l.op === " ") {
      out.push(fileFor[oldIdx++])
      removedRun = []
      runPos = 0
    } else if (l.op === "-") {
      if (runPos > 0) {
        removedRun = []
        runPos = 0
      }
      removedRun.push(oldIdx++)
    } else {
      const replaces = runPos < removedRun.length ? removedRun[runPos] : undefined
      runPos++
      out.push(convert(l.text, addIdx++, replaces !== undefined ? [replaces] : [oldIdx - 1, oldIdx], replaces))
    }
  }
  return out
}

/** Replaces whole lines [at, at+count) with `replacement`, keeping the file's final-newline state. */
function lineSplice(lf: string, lines: string[], starts: number[], finalNewline: boolean, at: number, count: number, replacement: string[]): Splice {
  const reachesEnd = at + count >= lines.length
  const start = at < lines.length ? starts[at] : lf.length
  const end = reachesEnd ? lf.length : starts[at + count]
  if (lines.length === 0) return { start: 0, end: lf.length, text: replacement.map((l) => l + "\n").join("") }
  if (!reachesEnd || finalNewline) return { start, end, text: replacement.map((l) => l + "\n").join("") }
  // The file has no final newline and the change reaches its last line.
  if (at >= lines.length) return { start, end, text: replacement.length ? "\n" + replacement.join("\n") : "" }
  if (replacement.length === 0 && at > 0) return { start: start - 1, end, text: "" }
  return { start, end, text: replacement.join("\n") }
}
