// The one way tools change files (`ToolServices.files`): the per-file lock, the write itself
// (containment checked again and temp + rename, file-writer.ts; all-or-nothing for a patch,
// patch-commit.ts), then `file.edited` for each file and `afterWrite` once per write or
// commit. Snapshots, LSP diagnostics and formatters subscribe to afterWrite, never to the
// tools. It does not ask permission and does not read files: the tools do both under its lock.
import path from "node:path"
import { type ContainedWrite, writeFileContained } from "./file-writer"
import { type CommitIo, commitPatch } from "./patch/commit"
import type { PlannedChange } from "./patch/types"
import { createKeyedLock } from "../util"

/**
 * Told the absolute paths a write or commit just changed (deleted and moved-away files too),
 * after they are on disk, still under their locks, and the session whose tool wrote them
 * (undefined: the writer was not told, see `forSession`). Awaited in order; a string it
 * returns is appended to the tool's output (formatting and diagnostics reports: lead it with
 * "\n\n"); undefined adds nothing. A subscriber that throws fails the tool call with its
 * error, though the files stay written.
 */
export type AfterWrite = (files: string[], sessionID?: string) => void | string | Promise<void | string>

export interface FileService {
  /**
   * Runs `fn` holding the lock of every file in `files` (taken in sorted order, so two callers
   * never deadlock): writers of one file run one after another. Rejects with `fn`'s error.
   */
  lock<T>(files: string[], fn: () => Promise<T>): Promise<T>
  /**
   * Writes one file atomically, its directory checked inside `roots` just now; then
   * `file.edited` and afterWrite([file]). The caller holds the file's lock. Resolves with what
   * the subscribers said ("" for nothing), for the tool to append to its output. Rejects, with
   * nothing written, when the file now lies outside every root or the write fails.
   */
  write(w: ContainedWrite): Promise<string>
  /**
   * Writes apply_patch's verified plan all-or-nothing; then `file.edited` for each path and
   * afterWrite once with all of them. The caller holds every file's lock. Resolves with what the
   * subscribers said, like write. Rejects with every file restored when any step fails.
   */
  commit(plan: PlannedChange[], roots: string[]): Promise<string>
  /**
   * The same writer (the same locks and subscribers) for the tool calls of one session: its
   * afterWrite subscribers are told `sessionID` (snapshots attribute the files to it). Never throws.
   */
  forSession(sessionID: string): FileService
}

export interface FileServiceDeps {
  /** Publishes `file.edited` for one absolute path (the App's bus). */
  edited(file: string): void
  /** The App's subscribers, read at each write (empty until snapshots and LSP attach). */
  afterWrite: readonly AfterWrite[]
  /** patch-commit's rename seam, for tests that fail one step. */
  io?: CommitIo
}

export function createFileService(deps: FileServiceDeps): FileService {
  const withLock = createKeyedLock()
  const lockAll = <T>(keys: string[], fn: () => Promise<T>): Promise<T> => {
    if (keys.length === 0) return fn()
    const [first, ...rest] = keys
    return withLock(first!, () => lockAll(rest, fn))
  }
  async function written(files: string[], sessionID: string | undefined): Promise<string> {
    for (const file of files) deps.edited(file)
    let notes = ""
    for (const subscriber of deps.afterWrite) notes += (await subscriber(files, sessionID)) ?? ""
    return notes
  }
  const lock: FileService["lock"] = (files, fn) => lockAll([...new Set(files.map((f) => path.resolve(f)))].sort(), fn)
  const writer = (sessionID: string | undefined): FileService => ({
    lock,
    async write(w) {
      await writeFileContained(w)
      return written([w.file], sessionID)
    },
    async commit(plan, roots) {
      return written(await commitPatch(plan, deps.io, roots), sessionID)
    },
    forSession: (id) => writer(id),
  })
  return writer(undefined)
}
