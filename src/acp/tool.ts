// How a wright tool call looks to an editor: its ACP kind, a short title, the files it
// touches (absolute paths, so the editor can follow along) and what it produced (text, or
// a diff for edits).
import path from "node:path"
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk"

type Input = Record<string, unknown>

const KINDS: Record<string, ToolKind> = {
  read: "read",
  edit: "edit",
  write: "edit",
  apply_patch: "edit",
  bash: "execute",
  grep: "search",
  glob: "search",
  list: "search",
  webfetch: "fetch",
  websearch: "fetch",
  task: "think",
  todowrite: "think",
  todoread: "think",
}

export function toolKind(tool: string): ToolKind {
  return KINDS[tool] ?? "other"
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined)

/** A title that stays the same while the call runs; other tools show their own title once they have one. */
export function toolTitle(tool: string, input: Input, directory: string, own?: string): string {
  const file = str(input.filePath)
  switch (tool) {
    case "read":
      return file ? `Read ${shown(file, directory)}` : "Read"
    case "edit":
    case "write":
      return file ? `${tool === "edit" ? "Edit" : "Write"} ${shown(file, directory)}` : tool
    case "bash":
      return str(input.description) ?? str(input.command) ?? "bash"
    case "grep":
    case "glob":
      return str(input.pattern) ? `${tool} ${input.pattern as string}` : tool
    case "list":
      return `List ${str(input.path) ?? "."}`
    case "webfetch":
      return str(input.url) ? `Fetch ${input.url as string}` : "webfetch"
    case "task":
      return str(input.description) ?? own ?? "task"
    default:
      return own || tool
  }
}

/** The files a call is about, as absolute paths; a read also names its first line. */
export function toolLocations(tool: string, input: Input, directory: string, metadata?: Input): ToolCallLocation[] {
  const abs = (p: string) => path.resolve(directory, p)
  switch (tool) {
    case "read": {
      const file = str(input.filePath)
      if (!file) return []
      const line = typeof input.offset === "number" ? input.offset : undefined
      return [{ path: abs(file), ...(line !== undefined ? { line } : {}) }]
    }
    case "edit":
    case "write": {
      const file = str(input.filePath)
      return file ? [{ path: abs(file) }] : []
    }
    case "grep":
    case "glob":
    case "list":
      return [{ path: abs(str(input.path) ?? ".") }]
    case "apply_patch":
      return patchFiles(metadata).flatMap((f) => [f.filePath, f.movePath].filter((p): p is string => !!p).map((p) => ({ path: abs(p) })))
    default:
      return []
  }
}

/** What a finished call shows: its output, plus one diff per file it changed. */
export function toolContent(tool: string, output: string, metadata: Input | undefined, directory: string): ToolCallContent[] {
  const content: ToolCallContent[] = []
  if (output) content.push(textContent(output))
  if (toolKind(tool) === "edit") content.push(...editDiffs(metadata, directory))
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

function shown(file: string, directory: string): string {
  const rel = path.relative(directory, path.resolve(directory, file))
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file
}
