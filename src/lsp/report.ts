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

/** The servers for `file` were not ready (installing, starting): the write did not wait for them. */
export function pendingNote(file: string, servers: string[], directory: string): string {
  const rel = path.relative(directory, file) || file
  return `\n\nDiagnostics pending: the ${servers.join(" and ")} language server is not ready yet, so this result did not wait for it; what it reports on ${rel} comes with a later tool result, marked as late.`
}

/** Warm servers did not report within the wait their recent answers allow. */
export function slowNote(file: string, servers: string[], directory: string): string {
  const rel = path.relative(directory, file) || file
  return `\n\nDiagnostics pending: the ${servers.join(" and ")} language server did not report on ${rel} in time; what it reports comes with a later tool result, marked as late.`
}

/** What servers reported on `file` after its tool result had returned; "" when there is nothing to say. */
export function lateReport(file: string, reports: { server: string; diagnostics?: Diagnostic[]; notices: string[] }[], directory: string): string {
  const rel = path.relative(directory, file) || file
  let out = ""
  for (const r of reports) for (const n of r.notices) out += `\n\n${n}`
  const reported = reports.filter((r) => r.diagnostics)
  if (reported.length > 0) {
    const all = reported.flatMap((r) => r.diagnostics ?? [])
    const servers = reported.map((r) => r.server).join(" and ")
    const block = errorBlock(file, all, rel)
    out += block ? `\n\nLate diagnostics from the ${servers} language server, for ${rel} as an earlier tool wrote it:${block}` : `\n\nLate diagnostics: the ${servers} language server found no errors in ${rel} as an earlier tool wrote it.`
  }
  return out
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
