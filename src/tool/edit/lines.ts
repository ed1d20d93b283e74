// Line-by-line matchers: oldString's lines are compared with consecutive file lines after a
// normalisation (trailing spaces, indentation, typographic characters, inner whitespace).
// The first line may start mid-line and the last may stop mid-line, as when a model copies
// part of a line; such partial lines must still begin or end on a word boundary.

import { buildReplacement, type Candidate, type Context, type Snippet } from "./candidate"
import { learnIndent } from "./indent"
import { isWordChar, normalize, type Level } from "./normalize"
import { isBlank, leadingWs } from "./text"

interface Hit {
  first: number
  /** Partial first line: the span starts at this column of the file line. */
  startCol?: number
  /** Partial last line: the span stops at this column of the file line. */
  endCol?: number
}

export function lineMatches(ctx: Context, old: Snippet, neu: Snippet, level: Level): Candidate[] {
  const hits = old.lines.length === 1 ? singleLineHits(ctx, old, level) : blockHits(ctx, old, level)
  const accepted = level === "indentation-flexible" ? hits.filter((h) => consistentIndent(ctx, old, h)) : hits
  return accepted.map((h) => toCandidate(ctx, old, neu, h))
}

function normOld(old: Snippet, level: Level): string[] {
  return old.lines.map((l) => normalize(l, level).s)
}

function singleLineHits(ctx: Context, old: Snippet, level: Level): Hit[] {
  const o = normOld(old, level)[0]
  if (o === "") return []
  const file = ctx.norm(level)
  const hits: Hit[] = []
  for (let i = 0; i < file.length; i++) {
    const f = file[i]
    if (f === o) {
      hits.push({ first: i })
      continue
    }
    if (!f.includes(o)) continue
    const map = normalize(ctx.idx.lines[i], level)
    for (let at = f.indexOf(o); at !== -1; at = f.indexOf(o, at + 1)) {
      const end = at + o.length
      // oldString ending in a newline must reach the end of the line.
      if (old.nl && end !== f.length) continue
      if (!boundaryBefore(f, at, o) || !boundaryAfter(f, end, o)) continue
      hits.push({ first: i, startCol: map.from[at], endCol: end === f.length ? undefined : map.to[end - 1] })
    }
  }
  return hits
}

function blockHits(ctx: Context, old: Snippet, level: Level): Hit[] {
  const o = normOld(old, level)
  const k = o.length
  const file = ctx.norm(level)
  const hits: Hit[] = []
  for (let i = 0; i + k <= file.length; i++) {
    let ok = true
    for (let j = 1; j < k - 1 && ok; j++) ok = file[i + j] === o[j]
    if (!ok) continue
    const head = file[i]
    let startCol: number | undefined
    if (head !== o[0]) {
      if (o[0] === "" || !head.endsWith(o[0]) || !boundaryBefore(head, head.length - o[0].length, o[0])) continue
      startCol = normalize(ctx.idx.lines[i], level).from[head.length - o[0].length]
    }
    const tail = file[i + k - 1]
    const last = o[k - 1]
    let endCol: number | undefined
    if (tail !== last) {
      if (old.nl || last === "" || !tail.startsWith(last) || !boundaryAfter(tail, last.length, last)) continue
      endCol = normalize(ctx.idx.lines[i + k - 1], level).to[last.length - 1]
    }
    hits.push({ first: i, startCol, endCol })
  }
  return hits
}

function boundaryBefore(line: string, at: number, piece: string): boolean {
  return at === 0 || !(isWordChar(line[at - 1]) && isWordChar(piece[0]))
}

function boundaryAfter(line: string, end: number, piece: string): boolean {
  return end === line.length || !(isWordChar(line[end]) && isWordChar(piece[piece.length - 1]))
}

function indentPairs(ctx: Context, old: Snippet, h: Hit): [string, string][] {
  const pairs: [string, string][] = []
  old.lines.forEach((line, j) => {
    if (isBlank(line) || (j === 0 && h.startCol !== undefined)) return
    pairs.push([leadingWs(line), leadingWs(ctx.idx.lines[h.first + j])])
  })
  return pairs
}

function consistentIndent(ctx: Context, old: Snippet, h: Hit): boolean {
  return learnIndent(indentPairs(ctx, old, h)) !== null
}

function toCandidate(ctx: Context, old: Snippet, neu: Snippet, h: Hit): Candidate {
  const { lines, starts } = ctx.idx
  const k = old.lines.length
  const last = h.first + k - 1
  const start = starts[h.first] + (h.startCol ?? 0)
  let end = starts[last] + (h.endCol ?? lines[last].length)
  let eofNoNewline = false
  if (old.nl) {
    if (last < lines.length - 1) end += 1
    else eofNoNewline = true
  }
  return {
    start,
    end,
    build() {
      const fileFor = old.lines.map((_, j) => {
        const line = lines[h.first + j]
        const from = j === 0 ? (h.startCol ?? 0) : 0
        const to = j === k - 1 ? (h.endCol ?? line.length) : line.length
        return line.slice(from, to)
      })
      return buildReplacement(
        old,
        neu,
        ctx.lf.slice(start, end),
        {
          fileFor,
          fileExtra: Array.from({ length: k + 1 }, () => []),
          indentPairs: indentPairs(ctx, old, h),
          partialStart: h.startCol !== undefined,
          partialEnd: h.endCol !== undefined,
        },
        eofNoNewline,
      )
    },
  }
}
