// Plain-text plumbing shared by the edit and patch engines: BOM and line endings, line
// offsets, and cheap similarity measures. No matching policy lives here.

const BOM = "\uFEFF"

export interface Doc {
  bom: boolean
  /** Line ending used for new text: the file's dominant one. */
  eol: "\n" | "\r\n"
  /** The text without BOM and with every CRLF turned into LF; all matching works on this. */
  lf: string
  /** Positions in `lf` of the newlines that were CRLF in the original. */
  crlf: number[]
  /** The original text without its BOM. */
  body: string
}

export function openDoc(text: string): Doc {
  const bom = text.startsWith(BOM)
  const body = bom ? text.slice(1) : text
  const crlf: number[] = []
  let lf = ""
  let lone = 0
  let last = 0
  for (let i = body.indexOf("\n"); i !== -1; i = body.indexOf("\n", i + 1)) {
    if (i > 0 && body[i - 1] === "\r") {
      lf += body.slice(last, i - 1) + "\n"
      crlf.push(lf.length - 1)
    } else {
      lf += body.slice(last, i + 1)
      lone++
    }
    last = i + 1
  }
  lf += body.slice(last)
  return { bom, eol: crlf.length > lone ? "\r\n" : "\n", lf, crlf, body }
}

/** Maps an offset in `doc.lf` to the same place in `doc.body`. */
export function toBodyOffset(doc: Doc, p: number): number {
  let lo = 0
  let hi = doc.crlf.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (doc.crlf[mid] < p) lo = mid + 1
    else hi = mid
  }
  return p + lo
}

export interface Splice {
  start: number
  end: number
  text: string
}

/** Applies LF-space splices to the original text: bytes outside the splices stay exactly as they were. */
export function spliceDoc(doc: Doc, splices: Splice[]): string {
  const sorted = [...splices].sort((a, b) => a.start - b.start)
  let out = ""
  let at = 0
  for (const s of sorted) {
    const start = toBodyOffset(doc, s.start)
    const end = toBodyOffset(doc, s.end)
    out += doc.body.slice(at, start) + withEol(s.text, doc.eol)
    at = end
  }
  out += doc.body.slice(at)
  return (doc.bom ? BOM : "") + out
}

export function toLf(s: string): string {
  return s.replace(/\r\n/g, "\n")
}

export function stripBom(s: string): string {
  return s.startsWith(BOM) ? s.slice(1) : s
}

export function withEol(s: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? s : s.replace(/\n/g, "\r\n")
}

export interface Lines {
  lines: string[]
  starts: number[]
}

export function splitLines(lf: string): Lines {
  const lines = lf.split("\n")
  const starts: number[] = []
  let at = 0
  for (const line of lines) {
    starts.push(at)
    at += line.length + 1
  }
  return { lines, starts }
}

/** 0-based line index containing offset p. */
export function lineAt(index: Lines, p: number): number {
  let lo = 0
  let hi = index.starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (index.starts[mid] <= p) lo = mid
    else hi = mid - 1
  }
  return lo
}

export function leadingWs(line: string): string {
  return /^[ \t]*/.exec(line)![0]
}

export function isBlank(line: string): boolean {
  return line.trim() === ""
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0
  if (!a.length || !b.length) return Math.max(a.length, b.length)
  let prev = new Array<number>(b.length + 1)
  let cur = new Array<number>(b.length + 1)
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    }
    ;[prev, cur] = [cur, prev]
  }
  return prev[b.length]
}

/** 1 for equal strings, 0 for nothing in common; character-level edit distance. */
export function similarity(a: string, b: string): number {
  const max = Math.max(a.length, b.length)
  if (max === 0) return 1
  // Long blocks: compare line sets instead of paying for a quadratic edit distance.
  if (a.length * b.length > 4_000_000) return lineSimilarity(a.split("\n"), b.split("\n"))
  return 1 - levenshtein(a, b) / max
}

function lineSimilarity(a: string[], b: string[]): number {
  const pairs = lcsPairs(a, b, (x, y) => x === y)
  return (2 * pairs.length) / (a.length + b.length || 1)
}

/** Dice coefficient over character bigrams: a cheap "how alike" score for hints. */
export function dice(a: string, b: string): number {
  if (a === b) return 1
  if (a.length < 2 || b.length < 2) return 0
  const grams = new Map<string, number>()
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2)
    grams.set(g, (grams.get(g) ?? 0) + 1)
  }
  let common = 0
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2)
    const n = grams.get(g) ?? 0
    if (n > 0) {
      common++
      grams.set(g, n - 1)
    }
  }
  return (2 * common) / (a.length + b.length - 2)
}

/**
 * Longest common subsequence of two line lists under `eq`; returns matched index pairs in order.
 * Falls back to matching a common prefix and suffix when the table would be too large.
 */
export function lcsPairs<A, B>(a: A[], b: B[], eq: (x: A, y: B, i: number, j: number) => boolean): [number, number][] {
  const n = a.length
  const m = b.length
  if (n * m > 4_000_000) return prefixSuffixPairs(a, b, eq)
  const table = new Uint32Array((n + 1) * (m + 1))
  const w = m + 1
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = eq(a[i], b[j], i, j)
        ? table[(i + 1) * w + j + 1] + 1
        : Math.max(table[(i + 1) * w + j], table[i * w + j + 1])
    }
  }
  const pairs: [number, number][] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (eq(a[i], b[j], i, j) && table[i * w + j] === table[(i + 1) * w + j + 1] + 1) {
      pairs.push([i, j])
      i++
      j++
    } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) i++
    else j++
  }
  return pairs
}

function prefixSuffixPairs<A, B>(a: A[], b: B[], eq: (x: A, y: B, i: number, j: number) => boolean): [number, number][] {
  const pairs: [number, number][] = []
  let p = 0
  while (p < a.length && p < b.length && eq(a[p], b[p], p, p)) pairs.push([p, p++])
  const tail: [number, number][] = []
  let i = a.length - 1
  let j = b.length - 1
  while (i >= p && j >= p && eq(a[i], b[j], i, j)) tail.unshift([i--, j--])
  return pairs.concat(tail)
}

export function clip(line: string, max = 120): string {
  return line.length > max ? line.slice(0, max - 1) + "…" : line
}
