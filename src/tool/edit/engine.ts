// The text engine behind the `edit` tool: find oldString in a file's text and replace it.
// Pure: no file system, no permissions. Matchers run from strict to loose; the first matcher
// that finds anything decides. One span → replace it; several → refuse (never guess); a span
// much larger than oldString → refuse. The file's BOM and line endings survive every edit.

import { blockAnchorMatches, contextAwareMatches } from "./block"
import { snippet, makeContext, type Candidate, type Context } from "./candidate"
import { notFoundHint } from "./hint"
import { lineMatches } from "./lines"
import { LEVELS } from "./normalize"
import { lineAt, openDoc, splitLines, spliceDoc, stripBom, toLf, type Splice } from "./text"
import { variants, type Variant } from "./variants"

import { EditError } from "./error"
import { followQuotes } from "./quotes"

export { EditError, type EditErrorKind } from "./error"

export interface EditResult {
  text: string
  /** Which matcher found the span, e.g. "exact", "line-trimmed", "line-number-prefix/exact". */
  matcher: string
  /** How many spans were replaced. */
  count: number
}

interface Strategy {
  name: string
  old: string
  find(): Candidate[]
}

function* strategies(ctx: Context, old: string, neu: string): Generator<Strategy> {
  const all: Variant[] = [{ name: "", old, new: neu }, ...variants(old, neu)]
  const fuzzy = old.trim() !== ""
  for (const v of all) {
    const o = snippet(v.old)
    const n = snippet(v.new)
    const named = (s: string) => (v.name ? `${v.name}/${s}` : s)
    yield { name: named("exact"), old: v.old, find: () => exactMatches(ctx.lf, v.old, v.new) }
    if (!fuzzy) continue
    for (const level of LEVELS) yield { name: named(level), old: v.old, find: () => lineMatches(ctx, o, n, level) }
  }
  if (!fuzzy) return
  for (const [name, find] of [["block-anchor", blockAnchorMatches], ["context-aware", contextAwareMatches]] as const) {
    for (const v of all) {
      const o = snippet(v.old)
      const n = snippet(v.new)
      yield { name: v.name ? `${v.name}/${name}` : name, old: v.old, find: () => find(ctx, o, n) }
    }
  }
}

function exactMatches(lf: string, old: string, neu: string): Candidate[] {
  const out: Candidate[] = []
  for (let at = lf.indexOf(old); at !== -1; at = lf.indexOf(old, at + 1)) {
    out.push({ start: at, end: at + old.length, build: () => neu })
  }
  return out
}

/**
 * Applies one edit to a file's full text. Keeps the text's BOM and line endings (CRLF files stay
 * CRLF even if oldString/newString use LF). Returns the new text and which matcher succeeded.
 * Throws EditError with a message written for the model (what happened + how to fix).
 */
export function applyEdit(text: string, oldString: string, newString: string, replaceAll = false): EditResult {
  if (oldString === "") {
    throw new EditError(
      "empty-old",
      "oldString is empty, so there is nothing to find. To create a new file, write it whole (edit with an empty oldString works only for a path that does not exist yet). To insert text, put the line just before the insertion point in oldString and repeat it, followed by the new lines, in newString.",
    )
  }
  const old = toLf(stripBom(oldString))
  const neu = toLf(stripBom(newString))
  if (old === neu) {
    throw new EditError("no-change", "No changes to apply: oldString and newString are identical. Put the new text in newString.")
  }
  const doc = openDoc(text)
  const idx = splitLines(doc.lf)
  const ctx = makeContext(doc.lf, idx)

  for (const strategy of strategies(ctx, old, neu)) {
    const found = dedupe(strategy.find())
    if (found.length === 0) continue
    if (found.length > 1 && !replaceAll) throw multiple(ctx, found, strategy)
    const chosen = replaceAll ? nonOverlapping(found) : found
    for (const c of chosen) checkSize(ctx, c, strategy.old)
    const splices = chosen.map((c) => lastLine(doc.lf, absorbIndent(doc.lf, { start: c.start, end: c.end, text: followQuotes(doc.lf.slice(c.start, c.end), old, c.build()) })))
    if (splices.every((s) => s.text === doc.lf.slice(s.start, s.end))) {
      throw new EditError(
        "no-change",
        `No changes to apply: the text at ${where(ctx, chosen[0])} already reads as newString. Read the file to check whether the edit was made before.`,
      )
    }
    return { text: spliceDoc(doc, splices), matcher: strategy.name, count: chosen.length }
  }
  throw new EditError(
    "not-found",
    "Could not find oldString in the file, even ignoring differences in indentation, trailing spaces, typographic quotes and dashes, escaped characters and read line-number prefixes." +
      notFoundHint(idx, old) +
      " Read the file again and copy the lines you want to change exactly as they are now; keep oldString to those lines plus a little unique context.",
  )
}

