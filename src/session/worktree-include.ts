// `.worktreeinclude`: untracked files (an `.env`, local settings) the user wants in every new
// worktree. git lists which untracked files of the main checkout match the patterns (gitignore
// syntax, so a pattern can only ever match a path inside the checkout); this file copies them,
// one regular file at a time. The repository is not trusted here: a symlink (the file itself, a
// folder on its way, or the `.worktreeinclude` file) is never followed, on either side, so
// nothing outside the checkout is read and nothing outside the new worktree is written.
import { constants, fstatSync, lstatSync, mkdirSync, readFileSync } from "node:fs"
import fs from "node:fs/promises"
import path from "node:path"
import { runGit, type Exec } from "../process"

export const INCLUDE_FILE = ".worktreeinclude"

export interface Included {
  /** Paths copied, relative to the checkout, `/`-separated. */
  copied: string[]
  /** Paths matched but not copied, and why (a symlink, outside, unreadable). */
  skipped: { file: string; reason: string }[]
}

/** The patterns of `<main>/.worktreeinclude`; none when it is absent. A symlinked file is refused. */
export function readIncludePatterns(main: string): string[] {
  const file = path.join(main, INCLUDE_FILE)
  const st = lstatSync(file, { throwIfNoEntry: false })
  if (!st) return []
  if (!st.isFile()) throw new Error(`${file}: not a regular file (a symlink is not followed); make it a plain file of gitignore-style patterns`)
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.replace(/\r$/, "").replace(/(?<!\\)\s+$/, ""))
    .filter((line) => line !== "" && !line.startsWith("#"))
}

/** Copies the untracked files of `main` matching `.worktreeinclude` into `target` (a fresh worktree). */
export async function copyIncluded(exec: Exec, main: string, target: string): Promise<Included> {
  const patterns = readIncludePatterns(main)
  const result: Included = { copied: [], skipped: [] }
  if (!patterns.length) return result
  // Untracked files matching the patterns, ignored by .gitignore or not (only these patterns count).
  const listed = await runGit(exec, ["ls-files", "-z", "--others", "--ignored", ...patterns.flatMap((p) => ["-x", p])], { cwd: main, timeout: 60_000 })
  if (listed.code !== 0) throw new Error(`git ls-files in ${main} failed: ${listed.stderr.trim()}`)
  const files = listed.stdout.toString().split("\0").filter(Boolean)
  const realMain = await fs.realpath(main)
  for (const rel of files) {
    const reason = await copyOne(realMain, main, target, rel)
    if (reason) result.skipped.push({ file: rel, reason })
    else result.copied.push(rel)
  }
  return result
}

/** Copies one file; returns why it was not copied, or undefined. */
async function copyOne(realMain: string, main: string, target: string, rel: string): Promise<string | undefined> {
  const parts = rel.split("/")
  if (path.isAbsolute(rel) || parts.some((p) => p === ".." || p === "." || p === "")) return "not a plain relative path"
  const source = path.join(main, rel)
  // Every folder on the way, and the file, must be what it says: no symlink anywhere.
  if (symlinkOnTheWay(main, parts)) return "a symlink is on its way (not followed)"
  const real = await fs.realpath(source).catch(() => undefined)
  if (!real || !inside(real, realMain)) return "outside the project"
  let data: Buffer
  let mode: number
  try {
    const fh = await fs.open(source, constants.O_RDONLY | constants.O_NOFOLLOW)
    try {
      const st = fstatSync(fh.fd)
      if (!st.isFile()) return "not a regular file"
      mode = st.mode & 0o777
      data = await fh.readFile()
    } finally {
      await fh.close()
    }
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ELOOP" ? "a symlink (not followed)" : `unreadable: ${(e as Error).message}`
  }
  // The worktree holds HEAD's tree, which may have a symlink where the main checkout has a folder.
  if (symlinkOnTheWay(target, parts.slice(0, -1))) return "the worktree has a symlink on its way (not followed)"
  mkdirSync(path.dirname(path.join(target, rel)), { recursive: true })
  if (symlinkOnTheWay(target, parts.slice(0, -1))) return "the worktree has a symlink on its way (not followed)"
  try {
    // O_EXCL: never write through whatever is already there (a tracked file, a symlink).
    const out = await fs.open(path.join(target, rel), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode)
    try {
      await out.writeFile(data)
    } finally {
      await out.close()
    }
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EEXIST" ? "the worktree already has this path" : `not written: ${(e as Error).message}`
  }
  return undefined
}

/** Whether `root/parts[0]/…/parts[i]` passes through a symlink (a missing part ends the walk). */
function symlinkOnTheWay(root: string, parts: string[]): boolean {
  let at = root
  for (const p of parts) {
    at = path.join(at, p)
    const st = lstatSync(at, { throwIfNoEntry: false })
    if (!st) return false
    if (st.isSymbolicLink()) return true
  }
  return false
}

const inside = (p: string, root: string) => {
  const rel = path.relative(root, p)
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)
}
