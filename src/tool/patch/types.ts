// Data shapes of the apply_patch envelope, shared by the parser, the planner and the tool.

export interface PatchLine {
  /** " " unchanged (context), "+" added, "-" removed. */
  op: " " | "+" | "-"
  text: string
}

export interface PatchChunk {
  /** `@@ <line>` anchors, outermost first: each is found in order before the chunk's lines. */
  context: string[]
  lines: PatchLine[]
  /** `*** End of File`: the chunk's old lines sit at the end of the file. */
  endOfFile: boolean
  /** 1-based line of the chunk in the patch text, for error messages. */
  line: number
}

export type PatchOp =
  | { type: "add"; path: string; content: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; moveTo?: string; chunks: PatchChunk[] }

export interface PlannedChange {
  /** "add" creates a file (an Add File over an existing file plans as "update"). */
  type: "add" | "delete" | "update" | "move"
  /** Absolute path; for "move" the source. */
  path: string
  /** Absolute destination of a "move". */
  moveTo?: string
  /** Full text before (BOM included), null when the file does not exist yet. */
  before: string | null
  /** Full text after, null when the file is deleted. For "move": the destination's text. */
  after: string | null
  /** For "move": the destination's text before, which the move overwrites (null: no file there). */
  replaced?: string | null
}
