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
