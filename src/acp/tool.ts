// How a wright tool call looks to an editor: the tool's own summary (title, ACP kind, the files
// it touches, as absolute paths so the editor can follow along) and what it produced (text, or
// a diff for edits).
import path from "node:path"
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk/unstable"
import { ToolSummary, type ToolPart } from "../protocol"

type Input = Record<string, unknown>

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined)

export interface ToolView {
  title: string
  kind: ToolKind
  locations: ToolCallLocation[]
  /** Whether it came from the tool's summary; without one (a pending call, an old server) it is generic. */
  described: boolean
}

/**
 * The call as the tool described it (`state.metadata.summary`, paths relative to `root`, the
 * worktree); without a summary, the tool's name and the title it reported, kind "other".
 */
export function toolView(part: ToolPart, root: string): ToolView {
  const parsed = ToolSummary.safeParse("metadata" in part.state ? part.state.metadata?.summary : undefined)
  if (parsed.success) {
    const { title, kind, locations } = parsed.data
    return { title, kind, locations: locations.map((l) => ({ ...l, path: path.resolve(root, l.path) })), described: true }
  }
  const own = "title" in part.state ? part.state.title : undefined
  return { title: own ? `${part.tool} ${own.split("\n")[0]}` : part.tool, kind: "other", locations: [], described: false }
}

/** The files an edit permission ask is about (apply_patch's `files`), as absolute paths. */
export function patchLocations(metadata: Input | undefined, directory: string): ToolCallLocation[] {
  return patchFiles(metadata).flatMap((f) => [f.filePath, f.movePath].filter((p): p is string => !!p).map((p) => ({ path: path.resolve(directory, p) })))
}

/** What a finished call shows: its output, plus one diff per file it changed (whichever tool made them). */
export function toolContent(output: string, metadata: Input | undefined, directory: string): ToolCallContent[] {
  const content: ToolCallContent[] = []
  if (output) content.push(textContent(output))
  content.push(...editDiffs(metadata, directory))
  return content
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } }
}

/** Diffs from an edit's metadata (`filepath` + unified `diff`, or apply_patch's `files`). */
export function editDiffs(metadata: Input | undefined, directory: string): ToolCallContent[] {
  if (!metadata) return []
  const files = patchFiles(metadata)
  if (files.length > 0) return files.flatMap((f) => diffContent(path.resolve(directory, f.movePath ?? f.filePath), f.diff))
  const file = str(metadata.filepath)
  const diff = str(metadata.diff)
  return file && diff ? diffContent(path.resolve(directory, file), diff) : []
}

function diffContent(file: string, unified: string | undefined): ToolCallContent[] {
  if (!unified) return []
  const sides = diffSides(unified)
  if (!sides) return []
  return [{ type: "diff", path: file, oldText: sides.oldText, newText: sides.newText }]
}

/**
 * The two sides of a unified diff: context and removed lines make the old text, context and
 * added lines the new. Hunks are joined, so the texts cover what changed (all of a new file),
 * not necessarily the whole file. A new file has no old text (null).
 */
export function diffSides(unified: string): { oldText: string | null; newText: string } | undefined {
  const before: string[] = []
  const after: string[] = []
  let inHunk = false
  let sawOld = false
  for (const line of unified.split("\n")) {
    if (line.startsWith("@@")) {
      inHunk = true
      // "@@ -0,0 +1,3 @@": the old side is empty, so the file is new.
      if (!/^@@ -0,0 /.test(line)) sawOld = true
      continue
    }
    if (!inHunk || line.startsWith("\\")) continue
    const mark = line[0]
    const text = line.slice(1)
    if (mark === " ") {
      before.push(text)
      after.push(text)
    } else if (mark === "-") before.push(text)
    else if (mark === "+") after.push(text)
  }
  if (!inHunk) return undefined
  return { oldText: sawOld ? before.join("\n") : null, newText: after.join("\n") }
}

interface PatchFile {
  filePath: string
  movePath?: string
  diff?: string
}

function patchFiles(metadata: Input | undefined): PatchFile[] {
  if (!metadata || !Array.isArray(metadata.files)) return []
  return metadata.files.flatMap((f): PatchFile[] => {
    if (!f || typeof f !== "object") return []
    const o = f as Input
    const filePath = str(o.filePath)
    return filePath ? [{ filePath, movePath: str(o.movePath), diff: str(o.diff) }] : []
  })
}
