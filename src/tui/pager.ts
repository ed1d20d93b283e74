// The pager for output too big for the scrollback (issue 35 part 6): /diff of a large change
// and ctrl+o on a large tool output. It is drawn in the live region, one row shorter than the
// screen (so Ink never clears the terminal), and its keys are pure functions like the
// dialogs': (state, key) → next state. Leaving it erases it, so the conversation is back
// where it was.
import type { Key } from "./keys"

export interface PagerUi {
  title: string
  /** The text, hard-wrapped to the width it was opened at. */
  lines: string[]
  /** First line shown. */
  top: number
  /** Set while `/` is being typed. */
  typing?: string
  /** The last search, for n / N. */
  query?: string
  /** "not found" and the like, on the footer. */
  message?: string
}

/** Splits into lines no wider than `columns` (tabs as two spaces), so every row is one screen row. */
export function wrapLines(text: string, columns: number): string[] {
  const width = Math.max(10, columns)
  const out: string[] = []
  for (const raw of text.replace(/\r\n?/g, "\n").replace(/\t/g, "  ").split("\n")) {
    const chars = [...raw]
    if (chars.length === 0) out.push("")
    for (let i = 0; i < chars.length; i += width) out.push(chars.slice(i, i + width).join(""))
  }
  while (out.length > 1 && out[out.length - 1] === "") out.pop()
  return out
}

export function openPager(title: string, text: string, columns: number): PagerUi {
  return { title, lines: wrapLines(text, columns), top: 0 }
}

/** Rows the pager's body gets on a screen of `rows`: the title and the footer take one each, and one stays free. */
export const bodyRows = (rows: number) => Math.max(3, rows - 3)

const clampTop = (p: PagerUi, top: number, rows: number) => Math.max(0, Math.min(top, Math.max(0, p.lines.length - bodyRows(rows))))

/** The next line holding `query` (case-insensitive) from `from` on in `dir`, wrapping around; -1 when none. */
export function findLine(lines: string[], query: string, from: number, dir: 1 | -1): number {
  const q = query.toLowerCase()
  const n = lines.length
  for (let k = 0; k < n; k++) {
    const i = (((from + dir * k) % n) + n) % n
    if (lines[i]!.toLowerCase().includes(q)) return i
  }
  return -1
}

export type PagerAction = "none" | "close"

export function pagerKey(p: PagerUi, key: Key, rows: number): [PagerUi, PagerAction] {
  const page = bodyRows(rows)
  const move = (top: number): [PagerUi, PagerAction] => [{ ...p, top: clampTop(p, top, rows), message: undefined }, "none"]
  const search = (query: string, from: number, dir: 1 | -1): [PagerUi, PagerAction] => {
    const at = findLine(p.lines, query, from, dir)
    if (at < 0) return [{ ...p, typing: undefined, query, message: `not found: ${query}` }, "none"]
    return [{ ...p, typing: undefined, query, top: clampTop(p, at, rows), message: undefined }, "none"]
  }
  if (p.typing !== undefined) {
    switch (key.name) {
      case "text":
        return [{ ...p, typing: p.typing + key.text }, "none"]
      case "backspace":
        return [{ ...p, typing: p.typing.slice(0, -1) }, "none"]
      case "escape":
        return [{ ...p, typing: undefined }, "none"]
      case "return":
        return p.typing ? search(p.typing, p.top, 1) : [{ ...p, typing: undefined }, "none"]
      default:
        return [p, "none"]
    }
  }
  switch (key.name) {
    case "up":
      return move(p.top - 1)
    case "down":
    case "return":
      return move(p.top + 1)
    case "pageup":
      return move(p.top - page)
    case "pagedown":
      return move(p.top + page)
    case "home":
      return move(0)
    case "end":
      return move(p.lines.length)
    case "escape":
      return [p, "close"]
    case "ctrl":
      if (key.text === "c") return [p, "close"]
      if (key.text === "f") return move(p.top + page)
      if (key.text === "b") return move(p.top - page)
      return [p, "none"]
    case "text":
      switch (key.text) {
        case "q":
          return [p, "close"]
        case "j":
          return move(p.top + 1)
        case "k":
          return move(p.top - 1)
        case " ":
          return move(p.top + page)
        case "b":
          return move(p.top - page)
        case "g":
          return move(0)
        case "G":
          return move(p.lines.length)
        case "/":
          return [{ ...p, typing: "", message: undefined }, "none"]
        case "n":
          return p.query ? search(p.query, p.top + 1, 1) : [p, "none"]
        case "N":
          return p.query ? search(p.query, p.top - 1, -1) : [p, "none"]
      }
      return [p, "none"]
    default:
      return [p, "none"]
  }
}