/** Deleting a whole line matched without its indentation also deletes that indentation. */
function absorbIndent(lf: string, s: Splice): Splice {
  if (s.text !== "" || (s.end < lf.length && lf[s.end - 1] !== "\n")) return s
  const lineStart = lf.lastIndexOf("\n", s.start - 1) + 1
  return /^[ \t]+$/.test(lf.slice(lineStart, s.start)) ? { ...s, start: lineStart } : s
}

/** Deleting the whole last line also deletes the newline before it, so no blank line is left at the end. */
function lastLine(lf: string, s: Splice): Splice {
  if (s.text !== "" || s.start === 0 || lf[s.start - 1] !== "\n" || s.end !== lf.length - 1 || lf[s.end] !== "\n") return s
  return { ...s, start: s.start - 1 }
}

function dedupe(found: Candidate[]): Candidate[] {
  const seen = new Set<string>()
  return found.filter((c) => {
    const key = `${c.start}:${c.end}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function nonOverlapping(found: Candidate[]): Candidate[] {
  const sorted = [...found].sort((a, b) => a.start - b.start)
  const out: Candidate[] = []
  let end = -1
  for (const c of sorted) {
    if (c.start < end || (c.start === end && c.end === c.start)) continue
    out.push(c)
    end = c.end
  }
  return out
}

function lineRange(ctx: Context, c: Candidate): [number, number] {
  const first = lineAt(ctx.idx, c.start)
  const last = c.end > c.start ? lineAt(ctx.idx, c.end - 1) : first
  return [first + 1, last + 1]
}

function where(ctx: Context, c: Candidate): string {
  const [a, b] = lineRange(ctx, c)
  return a === b ? `line ${a}` : `lines ${a}-${b}`
}

function multiple(ctx: Context, found: Candidate[], strategy: Strategy): EditError {
  const places = found.slice(0, 8).map((c) => where(ctx, c))
  const more = found.length > 8 ? `, and ${found.length - 8} more` : ""
  const how = strategy.name === "exact" ? "" : ` (compared with the ${strategy.name} matcher, because oldString does not match exactly)`
  return new EditError(
    "multiple",
    `Found ${found.length} matches for oldString${how}: ${places.join(", ")}${more}. Nothing was changed. Add more surrounding lines to oldString so that it matches only the place you mean, or set replaceAll to true to change every occurrence.`,
  )
}

/** OpenCode's rule: a span of ≥ max(n+3, 2n) lines, or (multi-line) > max(len+500, 4·len) chars, is not what oldString meant. */
function checkSize(ctx: Context, c: Candidate, old: string): void {
  const span = ctx.lf.slice(c.start, c.end)
  const n = snippet(old).lines.length
  const spanLines = snippet(span).lines.length
  const len = old.trim().length
  const tooManyLines = spanLines >= Math.max(n + 3, 2 * n)
  const tooLong = n > 1 && span.trim().length > Math.max(len + 500, 4 * len)
  if (!tooManyLines && !tooLong) return
  throw new EditError(
    "too-large",
    `Refusing the edit: the only text resembling oldString (${where(ctx, c)}, ${spanLines} lines, ${span.length} characters) is much larger than oldString (${n} lines, ${old.length} characters), so it is probably not the text you meant. Nothing was changed. Copy the exact current lines from the file into oldString.`,
  )
}
