// The engine behind the `apply_patch` tool, without permissions or tool context:
// parsePatch (text → operations), planPatch (verify everything against the disk, in memory),
// commitPatch (write a verified plan all-or-nothing). Callers ask permission between plan and commit.

export type { PatchChunk, PatchLine, PatchOp, PlannedChange } from "./patch-types"
export { parsePatch } from "./patch-parse"
export { planPatch } from "./patch-plan"
export { commitPatch, type CommitIo } from "./patch-commit"
export { applyChunks } from "./patch-apply"
