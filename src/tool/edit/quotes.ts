// When the file writes typographic quotes (“ ” ‘ ’) where oldString has straight ones (or the
// reverse), the model retyped the file's text in its own style: the new text follows the file.
// Each kind (double, single) is judged on its own, and only when the matched text uses one style.

const DOUBLE = /[“”]/
const SINGLE = /[‘’]/

/** `text` (the replacement) with its quotes in the style of `span` (the file's matched text), when `old` used the other style. */
export function followQuotes(span: string, old: string, text: string): string {
  let out = text
  if (DOUBLE.test(span) && !span.includes('"') && old.includes('"') && !DOUBLE.test(old)) out = curly(out, '"', "“", "”")
  else if (span.includes('"') && !DOUBLE.test(span) && DOUBLE.test(old) && !old.includes('"')) out = out.replace(/[“”]/g, '"')
  if (SINGLE.test(span) && !span.includes("'") && old.includes("'") && !SINGLE.test(old)) out = curly(out, "'", "‘", "’")
  else if (span.includes("'") && !SINGLE.test(span) && SINGLE.test(old) && !old.includes("'")) out = out.replace(/[‘’]/g, "'")
  return out
}

/** Straight `q` → `open` after a space, an opening bracket or the start; `close` otherwise (also an apostrophe). */
function curly(text: string, q: string, open: string, close: string): string {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== q) {
      out += c
      continue
    }
    const before = i === 0 ? "" : text[i - 1]!
    out += before === "" || /[\s([{<]/.test(before) ? open : close
  }
  return out
}
