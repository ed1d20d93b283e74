// Whether a line of oldString and the file line it would be paired with are the same line
// (perhaps changed since the read) or the same code written over a different number of lines.
// The block matchers pair a stale stretch of oldString with the file line for line when both
// have as many lines; that is right for a changed value and wrong for a block written on one
// line against its multi-line form, statements joined or split, or a brace moved, where the
// pairing lands every later line on the wrong neighbour. Pure, string in, boolean out.

/** Brackets a line opens minus those it closes, outside string literals and line comments. */
export function bracketBalance(line: string): number {
  const code = line
    .replace(/(["'`])(?:\\.|(?!\1).)*\1/g, "")
    .replace(/\/\*.*?\*\//g, "")
    .replace(/(^|\s)(\/\/|#(?=\s|$)).*$/, "")
  let depth = 0
  for (const c of code) {
    if (c === "{" || c === "(" || c === "[") depth++
    else if (c === "}" || c === ")" || c === "]") depth--
  }
  return depth
}

const squeeze = (s: string) => s.replace(/\s+/g, "")

/**
 * True when `line` is `others[at]` with the start of `others[at + 1]` run onto it: two lines
 * of the other side joined into this one (the reverse of a split). A line that merely gained
 * text at its end (a stale comment, an argument) is not a join: what follows must begin the
 * next line.
 */
export function joinsNext(line: string, others: string[], at: number): boolean {
  const whole = squeeze(line)
  const head = squeeze(others[at] ?? "")
  const next = squeeze(others[at + 1] ?? "")
  if (head === "" || next === "" || whole.length <= head.length || !whole.startsWith(head)) return false
  const rest = whole.slice(head.length).replace(/^[;,]/, "")
  const need = Math.min(next.length, rest.length, 6)
  return need > 0 && rest.slice(0, need) === next.slice(0, need)
}

/**
 * True when old line `j` may stand for file line `t` in a one-to-one pairing: the same
 * bracket balance, and neither is the other joined with its next line.
 */
export function sameShape(old: string[], j: number, file: string[], t: number): boolean {
  if (bracketBalance(old[j]!) !== bracketBalance(file[t]!)) return false
  return !joinsNext(old[j]!, file, t) && !joinsNext(file[t]!, old, j)
}

/**
 * Removes pairs of identical lines that hold the alignment together only by chance: a line
 * standing between lines only oldString has on one side and lines only the file has on the
 * other, when it is a bare `}` / `*` / blank or occurs again in those lines (the LCS could as
 * well have paired it there). Rewritten layout looks exactly like that, for example oldString's
 * `try` + `{` against the file's `try {`, whose `try {` pairs with a later one. Without the
 * pair both sides form one stretch, judged like any other. First and last pairs stay.
 */
export function dropChancePairs(pairs: [number, number][], old: string[], file: string[]): [number, number][] {
  const out = [...pairs]
  for (let i = 1; i < out.length - 1; i++) {
    const [prev, [j, t], next] = [out[i - 1]!, out[i]!, out[i + 1]!]
    const before = [j - prev[0] - 1, t - prev[1] - 1]
    const after = [next[0] - j - 1, next[1] - t - 1]
    const oldFirst = before[0]! > 0 && before[1] === 0 && after[0] === 0 && after[1]! > 0
    const fileFirst = before[0] === 0 && before[1]! > 0 && after[0]! > 0 && after[1] === 0
    if (!oldFirst && !fileFirst) continue
    const oldOnly = oldFirst ? old.slice(prev[0] + 1, j) : old.slice(j + 1, next[0])
    const fileOnly = oldFirst ? file.slice(t + 1, next[1]) : file.slice(prev[1] + 1, t)
    const line = old[j]!
    if (!/[\p{L}\p{N}]/u.test(line) || oldOnly.includes(line) || fileOnly.includes(line)) {
      out.splice(i, 1)
      // Only the neighbours' gaps changed: look at them again.
      i = Math.max(0, i - 2)
    }
  }
  return out
}
