// Runs `git` for the shadow store through the spawner: the shadow git dir, the project as
// work tree and a private index are passed on every call, so git never reads or writes the
// project's own `.git`. Output is collected as bytes (blobs may be binary).
import type { Exec } from "../process"

/** One file in a tree: git's mode (100644, 100755, 120000) and object id. */
export interface Entry {
  mode: string
  oid: string
}

export interface GitRun {
  code: number | null
  stdout: Buffer
  stderr: string
}

export interface GitTarget {
  gitDir: string
  workTree: string
  indexFile: string
}

export type Git = (args: string[], opts?: { input?: string | Buffer; allowFail?: boolean; noWorkTree?: boolean; env?: Record<string, string> }) => Promise<GitRun>

/** A git runner bound to one shadow store. Rejects with git's stderr when git fails (unless allowFail). */
export function createGit(exec: Exec, target: GitTarget): Git {
  return async (args, opts = {}) => {
    const argv = ["git", "--git-dir", target.gitDir, ...(opts.noWorkTree ? [] : ["--work-tree", target.workTree]), "-c", "core.quotepath=false", ...args]
    const child = await exec(argv, {
      cwd: target.workTree,
      env: {
        GIT_INDEX_FILE: target.indexFile,
        GIT_LITERAL_PATHSPECS: "1",
        GIT_OPTIONAL_LOCKS: "0",
        GIT_TERMINAL_PROMPT: "0",
        GIT_DIR: undefined,
        GIT_WORK_TREE: undefined,
        GIT_OBJECT_DIRECTORY: undefined,
        GIT_ALTERNATE_OBJECT_DIRECTORIES: undefined,
        GIT_CEILING_DIRECTORIES: undefined,
        ...opts.env,
      },
      stdin: opts.input === undefined ? "ignore" : "pipe",
      timeout: 120_000,
    })
    const out: Buffer[] = []
    let err = ""
    child.stdout.on("data", (d: Buffer) => out.push(d))
    child.stderr.on("data", (d: Buffer) => (err += d.toString()))
    if (opts.input !== undefined) child.stdin!.end(opts.input)
    const exit = await child.done
    const run = { code: exit.code, stdout: Buffer.concat(out), stderr: err }
    if (exit.code !== 0 && !opts.allowFail) throw new Error(`git ${args[0]} failed (${exit.timedOut ? "timed out" : `exit ${exit.code}`}): ${err.trim()}`)
    return run
  }
}

/** Splits NUL-separated output, dropping the empty tail. */
export function nulSplit(buf: Buffer): string[] {
  const s = buf.toString("utf8")
  const parts = s.split("\0")
  if (parts[parts.length - 1] === "") parts.pop()
  return parts
}
