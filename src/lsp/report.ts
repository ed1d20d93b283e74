// What a tool result says about the files it changed, in OpenCode's words: the errors
// ("ERROR [line:col] message", capped in count and size), that a server did not report in
// time, and what a formatter changed. Pure text: no I/O.
import path from "node:path"
import type { Diagnostic } from "vscode-languageserver-protocol"

export const MAX_PER_FILE = 20
const MAX_MESSAGE = 400
const SEVERITY: Record<number, string> = { 1: "ERROR", 2: "WARN", 3: "INFO", 4: "HINT" }

/** One diagnostic as OpenCode prints it: `ERROR [12:5] message` (1-based line and column). */
export function pretty(d: Diagnostic): string {
  const text = typeof d.message === "string" ? d.message : d.message.value
  const message = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text
  return `${SEVERITY[d.severity ?? 1] ?? "ERROR"} [${d.range.start.line + 1}:${d.range.start.character + 1}] ${message.replace(/\s*\n\s*/g, " ")}`
}

/** Errors only (severity 1 or unset), as a tool result block; "" when there are none. */
export function errorBlock(file: string, diagnostics: Diagnostic[], label: string): string {
  const errors = diagnostics.filter((d) => (d.severity ?? 1) === 1)
  if (errors.length === 0) return ""
  const shown = errors.slice(0, MAX_PER_FILE).map(pretty)
  const more = errors.length > MAX_PER_FILE ? `\n... and ${errors.length - MAX_PER_FILE} more` : ""
  return `\n\nLSP errors detected in ${label}, please fix:\n<diagnostics file="${file}">\n${shown.join("\n")}${more}\n</diagnostics>`
}

export function lateNote(file: string, servers: string[], timeout: number, directory: string): string {
  const rel = path.relative(directory, file) || file
  return `\n\nThe ${servers.join(" and ")} language server did not report on ${rel} within ${timeout} ms (lsp.timeout); errors it finds later are not shown here.`
}

/** The lines a formatter changed, as `-`/`+` lines with their new line numbers, capped. */
export function formatNote(file: string, formatter: string, hunks: { newStart: number; lines: string[] }[], directory: string): string {
  const rel = path.relative(directory, file) || file
  const out: string[] = []
  let total = 0
  for (const h of hunks) {
    out.push(`@@ line ${h.newStart}`)
    for (const line of h.lines) {
      if (line.startsWith("\\")) continue
      total++
      if (total <= 40) out.push(line)
    }
  }
  const more = total > 40 ? `\n... and ${total - 40} more changed lines` : ""
  return `\n\n${formatter} reformatted ${rel} after the write; the file on disk now differs from what you wrote. Base your next edit on these lines:\n<formatted file="${file}">\n${out.join("\n")}${more}\n</formatted>`
}
