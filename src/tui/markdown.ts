// A small Markdown reader for the terminal: headings, emphasis, inline code, fenced code
// blocks, lists, quotes, rules and links, turned into lines of styled segments that the
// components print with Ink's <Text> props. Unclosed constructs (a fence still streaming)
// render as if closed.

export interface Segment {
  text: string
  bold?: boolean
  italic?: boolean
  strike?: boolean
  underline?: boolean
  dim?: boolean
  color?: string
}

export type Line = Segment[]

export function markdownLines(src: string): Line[] {
  const out: Line[] = []
  const lines = src.replace(/\r\n?/g, "\n").split("\n")
  let fence: { marker: string; lang: string } | undefined
  for (const raw of lines) {
    if (fence) {
      if (raw.trim().startsWith(fence.marker) && raw.trim().replace(/[`~]/g, "") === "") {
        fence = undefined
        continue
      }
      out.push([{ text: "│ ", dim: true }, { text: raw || " ", color: "yellow" }])
      continue
    }
    const open = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(raw)
    if (open) {
      fence = { marker: open[1]!, lang: open[2] ?? "" }
      if (fence.lang) out.push([{ text: `╭ ${fence.lang}`, dim: true }])
      continue
    }
    out.push(blockLine(raw))
  }
  return out
}

function blockLine(raw: string): Line {
  const heading = /^(#{1,6})\s+(.*)$/.exec(raw)
  if (heading) {
    const level = heading[1]!.length
    return inline(heading[2]!, { bold: true, color: level <= 2 ? "cyan" : undefined, underline: level === 1 })
  }
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) return [{ text: "─".repeat(40), dim: true }]
  const quote = /^\s*>\s?(.*)$/.exec(raw)
  if (quote) return [{ text: "│ ", dim: true }, ...inline(quote[1]!, { italic: true, dim: true })]
  const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(raw)
  if (item) {
    const indent = item[1]!.replace(/\t/g, "  ")
    const task = /^\[([ xX])\]\s+(.*)$/.exec(item[3]!)
    const bullet = task ? (task[1] === " " ? "☐" : "☑") : /\d/.test(item[2]!) ? item[2]! : "•"
    return [{ text: `${indent}${bullet} `, color: "cyan" }, ...inline(task ? task[2]! : item[3]!)]
  }
  return inline(raw)
}

type Style = Omit<Segment, "text">

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*(.+?)\*\*|__(.+?)__|~~(.+?)~~|\*(?!\s)(.+?)\*|(?<![\w])_(?!\s)(.+?)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s)>\]]+)/g

/** Inline spans of one line. */
export function inline(text: string, base: Style = {}): Line {
  const out: Line = []
  let last = 0
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push({ ...base, text: text.slice(last, m.index) })
    last = m.index + m[0].length
    if (m[1]) out.push({ ...base, text: m[2]!, color: "yellow" })
    else if (m[3] ?? m[4]) out.push(...inline((m[3] ?? m[4])!, { ...base, bold: true }))
    else if (m[5]) out.push(...inline(m[5], { ...base, strike: true }))
    else if (m[6] ?? m[7]) out.push(...inline((m[6] ?? m[7])!, { ...base, italic: true }))
    else if (m[8]) {
      out.push(...inline(m[8], { ...base, color: "blue", underline: true }))
      if (m[9] !== m[8]) out.push({ ...base, text: ` (${m[9]})`, dim: true })
    } else if (m[10]) out.push({ ...base, text: m[10], color: "blue", underline: true })
  }
  if (last < text.length || out.length === 0) out.push({ ...base, text: text.slice(last) })
  return out
}

/** Approximate terminal width of a string (wide CJK and emoji count 2). */
export function textWidth(s: string): number {
  let w = 0
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (c < 0x20 || (c >= 0x300 && c <= 0x36f)) continue
    w += c >= 0x1100 && (c <= 0x115f || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) || (c >= 0x20000 && c <= 0x3fffd)) ? 2 : 1
  }
  return w
}

/** Rows a line of this width takes when wrapped at `columns`. */
export function rowsOf(line: Line, columns: number): number {
  const w = line.reduce((n, s) => n + textWidth(s.text), 0)
  return Math.max(1, Math.ceil(w / Math.max(1, columns)))
}

/** The last lines that fit in `rows` terminal rows, and how many were left out. */
export function tail(lines: Line[], rows: number, columns: number): { lines: Line[]; hidden: number } {
  let used = 0
  let i = lines.length
  while (i > 0) {
    const r = rowsOf(lines[i - 1]!, columns)
    if (used + r > rows) break
    used += r
    i--
  }
  return { lines: lines.slice(i), hidden: i }
}
