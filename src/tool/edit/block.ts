// Anchor matchers for an oldString whose middle went stale (a line changed, added or dropped
// since the model read the file). The first and last lines must match exactly (after trimming
// and folding typographic characters); the middle is judged by similarity (block-anchor) or by
// the share of identical lines (context-aware). Each anchor pair yields at most one span, and
// the caller refuses when more than one anchor pair qualifies.

import { buildReplacement, type Candidate, type Context, type Snippet } from "./candidate"
import { EditError } from "./error"
import { normalizeText } from "./normalize"
import { dropChancePairs, sameShape } from "./shape"
import { isBlank, lcsPairs, leadingWs, similarity } from "./text"

export const BLOCK_SIMILARITY = 0.65
export const CONTEXT_SHARE = 0.5
/** Character comparisons block-anchor may spend; past it, finding nothing is safer than a partial search. */
const WORK_BUDGET = 60_000_000

const LEVEL = "unicode-normalized" as const

interface Block {
  first: number
  last: number
}

function anchorsUsable(old: Snippet): boolean {
  const k = old.lines.length
  return k >= 3 && !isBlank(old.lines[0]) && !isBlank(old.lines[k - 1])
}

export function blockAnchorMatches(ctx: Context, old: Snippet, neu: Snippet): Candidate[] {
  if (!anchorsUsable(old)) return []
  const o = old.lines.map((l) => normalizeText(l, LEVEL))
  const f = ctx.norm(LEVEL)
  const k = o.length
  const tolerance = Math.max(1, Math.floor(k / 4))
  const oldMiddle = o.slice(1, -1).join("\n")
  const found: Block[] = []
  let work = 0
  for (let i = 0; i < f.length; i++) {
    if (f[i] !== o[0]) continue
    let best: { last: number; score: number } | undefined
    for (let size = Math.max(2, k - tolerance); size <= k + tolerance; size++) {
      const last = i + size - 1
      if (last >= f.length) break
      if (f[last] !== o[k - 1]) continue
      const fileMiddle = f.slice(i + 1, last).join("\n")
      const longer = Math.max(oldMiddle.length, fileMiddle.length)
      // Edit distance is at least the length difference: skip blocks that cannot reach the bar.
      if (longer > 0 && 1 - Math.abs(oldMiddle.length - fileMiddle.length) / longer < BLOCK_SIMILARITY) continue
      work += Math.min(oldMiddle.length * fileMiddle.length, 4_000_000)
      if (work > WORK_BUDGET) return []
      const score = similarity(oldMiddle, fileMiddle)
      const better = !best || score > best.score || (score === best.score && Math.abs(size - k) < Math.abs(best.last - i + 1 - k))
      if (better) best = { last, score }
    }
    if (best && best.score >= BLOCK_SIMILARITY) found.push({ first: i, last: best.last })
  }
  return found.map((b) => toCandidate(ctx, old, neu, b, o, f))
}

export function contextAwareMatches(ctx: Context, old: Snippet, neu: Snippet): Candidate[] {
  if (!anchorsUsable(old)) return []
  const o = old.lines.map((l) => normalizeText(l, LEVEL))
  const f = ctx.norm(LEVEL)
  const k = o.length
  const found: Block[] = []
  for (let i = 0; i + k <= f.length; i++) {
    if (f[i] !== o[0] || f[i + k - 1] !== o[k - 1]) continue
    let total = 0
    let same = 0
    for (let j = 1; j < k - 1; j++) {
      if (o[j] === "") continue
      total++
      if (f[i + j] === o[j]) same++
    }
    if (total > 0 && same / total >= CONTEXT_SHARE) found.push({ first: i, last: i + k - 1 })
  }
  return found.map((b) => toCandidate(ctx, old, neu, b, o, f))
}

/**
 * Aligns the model's lines with the file's block: identical lines pair up; between two pairs,
 * runs of equal length pair line by line (a stale line); other file lines are extras the model
 * never saw and other old lines are missing from the file.
 */
