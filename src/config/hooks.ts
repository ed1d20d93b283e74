import { z } from "zod"

/**
 * `hooks`: command hooks in Claude Code's settings format, keyed by event name
 * (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, …). Each entry has an optional tool-name
 * `matcher` and its commands; `timeout` is in seconds. Runs commands: a project's own
 * `hooks` apply only in a trusted folder (config/trust.ts).
 */
export const HookCommand = z.object({
  type: z.literal("command"),
  command: z.string().min(1, "a hook needs a command to run"),
  timeout: z.number().positive().optional(),
})
export const HooksConfig = z.record(z.string(), z.array(z.object({ matcher: z.string().optional(), hooks: z.array(HookCommand) })))
export type HooksConfig = z.infer<typeof HooksConfig>
