// The session's changes per file (OpenCode's FileDiff): for each file the counted steps
// changed, its content before the first of them and after the last, with line counts.
import path from "node:path"
import type { FileDiff } from "../protocol"
import { lazyModule } from "../util"
import { statesAt, filesFrom, type State, type StepPatch } from "./restore"
import type { SnapshotStore } from "./store"

// Loaded with the first diff, not with every start (55 KB that `run "hi"` never calls).
const jsdiff = lazyModule<typeof import("diff")>("diff")

/** Text larger than this is not compared line by line (its counts are 0). */
const MAX_DIFF_BYTES = 1024 * 1024

/** FileDiff per file changed by `steps` (all of them counted). Rejects when git fails. */
export async function fileDiffs(store: SnapshotStore, steps: StepPatch[]): Promise<FileDiff[]> {
  const files = filesFrom(steps, 0)
  const before = await statesAt(store, steps, 0, files)
  const after = await statesAt(store, steps, steps.length, files)
  const out: FileDiff[] = []
  for (const file of files) {
    const d = await fileDiff(store, file, before.get(file), after.get(file))
    if (d) out.push(d)
  }
  return out
}

/** One file's FileDiff from its state before the counted steps and after them (`file` absolute); undefined when they hold the same. */
export async function fileDiff(store: SnapshotStore, file: string, before: State, after: State): Promise<FileDiff | undefined> {
  const a = await text(store, before)
  const b = await text(store, after)
  if (a.value === b.value && before?.mode === after?.mode) return undefined
  const status = before ? (after ? "modified" : "deleted") : "added"
  const counts = a.binary || b.binary ? { additions: 0, deletions: 0 } : lineCounts(a.value, b.value)
  return { file: path.relative(store.worktree, file).split(path.sep).join("/"), before: a.value, after: b.value, ...counts, status }
}

/** A unified diff of the files in `diffs` (Session.revert.diff). */
export function unifiedDiff(diffs: FileDiff[]): string {
  return diffs.map((d) => jsdiff().createTwoFilesPatch(`a/${d.file}`, `b/${d.file}`, d.before, d.after, "", "", { context: 3 })).join("")
}

function lineCounts(a: string, b: string) {
  if (a.length + b.length > MAX_DIFF_BYTES) return { additions: 0, deletions: 0 }
  let additions = 0
  let deletions = 0
  for (const change of jsdiff().diffLines(a, b)) {
    if (change.added) additions += change.count ?? 0
    else if (change.removed) deletions += change.count ?? 0
  }
  return { additions, deletions }
}

async function text(store: SnapshotStore, state: State): Promise<{ value: string; binary: boolean }> {
  if (!state) return { value: "", binary: false }
  if (state.mode === "160000") return { value: "", binary: true }
  const buf = await store.blob(state.oid).catch(() => Buffer.alloc(0))
  if (state.mode === "120000") return { value: buf.toString("utf8"), binary: false }
  if (buf.subarray(0, 8000).includes(0)) return { value: "", binary: true }
  return { value: buf.toString("utf8"), binary: false }
}
