// Runs `git` for the shadow store through the spawner: the shadow git dir, the project as
// work tree and a private index are passed on every call, so git never reads or writes the
// project's own `.git`. Output is collected as bytes (blobs may be binary).
import { runGit, type Exec } from "../process"

/** One file in a tree: git's mode (100644, 100755, 120000) and object id. */
export interface Entry {
  mode: string
  oid: string
}

export interface GitRun {
  code: number | null
  stdout: Buffer
  stderr: string
  timedOut: boolean
}

export interface GitTarget {
  gitDir: string
  workTree: string
  indexFile: string
}

export type Git = (args: string[], opts?: { input?: string | Buffer; allowFail?: boolean; noWorkTree?: boolean; env?: Record<string, string> }) => Promise<GitRun>

/**
 * A git runner bound to one shadow store. Rejects with git's stderr when git fails (unless
 * allowFail). It runs outside the sandbox: the store lives in wright's data folder, which the
 * sandbox keeps read-only (a command must not rewrite the undo history), and tracking must also
 * work where the sandbox is off. So it runs hardened instead (process/git.ts: no fsmonitor, hooks,
 * pager, transports; a scrubbed environment). The git dir is wright's own, but the work tree is
 * the project: its `.gitattributes` still name filter drivers, and the user's global config may
 * define some (git-lfs does); the store's `info/attributes` (see ATTRIBUTES) unsets them all.
 */
export function createGit(exec: Exec, target: GitTarget): Git {
  return async (args, opts = {}) => {
    const run = await runGit(exec, ["--git-dir", target.gitDir, ...(opts.noWorkTree ? [] : ["--work-tree", target.workTree]), "-c", "core.quotepath=false", ...args], {
      cwd: target.workTree,
      env: { GIT_INDEX_FILE: target.indexFile, GIT_LITERAL_PATHSPECS: "1", ...opts.env },
      input: opts.input,
    })
    if (run.code !== 0 && !opts.allowFail) throw new Error(`git ${args[0]} failed (${run.timedOut ? "timed out" : `exit ${run.code}`}): ${run.stderr.trim()}`)
    return run
  }
}

/**
 * The shadow store's `info/attributes`, which outranks every `.gitattributes` in the work tree:
 * no filter driver runs when the store adds the project's files (their bytes are stored as they
 * are on disk), and no diff driver when it compares trees.
 */
export const ATTRIBUTES = "* -filter -diff\n"

/** Splits NUL-separated output, dropping the empty tail. */
export function nulSplit(buf: Buffer): string[] {
  const s = buf.toString("utf8")
  const parts = s.split("\0")
  if (parts[parts.length - 1] === "") parts.pop()
  return parts
}
