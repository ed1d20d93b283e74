// The prompt's text buffer: pure functions over `{text, cursor}` so the editing rules are
// tested without a terminal. Large pastes live outside the text as `[Pasted N lines #k]`
// tokens and are expanded on submit, so the input stays one short line to lay out.

export interface EditorState {
  text: string
  cursor: number
  /** token → pasted content */
  pastes: Record<string, string>
}

export const emptyEditor = (): EditorState => ({ text: "", cursor: 0, pastes: {} })

export const PASTE_BLOCK_LINES = 10
const TOKEN = /\[Pasted \d+ lines #\d+\]/g

export function insert(s: EditorState, str: string): EditorState {
  const text = s.text.slice(0, s.cursor) + str + s.text.slice(s.cursor)
  return { ...s, text, cursor: s.cursor + str.length }
}

/** A paste: newlines normalised; more than PASTE_BLOCK_LINES lines become one block token. */
export function paste(s: EditorState, raw: string): EditorState {
  const content = raw.replace(/\r\n?/g, "\n")
  const lines = content.split("\n").length
  if (lines <= PASTE_BLOCK_LINES) return insert(s, content)
  const n = Object.keys(s.pastes).length + 1
  const token = `[Pasted ${lines} lines #${n}]`
  return insert({ ...s, pastes: { ...s.pastes, [token]: content } }, token)
}

/** The text to send: paste tokens replaced by their content. */
export function expand(s: EditorState): string {
  return s.text.replace(TOKEN, (t) => s.pastes[t] ?? t)
}

function tokenEndingAt(s: EditorState, at: number): [number, number] | undefined {
  for (const m of s.text.matchAll(TOKEN)) if (m.index + m[0].length === at && s.pastes[m[0]]) return [m.index, at]
  // An attached image's chip (attachments.ts) goes as a whole, and its image with it.
  for (const m of s.text.matchAll(/\[Image \d+\]/g)) if (m.index + m[0].length === at) return [m.index, at]
  return undefined
}

export function backspace(s: EditorState): EditorState {
  if (s.cursor === 0) return s
  const token = tokenEndingAt(s, s.cursor)
  const from = token ? token[0] : s.cursor - charBefore(s.text, s.cursor)
  return { ...s, text: s.text.slice(0, from) + s.text.slice(s.cursor), cursor: from }
}

export function del(s: EditorState): EditorState {
  if (s.cursor >= s.text.length) return s
  const len = charAfter(s.text, s.cursor)
  return { ...s, text: s.text.slice(0, s.cursor) + s.text.slice(s.cursor + len) }
}

/** Deletes the word before the cursor (Ctrl+W, Alt+Backspace). */
export function deleteWord(s: EditorState): EditorState {
  let i = s.cursor
  while (i > 0 && /\s/.test(s.text[i - 1]!)) i--
  while (i > 0 && !/\s/.test(s.text[i - 1]!)) i--
  return { ...s, text: s.text.slice(0, i) + s.text.slice(s.cursor), cursor: i }
}

export function deleteToLineStart(s: EditorState): EditorState {
  const start = lineStart(s.text, s.cursor)
  return { ...s, text: s.text.slice(0, start) + s.text.slice(s.cursor), cursor: start }
}

export function deleteToLineEnd(s: EditorState): EditorState {
  const end = lineEnd(s.text, s.cursor)
  return { ...s, text: s.text.slice(0, s.cursor) + s.text.slice(end) }
}

export const left = (s: EditorState): EditorState => ({ ...s, cursor: Math.max(0, s.cursor - charBefore(s.text, s.cursor)) })
export const right = (s: EditorState): EditorState => ({ ...s, cursor: Math.min(s.text.length, s.cursor + charAfter(s.text, s.cursor)) })
export const home = (s: EditorState): EditorState => ({ ...s, cursor: lineStart(s.text, s.cursor) })
export const end = (s: EditorState): EditorState => ({ ...s, cursor: lineEnd(s.text, s.cursor) })

/** Moves one line up; undefined when the cursor is already on the first line (history takes over). */
export function up(s: EditorState): EditorState | undefined {
  const start = lineStart(s.text, s.cursor)
  if (start === 0) return undefined
  const col = s.cursor - start
  const prevStart = lineStart(s.text, start - 1)
  return { ...s, cursor: Math.min(prevStart + col, start - 1) }
}

/** Moves one line down; undefined on the last line. */
export function down(s: EditorState): EditorState | undefined {
  const endOfLine = lineEnd(s.text, s.cursor)
  if (endOfLine >= s.text.length) return undefined
  const col = s.cursor - lineStart(s.text, s.cursor)
  const nextStart = endOfLine + 1
  return { ...s, cursor: Math.min(nextStart + col, lineEnd(s.text, nextStart)) }
}

export const setText = (text: string): EditorState => ({ text, cursor: text.length, pastes: {} })

/** The lines of the buffer with the cursor's line and column, for rendering. */
export function cursorPosition(s: EditorState): { lines: string[]; row: number; col: number } {
  const lines = s.text.split("\n")
  const before = s.text.slice(0, s.cursor).split("\n")
  return { lines, row: before.length - 1, col: before[before.length - 1]!.length }
}

function lineStart(text: string, at: number) {
  return text.lastIndexOf("\n", at - 1) + 1
}
function lineEnd(text: string, at: number) {
  const i = text.indexOf("\n", at)
  return i === -1 ? text.length : i
}
// Surrogate pairs move and delete as one character.
function charBefore(text: string, at: number) {
  const c = text.charCodeAt(at - 1)
  return c >= 0xdc00 && c <= 0xdfff && at >= 2 ? 2 : 1
}
function charAfter(text: string, at: number) {
  const c = text.charCodeAt(at)
  return c >= 0xd800 && c <= 0xdbff ? 2 : 1
}