function align(o: string[], f: string[], b: Block) {
  const k = o.length
  const fileLines = f.slice(b.first, b.last + 1)
  const lcs = lcsPairs(o, fileLines, (x, y, j, t) => x === y && (j === 0) === (t === 0) && (j === k - 1) === (t === fileLines.length - 1))
  const equal = dropChancePairs(lcs, o, fileLines)
  const fileOf: (number | undefined)[] = new Array(k).fill(undefined)
  const exact = new Set<number>()
  for (const [j, t] of equal) {
    fileOf[j] = t
    exact.add(j)
  }
  const fileExtra: number[][] = Array.from({ length: k + 1 }, () => [])
  let misaligned: number | undefined
  let reflowed: number | undefined
  let prev: [number, number] = [-1, -1]
  for (const pair of [...equal, [k, fileLines.length] as [number, number]]) {
    const oldGap = pair[0] - prev[0] - 1
    const fileGap = pair[1] - prev[1] - 1
    if (oldGap === fileGap) {
      for (let d = 1; d <= oldGap; d++) {
        const [j, t] = [prev[0] + d, prev[1] + d]
        fileOf[j] = t
        // A stale line pairs with the file line in its place only when both are written alike
        // (same brackets, neither the other joined with its neighbour); else the two sides
        // spread the same code over different lines and happen to count alike.
        if (reflowed === undefined && !sameShape(o, j, fileLines, t)) reflowed = j
      }
    } else {
      for (let t = prev[1] + 1; t < pair[1]; t++) fileExtra[prev[0] + 1].push(t)
      // Lines on both sides that cannot pair one to one: the same code written over a different
      // number of lines. (Old lines alone were deleted since the read; file lines alone, elided.)
      const written = o.slice(prev[0] + 1, pair[0]).findIndex((l) => l.trim() !== "")
      if (misaligned === undefined && fileGap > 0 && written >= 0) misaligned = prev[0] + 1 + written
    }
    prev = pair
  }
  return { fileOf, exact, fileExtra, misaligned: misaligned ?? reflowed }
}

function misaligned(line: string, fileLines: string[], first: number): EditError {
  const shown = fileLines.slice(0, 40).map((l, i) => `${first + i + 1}: ${l}`).join("\n")
  return new EditError(
    "not-found",
    `Refusing the edit: oldString's line ${JSON.stringify(line.trim())} matches no single line of the file, whose lines there are written differently (a block or statement on one line in oldString is spread over several in the file, or the reverse, or statements are joined or split, or a brace moved to another line), so oldString cannot be aligned with the file line for line. Nothing was changed. The file's lines are:\n${shown}\nCopy them into oldString exactly as they are.`,
  )
}

function toCandidate(ctx: Context, old: Snippet, neu: Snippet, b: Block, o: string[], f: string[]): Candidate {
  const { lines, starts } = ctx.idx
  const start = starts[b.first]
  let end = starts[b.last] + lines[b.last].length
  let eofNoNewline = false
  if (old.nl) {
    if (b.last < lines.length - 1) end += 1
    else eofNoNewline = true
  }
  return {
    start,
    end,
    build() {
      const { fileOf, exact, fileExtra, misaligned: off } = align(o, f, b)
      const fileLine = (t: number) => lines[b.first + t]
      // Every line of oldString must stand for one line of the file. Lines that pair with none
      // while the file has other lines there (a statement the file spreads over several lines,
      // or the reverse) would change the wrong neighbour: refuse, and show what the file has.
      if (off !== undefined) throw misaligned(old.lines[off]!, lines.slice(b.first, b.last + 1), b.first)
      return buildReplacement(
        old,
        neu,
        ctx.lf.slice(start, end),
        {
          fileFor: fileOf.map((t) => (t === undefined ? undefined : fileLine(t))),
          fileExtra: fileExtra.map((ts) => ts.map(fileLine)),
          indentPairs: old.lines.flatMap((line, j): [string, string][] =>
            exact.has(j) && !isBlank(line) ? [[leadingWs(line), leadingWs(fileLine(fileOf[j]!))]] : [],
          ),
          partialStart: false,
          partialEnd: false,
        },
        eofNoNewline,
      )
    },
  }
}
