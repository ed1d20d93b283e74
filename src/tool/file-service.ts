// The one way tools change files (`ToolServices.files`): the per-file lock, the write itself
// (containment checked again and temp + rename, file-writer.ts; all-or-nothing for a patch,
// patch-commit.ts), then `file.edited` for each file and `afterWrite` once per write or
// commit. Snapshots, LSP diagnostics and formatters subscribe to afterWrite, never to the
// tools. It does not ask permission and reads files only for a session whose editor attached
// its buffers (ACP): the tools read under its lock, asking it first.
import path from "node:path"
import { type ContainedWrite, openContained, writeFileContained } from "./file-writer"
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
   * nothing written, when the file now lies outside every root or the write fails. With the
   * `sessionID` of a session whose editor takes writes, the editor writes the text instead.
   */
  write(w: ContainedWrite, sessionID?: string): Promise<string>
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
  /**
   * The text of `file` as the user sees it when `sessionID`'s editor attached its buffers (unsaved
   * changes included). Resolves undefined when it did not: the tool reads the disk. Rejects when
   * the editor fails to answer, or with the abort reason when `signal` aborts first.
   */
  readText(file: string, sessionID: string, signal?: AbortSignal): Promise<string | undefined>
}

/** A session's editor (ACP's fs/read_text_file, fs/write_text_file): either side may be missing. */
export interface EditorFiles {
  /** Resolves with the buffer's text (or the file's, when no buffer is open); rejects with the editor's error. */
  read?(file: string, signal?: AbortSignal): Promise<string>
  /** The editor writes the text to the file (its buffer and the disk); rejects with its error. */
  write?(file: string, content: string): Promise<void>
}

export interface FileServiceDeps {
  /** Publishes `file.edited` for one absolute path (the App's bus). */
  edited(file: string): void
  /** The App's subscribers, read at each write (empty until snapshots and LSP attach). */
  afterWrite: readonly AfterWrite[]
  /** patch-commit's rename seam, for tests that fail one step. */
  io?: CommitIo
  /** The editor a session attached, if any (undefined: the disk is read and written directly). */
  editor?(sessionID: string): EditorFiles | undefined
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
  const writer = (bound: string | undefined): FileService => ({
    lock,
    async write(w, sessionID = bound) {
      const editor = sessionID ? deps.editor?.(sessionID) : undefined
      if (editor?.write && typeof w.data === "string") {
        // The same containment check as a disk write, then the editor's buffer takes the text.
        await (await openContained(w.roots, w.file)).close()
        await editor.write(w.file, w.data)
      } else await writeFileContained(w)
      return written([w.file], sessionID)
    },
    async readText(file, sessionID, signal) {
      const editor = deps.editor?.(sessionID)
      return editor?.read ? editor.read(file, signal) : undefined
    },
    async commit(plan, roots) {
      return written(await commitPatch(plan, deps.io, roots), bound)
    },
    forSession: (id) => writer(id),
  })
  return writer(undefined)
}
