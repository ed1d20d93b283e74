import { z } from "zod"
import { FilePartSource } from "./part"
import { ModelRef, OutputFormat } from "./message"
import { Ruleset } from "./permission"

// Bodies accepted by the HTTP API (OpenCode's shapes). Parts sent by clients carry no
// session/message ids; the server assigns them.

export const TextPartInput = z.object({
  id: z.string().optional(),
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})
export const FilePartInput = z.object({
  id: z.string().optional(),
  type: z.literal("file"),
  mime: z.string(),
  filename: z.string().optional(),
  url: z.string(),
  source: FilePartSource.optional(),
})
export const AgentPartInput = z.object({
  id: z.string().optional(),
  type: z.literal("agent"),
  name: z.string(),
  source: z.object({ value: z.string(), start: z.number(), end: z.number() }).optional(),
})
export const SubtaskPartInput = z.object({
  id: z.string().optional(),
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  command: z.string().optional(),
})
export const PartInput = z.discriminatedUnion("type", [TextPartInput, FilePartInput, AgentPartInput, SubtaskPartInput])
export type PartInput = z.infer<typeof PartInput>
export type TextPartInput = z.infer<typeof TextPartInput>
export type FilePartInput = z.infer<typeof FilePartInput>

export const PromptInput = z.object({
  messageID: z.string().optional(),
  model: ModelRef.optional(),
  agent: z.string().optional(),
  noReply: z.boolean().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  format: OutputFormat.optional(),
  system: z.string().optional(),
  variant: z.string().optional(),
  parts: z.array(PartInput),
})
export type PromptInput = z.infer<typeof PromptInput>

export const SessionCreateInput = z.object({
  parentID: z.string().optional(),
  title: z.string().optional(),
  permission: Ruleset.optional(),
})
export type SessionCreateInput = z.infer<typeof SessionCreateInput>
