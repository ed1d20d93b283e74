import path from "node:path"
import type { ToolState, ToolSummary } from "../protocol"
import type { Tool } from "./tool"

/** Where a tool call happens: relative input paths resolve against `directory`, summaries show them against `worktree`. */
export interface SummaryProject {
  directory: string
  worktree: string
}

/**
 * The summary of a call: the tool's own `summary()`, or for tools without one (MCP tools,
 * an unknown name) the tool's name as title and kind "other". Never throws.
 */
export function summarize(tool: Tool | undefined, name: string, input: Record<string, unknown>, state: ToolState, project: SummaryProject): ToolSummary {
  if (tool?.summary) {
    try {
      return tool.summary(input, state, project)
    } catch {
      // A summary is cosmetic: a bad input must not break the call; fall through.
    }
  }
  return { title: name, kind: "other", locations: [] }
}

// Helpers for the tools' summary(): the model's input is unchecked, so each reads defensively.

/** A non-blank string, or undefined for anything else the model sent. */
export function textOf(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined
}

/** A positive whole line number (the model may send "10"), or undefined. */
export function lineNumber(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v
  return typeof n === "number" && Number.isInteger(n) && n >= 1 ? n : undefined
}

/** The first line of `s`, cut to `max` characters; "…" says something was left out. */
export function oneLine(s: string, max = 120): string {
  const lines = s.trim().split("\n")
  const first = lines[0]!.trimEnd()
  if (first.length > max) return `${first.slice(0, max)}…`
  return lines.length > 1 ? `${first} …` : first
}

/**
 * A path as summaries show it: relative to the worktree with `/` separators ("." for the
 * worktree itself); a path outside it stays absolute, since `../../etc/hosts` reads worse.
 */
export function projectPath(p: string, project: SummaryProject): string {
  const abs = path.resolve(project.directory, p)
  const rel = path.relative(project.worktree, abs)
  if (rel === "") return "."
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return abs
  return rel.split(path.sep).join("/")
}

/** The new-file line of the first change in a unified diff (where an editor should look), or undefined. */
export function firstChangedLine(diff: unknown): number | undefined {
  if (typeof diff !== "string") return undefined
  let line: number | undefined
  for (const l of diff.split("\n")) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l)
    if (hunk) {
      if (line !== undefined) return line
      line = Number(hunk[1])
      continue
    }
    if (line === undefined || l.startsWith("\\")) continue
    if (l.startsWith("+") || l.startsWith("-")) return Math.max(line, 1)
    if (l.startsWith(" ")) line++
  }
  return undefined
}

/** The metadata of a settled or running call ({} for pending or none). */
export function metadataOf(state: ToolState): Record<string, unknown> {
  return ("metadata" in state && state.metadata) || {}
}
