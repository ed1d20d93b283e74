import { z } from "zod"
import { MessageError } from "./error"
import { ModelRef } from "./model-ref"
import { Part } from "./part"
import { Tokens } from "./session"

export const OutputFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({
    type: z.literal("json_schema"),
    schema: z.record(z.string(), z.unknown()),
    retryCount: z.number().int().min(0).optional(),
  }),
])
export type OutputFormat = z.infer<typeof OutputFormat>

export const UserMessage = z.object({
  id: z.string(),
  sessionID: z.string(),
  role: z.literal("user"),
  time: z.object({ created: z.number() }),
  format: OutputFormat.optional(),
  summary: z.object({ title: z.string().optional(), body: z.string().optional(), diffs: z.array(z.unknown()) }).optional(),
  agent: z.string(),
  model: ModelRef,
  system: z.string().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
})
export type UserMessage = z.infer<typeof UserMessage>

export const AssistantMessage = z.object({
  id: z.string(),
  sessionID: z.string(),
  role: z.literal("assistant"),
  time: z.object({ created: z.number(), completed: z.number().optional() }),
  error: MessageError.optional(),
  parentID: z.string(),
  modelID: z.string(),
  providerID: z.string(),
  mode: z.string(),
  agent: z.string(),
  path: z.object({ cwd: z.string(), root: z.string() }),
  summary: z.boolean().optional(),
  cost: z.number(),
  tokens: Tokens,
  structured: z.unknown().optional(),
  variant: z.string().optional(),
  finish: z.string().optional(),
})
export type AssistantMessage = z.infer<typeof AssistantMessage>

export const Message = z.discriminatedUnion("role", [UserMessage, AssistantMessage])
export type Message = z.infer<typeof Message>

export const MessageWithParts = z.object({ info: Message, parts: z.array(Part) })
export type MessageWithParts = z.infer<typeof MessageWithParts>

export function emptyTokens(): Tokens {
  return { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
}
