import { z } from "zod"

/** POST /debug/heap's answer: where the core wrote its V8 heap snapshot, on the server's machine. */
export const HeapSnapshotInfo = z.object({
  path: z.string(),
  bytes: z.number(),
  /** The core's process and thread (non-zero in the TUI's worker). */
  pid: z.number(),
  threadId: z.number(),
})
export type HeapSnapshotInfo = z.infer<typeof HeapSnapshotInfo>
