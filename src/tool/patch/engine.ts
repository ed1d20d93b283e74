// The engine behind the `apply_patch` tool, without permissions or tool context:
// parsePatch (text → operations), planPatch (verify everything against the disk, in memory),
// commitPatch (write a verified plan all-or-nothing). Callers ask permission between plan and commit.

export type { PatchChunk, PatchLine, PatchOp, PlannedChange } from "./types"
export { parsePatch } from "./parse"
export { planPatch } from "./plan"
export { commitPatch, type CommitIo } from "./commit"
export { applyChunks } from "./apply"
