import { z } from "zod"
import { namedError } from "./error"

export const PermissionAction = z.enum(["allow", "ask", "deny"])
export type PermissionAction = z.infer<typeof PermissionAction>

/** One rule. Rules are evaluated in order and the last match wins. */
export const PermissionRule = z.object({
  permission: z.string(),
  pattern: z.string(),
  action: PermissionAction,
})
export type PermissionRule = z.infer<typeof PermissionRule>

export const Ruleset = z.array(PermissionRule)
export type Ruleset = z.infer<typeof Ruleset>

export const PermissionRequest = z.object({
  id: z.string(),
  sessionID: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  always: z.array(z.string()),
  tool: z.object({ messageID: z.string(), callID: z.string() }).optional(),
})
export type PermissionRequest = z.infer<typeof PermissionRequest>

export const PermissionReply = z.enum(["once", "always", "reject"])
export type PermissionReply = z.infer<typeof PermissionReply>

const text = z.object({ message: z.string() })
/** A rule said deny. The message is written for the model; the loop stops after the step (unless continue_loop_on_deny). */
export const PermissionDeniedError = namedError("PermissionDeniedError", z.object({ message: z.string(), rules: z.array(PermissionRule).optional() }), { stopsLoop: true })
/** The user answered reject: the loop stops after the step. */
export const PermissionRejectedError = namedError("PermissionRejectedError", text, { stopsLoop: true })
/** The user answered reject with feedback for the model. */
export const PermissionCorrectedError = namedError("PermissionCorrectedError", z.object({ message: z.string(), feedback: z.string() }))
