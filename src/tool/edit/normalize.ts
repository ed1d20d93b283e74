// Per-line normalisation for the fuzzy matchers. Each level returns the normalised text and,
// for every normalised character, where it came from in the original line, so that a match
// found in normalised text maps back to an exact span of the file.

export type Level = "trailing-whitespace" | "indentation-flexible" | "line-trimmed" | "unicode-normalized" | "whitespace-normalized"

export const LEVELS: Level[] = [
  "trailing-whitespace",
  "indentation-flexible",
  "line-trimmed",
  "unicode-normalized",
  "whitespace-normalized",
]

export interface Norm {
  s: string
  /** from[i] / to[i]: original [start, end) of normalised character i. */
  from: number[]
  to: number[]
}

// Typographic characters that models and editors swap for their ASCII forms (and back).
const FOLD: Record<string, string> = {
  "\u2018": "'", "\u2019": "'", "\u201A": "'", "\u201B": "'", "\u2032": "'", "\u02BC": "'",
  "\u201C": '"', "\u201D": '"', "\u201E": '"', "\u201F": '"', "\u2033": '"',
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
  "\u2026": "...",
  "\u00A0": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ", "\u2006": " ",
  "\u2007": " ", "\u2008": " ", "\u2009": " ", "\u200A": " ", "\u202F": " ", "\u205F": " ", "\u3000": " ",
  "\u200B": "", "\u200C": "", "\u200D": "", "\u2060": "", "\uFEFF": "",
}

const FANCY = new RegExp(`[${Object.keys(FOLD).join("")}]`, "g")

export function hasFancy(s: string): boolean {
  FANCY.lastIndex = 0
  return FANCY.test(s)
}

/** Replaces typographic quotes, dashes, ellipses and odd spaces with ASCII. */
export function fold(s: string): string {
  return s.replace(FANCY, (c) => FOLD[c])
}

/** The distinct typographic characters in s. */
export function fancyChars(s: string): Set<string> {
  return new Set(s.match(FANCY) ?? [])
}

function identity(line: string): Norm {
  const from: number[] = []
  const to: number[] = []
  for (let i = 0; i < line.length; i++) {
    from.push(i)
    to.push(i + 1)
  }
  return { s: line, from, to }
}

function slice(n: Norm, start: number, end: number): Norm {
  return { s: n.s.slice(start, end), from: n.from.slice(start, end), to: n.to.slice(start, end) }
}

function trimStart(n: Norm): Norm {
  const lead = /^\s*/.exec(n.s)![0].length
  return slice(n, lead, n.s.length)
}

function trimEnd(n: Norm): Norm {
  const trail = /\s*$/.exec(n.s)![0].length
  return slice(n, 0, n.s.length - trail)
}

function foldMap(n: Norm): Norm {
  if (!hasFancy(n.s)) return n
  let s = ""
  const from: number[] = []
  const to: number[] = []
  for (let i = 0; i < n.s.length; i++) {
    const c = n.s[i]
    const out = FOLD[c] ?? c
    for (const o of out) {
      s += o
      from.push(n.from[i])
      to.push(n.to[i])
    }
  }
  return { s, from, to }
}

const WORD = /[\p{L}\p{N}_$]/u

/** Runs of whitespace become one space; a space next to punctuation disappears ("f(a, b)" ~ "f(a,b)"). */
function collapse(n: Norm): Norm {
  let s = ""
  const from: number[] = []
  const to: number[] = []
  for (let i = 0; i < n.s.length; i++) {
    const c = n.s[i]
    if (/\s/.test(c)) {
      let j = i
      while (j + 1 < n.s.length && /\s/.test(n.s[j + 1])) j++
      const before = s[s.length - 1]
      const after = n.s[j + 1]
      if (before !== undefined && after !== undefined && WORD.test(before) && WORD.test(after)) {
        s += " "
        from.push(n.from[i])
        to.push(n.to[j])
      }
      i = j
      continue
    }
    s += c
    from.push(n.from[i])
    to.push(n.to[i])
  }
  return { s, from, to }
}

export function normalize(line: string, level: Level): Norm {
  const base = identity(line)
  switch (level) {
    case "trailing-whitespace":
      return trimEnd(base)
    case "indentation-flexible":
    case "line-trimmed":
      return trimEnd(trimStart(base))
    case "unicode-normalized":
      return trimEnd(trimStart(foldMap(base)))
    case "whitespace-normalized":
      return collapse(trimEnd(trimStart(foldMap(base))))
  }
}

/** Cheap string-only form of `normalize` (same text, no offset maps). */
export function normalizeText(line: string, level: Level): string {
  switch (level) {
    case "trailing-whitespace":
      return line.trimEnd()
    case "indentation-flexible":
    case "line-trimmed":
      return line.trim()
    case "unicode-normalized":
      return fold(line).trim()
    case "whitespace-normalized": {
      const t = fold(line).trim()
      // Same rule as collapse(): keep one space only between two word characters.
      return t.replace(/\s+/g, (m, at: number) => (isWordChar(t[at - 1]) && isWordChar(t[at + m.length]) ? " " : ""))
    }
  }
}

export function isWordChar(c: string | undefined): boolean {
  return c !== undefined && WORD.test(c)
}
