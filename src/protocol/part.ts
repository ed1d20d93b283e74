import { z } from "zod"
import { Tokens } from "./session"

const base = { id: z.string(), sessionID: z.string(), messageID: z.string() }
const meta = z.record(z.string(), z.unknown())

export const FilePartSource = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("file"),
    path: z.string(),
    text: z.object({ value: z.string(), start: z.number(), end: z.number() }),
  }),
  z.object({
    type: z.literal("symbol"),
    path: z.string(),
    range: z.unknown(),
    name: z.string(),
    kind: z.number(),
    text: z.object({ value: z.string(), start: z.number(), end: z.number() }),
  }),
  z.object({
    type: z.literal("resource"),
    clientName: z.string(),
    uri: z.string(),
    text: z.object({ value: z.string(), start: z.number(), end: z.number() }),
  }),
])

export const TextPart = z.object({
  ...base,
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }).optional(),
  metadata: meta.optional(),
})
export type TextPart = z.infer<typeof TextPart>

export const ReasoningPart = z.object({
  ...base,
  type: z.literal("reasoning"),
  text: z.string(),
  metadata: meta.optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }),
})
export type ReasoningPart = z.infer<typeof ReasoningPart>

export const FilePart = z.object({
  ...base,
  type: z.literal("file"),
  mime: z.string(),
  filename: z.string().optional(),
  url: z.string(),
  source: FilePartSource.optional(),
})
export type FilePart = z.infer<typeof FilePart>

// The tool-call state machine: pending → running → completed | error.
export const ToolStatePending = z.object({ status: z.literal("pending"), input: z.record(z.string(), z.unknown()), raw: z.string() })
export const ToolStateRunning = z.object({
  status: z.literal("running"),
  input: z.record(z.string(), z.unknown()),
  title: z.string().optional(),
  metadata: meta.optional(),
  time: z.object({ start: z.number() }),
})
export const ToolStateCompleted = z.object({
  status: z.literal("completed"),
  input: z.record(z.string(), z.unknown()),
  output: z.string(),
  title: z.string(),
  metadata: meta,
  time: z.object({ start: z.number(), end: z.number(), compacted: z.number().optional() }),
  attachments: z.array(FilePart).optional(),
})
export const ToolStateError = z.object({
  status: z.literal("error"),
  input: z.record(z.string(), z.unknown()),
  error: z.string(),
  metadata: meta.optional(),
  time: z.object({ start: z.number(), end: z.number() }),
})
export const ToolState = z.discriminatedUnion("status", [ToolStatePending, ToolStateRunning, ToolStateCompleted, ToolStateError])
export type ToolState = z.infer<typeof ToolState>
export type ToolStateCompleted = z.infer<typeof ToolStateCompleted>

export const ToolPart = z.object({
  ...base,
  type: z.literal("tool"),
  callID: z.string(),
  tool: z.string(),
  state: ToolState,
  metadata: meta.optional(),
})
export type ToolPart = z.infer<typeof ToolPart>

export const StepStartPart = z.object({ ...base, type: z.literal("step-start"), snapshot: z.string().optional() })
export type StepStartPart = z.infer<typeof StepStartPart>

export const StepFinishPart = z.object({
  ...base,
  type: z.literal("step-finish"),
  reason: z.string(),
  snapshot: z.string().optional(),
  cost: z.number(),
  tokens: Tokens,
})
export type StepFinishPart = z.infer<typeof StepFinishPart>

export const SnapshotPart = z.object({ ...base, type: z.literal("snapshot"), snapshot: z.string() })
export const PatchPart = z.object({
  ...base,
  type: z.literal("patch"),
  /** The tree before the step. */
  hash: z.string(),
  /** Absolute paths the step changed. */
  files: z.array(z.string()),
  /** wright: the tree after the step (what undo checks the files against). */
  after: z.string().optional(),
  /** wright: worktree-relative paths the step touched but the store left out (over snapshot.max_file_size). */
  notCaptured: z.array(z.string()).optional(),
})
export type PatchPart = z.infer<typeof PatchPart>

export const AgentPart = z.object({
  ...base,
  type: z.literal("agent"),
  name: z.string(),
  source: z.object({ value: z.string(), start: z.number(), end: z.number() }).optional(),
})
export type AgentPart = z.infer<typeof AgentPart>

export const SubtaskPart = z.object({
  ...base,
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  command: z.string().optional(),
})
export type SubtaskPart = z.infer<typeof SubtaskPart>

export const CompactionPart = z.object({
  ...base,
  type: z.literal("compaction"),
  auto: z.boolean(),
  overflow: z.boolean().optional(),
  tail_start_id: z.string().optional(),
})
export type CompactionPart = z.infer<typeof CompactionPart>

export const RetryPart = z.object({
  ...base,
  type: z.literal("retry"),
  attempt: z.number(),
  error: z.unknown(),
  time: z.object({ created: z.number() }),
})

export const Part = z.discriminatedUnion("type", [
  TextPart,
  ReasoningPart,
  FilePart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  SnapshotPart,
  PatchPart,
  AgentPart,
  SubtaskPart,
  CompactionPart,
  RetryPart,
])
export type Part = z.infer<typeof Part>

/**
 * How a tool call looks to a person, said by the tool itself (`summary()` beside `execute`):
 * the pipeline writes it into the tool part's `state.metadata.summary` on every transition,
 * so every front end (run, the TUI, ACP, remote clients) shows calls the same way.
 * `kind` takes ACP's tool kinds; location paths are relative to the project.
 */
export const ToolSummary = z.object({
  title: z.string(),
  kind: z.enum(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]),
  locations: z.array(z.object({ path: z.string(), line: z.number().optional() })),
  /** A call that completed without succeeding (a command that exited non-zero): why, shortly ("exit 1"). Front ends show it as failed. */
  failed: z.string().optional(),
})
export type ToolSummary = z.infer<typeof ToolSummary>

