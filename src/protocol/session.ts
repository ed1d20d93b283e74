import { z } from "zod"
import { Ruleset } from "./permission"

export const Tokens = z.object({
  total: z.number().optional(),
  input: z.number(),
  output: z.number(),
  reasoning: z.number(),
  cache: z.object({ read: z.number(), write: z.number() }),
})
export type Tokens = z.infer<typeof Tokens>

export const Session = z.object({
  id: z.string(),
  slug: z.string(),
  projectID: z.string(),
  directory: z.string(),
  parentID: z.string().optional(),
  title: z.string(),
  version: z.string(),
  summary: z.object({ additions: z.number(), deletions: z.number(), files: z.number() }).optional(),
  cost: z.number().optional(),
  tokens: Tokens.optional(),
  share: z.object({ url: z.string() }).optional(),
  time: z.object({
    created: z.number(),
    updated: z.number(),
    compacting: z.number().optional(),
    archived: z.number().optional(),
  }),
  permission: Ruleset.optional(),
  /** wright: the session runs in a worktree wright made (`wright/<name>`), not in the main checkout. */
  worktree: z.object({ name: z.string(), branch: z.string() }).optional(),
  revert: z
    .object({
      messageID: z.string(),
      partID: z.string().optional(),
      snapshot: z.string().optional(),
      diff: z.string().optional(),
      /** wright: the files the revert put back (absolute paths). */
      restored: z.array(z.string()).optional(),
      /** wright: files left as they are, and why (changed by the user after the step; `force` overrides). */
      kept: z.array(z.object({ file: z.string(), reason: z.string() })).optional(),
      /** wright: why no file was restored (snapshots off, no git). */
      notice: z.string().optional(),
    })
    .optional(),
})
export type Session = z.infer<typeof Session>

/** One file's change over a session (or one turn), as OpenCode's `FileDiff`. */
export const FileDiff = z.object({
  file: z.string(),
  before: z.string(),
  after: z.string(),
  additions: z.number(),
  deletions: z.number(),
  status: z.enum(["added", "deleted", "modified"]).optional(),
})
export type FileDiff = z.infer<typeof FileDiff>

export const SessionStatus = z.discriminatedUnion("type", [
  z.object({ type: z.literal("idle") }),
  // `holder`: another wright process runs the session (its lease); this one only follows it.
  z.object({ type: z.literal("busy"), holder: z.object({ pid: z.number(), hostname: z.string() }).optional() }),
  z.object({ type: z.literal("retry"), attempt: z.number(), message: z.string(), next: z.number() }),
])
export type SessionStatus = z.infer<typeof SessionStatus>

export const Todo = z.object({
  id: z.string().optional(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
})
export type Todo = z.infer<typeof Todo>

export const QuestionOption = z.object({ label: z.string(), description: z.string() })
export const QuestionInfo = z.object({
  question: z.string(),
  header: z.string(),
  options: z.array(QuestionOption),
  multiple: z.boolean().optional(),
  custom: z.boolean().optional(),
})
export type QuestionInfo = z.infer<typeof QuestionInfo>
export const QuestionRequest = z.object({
  id: z.string(),
  sessionID: z.string(),
  questions: z.array(QuestionInfo),
  tool: z.object({ messageID: z.string(), callID: z.string() }).optional(),
})
export type QuestionRequest = z.infer<typeof QuestionRequest>
