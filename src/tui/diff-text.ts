// What changed, as the TUI prints it: /diff's one line per file with its counts, then each
// file's whole-file unified diff (Markdown for the scrollback, plain text for the pager), and the
// lines /undo adds about the files it put back or kept.
import type { FileDiff } from "../protocol"

const counts = (d: FileDiff) => `+${d.additions} -${d.deletions}${d.status && d.status !== "modified" ? ` (${d.status})` : ""}`
const heading = (n: number) => `${n} file${n === 1 ? "" : "s"} changed`

/** /diff as Markdown: one line per file with its counts, then each file's unified diff. */
export function diffMarkdown(diffs: FileDiff[]): string {
  const list = diffs.map((d) => `- \`${d.file}\` ${counts(d)}`)
  const bodies = diffs.map((d) => "```diff\n" + unified(d).trimEnd() + "\n```")
  return [`**${heading(diffs.length)}**`, ...list, "", ...bodies].join("\n")
}

/** /diff as plain text for the pager: the counts per file, then each unified diff. */
export function diffText(diffs: FileDiff[]): string {
  const list = diffs.map((d) => `  ${d.file} ${counts(d)}`)
  return [heading(diffs.length), ...list, "", ...diffs.map((d) => unified(d).trimEnd() + "\n")].join("\n")
}

function unified(d: FileDiff): string {
  const a = d.before.split("\n")
  const b = d.after.split("\n")
  // A whole-file view: lines only in before, then lines only in after, by a simple common prefix/suffix.
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) endA--, endB--
  const ctx = (lines: string[]) => lines.map((l) => ` ${l}`)
  return [`--- a/${d.file}`, `+++ b/${d.file}`, ...ctx(a.slice(Math.max(0, start - 2), start)), ...a.slice(start, endA).map((l) => `-${l}`), ...b.slice(start, endB).map((l) => `+${l}`), ...ctx(a.slice(endA, endA + 2))].join("\n")
}

/** `file` relative to the project root, for the lines printed. */
export function relative(file: string, root: string): string {
  return root && file.startsWith(root + "/") ? file.slice(root.length + 1) : file
}

/** The lines /undo adds: the files put back, and those kept with their reason. */
export function fileReport(revert: { restored?: string[]; kept?: { file: string; reason: string }[]; notice?: string } | undefined, root: string): string {
  if (!revert) return ""
  const lines: string[] = []
  if (revert.notice) lines.push(`  ${revert.notice}`)
  if (revert.restored?.length) lines.push(`  restored: ${revert.restored.map((f) => relative(f, root)).join(", ")}`)
  for (const k of revert.kept ?? []) lines.push(`  kept ${relative(k.file, root)}: ${k.reason}`)
  return lines.length ? `\n${lines.join("\n")}` : ""
}
