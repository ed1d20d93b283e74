// Undo and redo over a session's steps. Each step that changed files left a patch: the tree
// before it, the tree after it, the files it changed. A "cutoff" says how many of the steps
// count; a file's state under a cutoff is its content before the first discounted step that
// changed it, else after the last counted one. Moving from one cutoff to another writes only
// the files whose state differs, and only where the disk still holds what the session left
// there: a file the user changed since is kept and reported (unless forced).
import { createHash } from "node:crypto"
import fs from "node:fs/promises"
import path from "node:path"
import type { Entry, SnapshotStore } from "./store"

export interface StepPatch {
  before: string
  after: string
  /** Absolute paths. */
  files: string[]
}

/** A file's state: an entry, null when absent, undefined when the store does not know it. */
export type State = Entry | null | undefined

export interface RestoreResult {
  restored: string[]
  kept: { file: string; reason: string }[]
}

/** The state of each file under `cutoff` (steps[0..cutoff) count). Rejects when git fails. */
export async function statesAt(store: SnapshotStore, steps: StepPatch[], cutoff: number, files: string[]): Promise<Map<string, State>> {
  const byTree = new Map<string, string[]>()
  const source = new Map<string, string>()
  for (const file of files) {
    let tree: string | undefined
    const first = steps.findIndex((s, i) => i >= cutoff && s.files.includes(file))
    if (first !== -1) tree = steps[first]!.before
    else
      for (let i = Math.min(cutoff, steps.length) - 1; i >= 0; i--)
        if (steps[i]!.files.includes(file)) {
          tree = steps[i]!.after
          break
        }
    if (!tree) continue
    source.set(file, tree)
    byTree.set(tree, [...(byTree.get(tree) ?? []), file])
  }
  const out = new Map<string, State>()
  for (const [tree, list] of byTree) {
    const entries = await store.entries(
      tree,
      list.map((f) => rel(store, f)),
    )
    for (const f of list) out.set(f, entries.get(rel(store, f)) ?? null)
  }
  return out
}

/** Files any step from index `from` on changed. */
export function filesFrom(steps: StepPatch[], from: number): string[] {
  return [...new Set(steps.slice(from).flatMap((s) => s.files))].sort()
}

/**
 * Moves each file from `expected` (what the session left there) to `target`. Never rejects for
 * one file: a failure keeps it, with the reason.
 */
export async function restoreFiles(
  store: SnapshotStore,
  files: string[],
  expected: Map<string, State>,
  target: Map<string, State>,
  force: boolean,
): Promise<RestoreResult> {
  const result: RestoreResult = { restored: [], kept: [] }
  for (const file of files) {
    const want = target.get(file)
    const was = expected.get(file)
    const current = await diskEntry(file)
    if (want === undefined) {
      result.kept.push({ file, reason: "its earlier state was not captured" })
      continue
    }
    if (same(current, want)) continue
    if (!force && (was === undefined || !same(current, was))) {
      result.kept.push({ file, reason: current === null ? "deleted after the session changed it" : "changed after the session changed it (force overrides)" })
      continue
    }
    try {
      await put(store, file, want)
      result.restored.push(file)
    } catch (e) {
      const gone = /bad file|not a valid|does not exist|could not get object/i.test((e as Error).message)
      result.kept.push({ file, reason: gone ? "its snapshot was pruned (snapshot.max_size)" : `could not be restored: ${(e as Error).message}` })
    }
  }
  return result
}

function rel(store: SnapshotStore, file: string): string {
  return path.relative(store.worktree, file).split(path.sep).join("/")
}

function same(a: State | "dir", b: State): boolean {
  if (a === "dir" || a === undefined || b === undefined) return false
  if (a === null || b === null) return a === b
  return a.mode === b.mode && a.oid === b.oid
}

/** The file on disk as git would record it (mode and blob id), null when absent. */
export async function diskEntry(file: string): Promise<Entry | null | "dir"> {
  const st = await fs.lstat(file).catch(() => undefined)
  if (!st) return null
  if (st.isDirectory()) return "dir"
  if (st.isSymbolicLink()) return { mode: "120000", oid: blobId(Buffer.from(await fs.readlink(file), "utf8")) }
  return { mode: st.mode & 0o100 ? "100755" : "100644", oid: blobId(await fs.readFile(file)) }
}

export function blobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex")
}

async function put(store: SnapshotStore, file: string, want: Entry | null) {
  if (want === null) {
    await fs.rm(file, { force: true })
    await removeEmptyParents(path.dirname(file), store.worktree)
    return
  }
  if (want.mode === "160000") throw new Error("a nested repository is not restored")
  const content = await store.blob(want.oid)
  await fs.mkdir(path.dirname(file), { recursive: true })
  const existing = await fs.lstat(file).catch(() => undefined)
  if (existing?.isDirectory()) await fs.rm(file, { recursive: true })
  if (want.mode === "120000") {
    await fs.rm(file, { force: true })
    await fs.symlink(content.toString("utf8"), file)
    return
  }
  const temp = `${file}.wright-restore-${process.pid}`
  await fs.writeFile(temp, content, { mode: want.mode === "100755" ? 0o755 : 0o644 })
  await fs.chmod(temp, want.mode === "100755" ? 0o755 : 0o644)
  await fs.rename(temp, file)
}

/** Removes directories a deletion left empty, up to (not including) the worktree. */
async function removeEmptyParents(dir: string, root: string) {
  let current = dir
  while (current.startsWith(root + path.sep)) {
    const items = await fs.readdir(current).catch(() => undefined)
    if (!items || items.length) return
    await fs.rmdir(current).catch(() => {})
    current = path.dirname(current)
  }
}
