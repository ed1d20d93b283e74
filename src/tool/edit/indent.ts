// Indentation mapping: when a model's oldString matched the file only after ignoring
// indentation, learn how the model's indentation relates to the file's (a shifted base,
// tabs for spaces, 2-space for 4-space) and, if that relation is consistent across every
// matched line, apply it to newString so the edit lands in the file's own style.

export interface IndentMap {
  /** Converts one line's leading whitespace from the model's style to the file's; null if it cannot. */
  apply(indent: string): string | null
  /** True when newString indented like this is already in the file's style (so leave it alone). */
  alreadyFileStyle(indents: string[]): boolean
}

type Pair = [model: string, file: string]

/** Returns null if the pairs disagree, undefined if no change is needed. */
export function learnIndent(pairs: Pair[]): IndentMap | null | undefined {
  if (pairs.every(([m, f]) => m === f)) return undefined
  return shiftMap(pairs) ?? ratioMap(pairs) ?? levelMap(pairs)
}

/** "model base Q ≙ file base P", the rest of each indent identical. */
function shiftMap(pairs: Pair[]): IndentMap | null {
  const [q, p] = pairs.reduce((best, pair) => (pair[0].length < best[0].length ? pair : best))
  const ok = pairs.every(([m, f]) => m.startsWith(q) && f.startsWith(p) && m.slice(q.length) === f.slice(p.length))
  if (!ok) return null
  return {
    apply: (ind) => (ind.startsWith(q) ? p + ind.slice(q.length) : null),
    alreadyFileStyle: (indents) => q !== p && minIndent(indents) === p,
  }
}

function pureChar(indents: string[]): string | null | undefined {
  let c: string | undefined
  for (const ind of indents) {
    for (const ch of ind) {
      if (c === undefined) c = ch
      else if (ch !== c) return null
    }
  }
  return c
}

/** Same structure, different unit: N model columns ≙ M file columns (e.g. 4 spaces ≙ 1 tab). */
function ratioMap(pairs: Pair[]): IndentMap | null {
  const cm = pureChar(pairs.map((x) => x[0]))
  const cf = pureChar(pairs.map((x) => x[1]))
  if (!cm || !cf) return null
  const ref = pairs.find(([m]) => m.length > 0)
  if (!ref || ref[1].length === 0) return null
  const [a, b] = [ref[0].length, ref[1].length]
  if (!pairs.every(([m, f]) => m.length * b === f.length * a)) return null
  return {
    apply: (ind) => {
      if (ind !== "" && pureChar([ind]) !== cm) return null
      const n = (ind.length * b) / a
      return Number.isInteger(n) ? cf.repeat(n) : null
    },
    alreadyFileStyle: (indents) => cm !== cf && indents.some((i) => i !== "") && pureChar(indents) === cf,
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b)
}

/** Different unit and a shifted base: levels differ by a constant. */
function levelMap(pairs: Pair[]): IndentMap | null {
  const cm = pureChar(pairs.map((x) => x[0]))
  const cf = pureChar(pairs.map((x) => x[1]))
  if (cm === null || !cf) return null
  const unit = (c: string | undefined, lens: number[]) => (c === "\t" ? 1 : lens.filter((n) => n > 0).reduce(gcd, 0))
  const um = unit(cm, pairs.map(([m]) => m.length))
  const uf = unit(cf, pairs.map(([, f]) => f.length))
  if (!uf || (cm !== undefined && !um)) return null
  const level = (len: number, u: number) => (u ? len / u : 0)
  const d = level(pairs[0][1].length, uf) - level(pairs[0][0].length, um)
  if (!pairs.every(([m, f]) => level(f.length, uf) - level(m.length, um) === d)) return null
  // A model that never indented gives no unit; assume its nested lines use the file's unit.
  const modelUnit = um || (cf === "\t" ? 4 : uf)
  return {
    apply: (ind) => {
      if (ind !== "" && cm !== undefined && pureChar([ind]) !== cm) return null
      const lvl = ind.length / modelUnit
      if (!Number.isInteger(lvl) || lvl + d < 0) return null
      return cf.repeat((lvl + d) * uf)
    },
    alreadyFileStyle: (indents) => cm !== cf && indents.some((i) => i !== "") && pureChar(indents) === cf,
  }
}

function minIndent(indents: string[]): string {
  return indents.reduce((a, b) => (b.length < a.length ? b : a), indents[0] ?? "")
}
