import { z } from "zod"
import { ModelRef } from "./model-ref"
import { Delivery, PartInput } from "./api"

// How a prompt sent to a busy session is delivered (`Delivery`, in api.ts). `steer`: at the
// next step boundary, as a user message the model sees before its next request in the running
// turn. `queue`: when the session goes idle, as a new turn. On an idle session a prompt runs at
// once either way.

/**
 * A prompt waiting in a session's inbox until the process running the session delivers it
 * (each item once, in order). `command`: it was sent to /command and is expanded when delivered.
 */
export const InboxItem = z.object({
  id: z.string(),
  sessionID: z.string(),
  delivery: Delivery,
  parts: z.array(PartInput),
  agent: z.string().optional(),
  model: ModelRef.optional(),
  command: z.object({ name: z.string(), arguments: z.string() }).optional(),
  time: z.object({ created: z.number() }),
})
export type InboxItem = z.infer<typeof InboxItem>

/** PATCH /session/:id/inbox/:itemID: new parts (a command item becomes a plain prompt) and/or delivery. */
export const InboxItemUpdate = z
  .object({ parts: z.array(PartInput).min(1).optional(), delivery: Delivery.optional() })
  .refine((b) => b.parts !== undefined || b.delivery !== undefined, { message: "give parts or delivery (or both)", path: ["parts"] })
export type InboxItemUpdate = z.infer<typeof InboxItemUpdate>
