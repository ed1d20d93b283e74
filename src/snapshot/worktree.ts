// Facts about the project's worktree the store needs before its first scan: where the
// project's own git dir is (for alternates and the seed index), how many files git already
// tracks (read from the index header, no scan), and whether it looks like a home directory.
import { existsSync, readFileSync, statSync } from "node:fs"
import fs from "node:fs/promises"
import path from "node:path"

export interface ProjectGit {
  /** The worktree's git dir (holds its index). */
  gitDir: string
  /** Where objects and info/exclude live (differs from gitDir in a linked worktree). */
  commonDir: string
  sha256: boolean
}

/** The project's git dir when `worktree` is a git work tree (`.git` a directory, or a `gitdir:` file). */
export function gitDirOf(worktree: string): ProjectGit | undefined {
  const dotGit = path.join(worktree, ".git")
  let gitDir: string
  try {
    if (statSync(dotGit).isDirectory()) gitDir = dotGit
    else {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
      if (!m) return undefined
      gitDir = path.resolve(worktree, m[1]!.trim())
    }
  } catch {
    return undefined
  }
  let commonDir = gitDir
  try {
    commonDir = path.resolve(gitDir, readFileSync(path.join(gitDir, "commondir"), "utf8").trim())
  } catch {}
  let sha256 = false
  try {
    sha256 = /objectformat\s*=\s*sha256/i.test(readFileSync(path.join(commonDir, "config"), "utf8"))
  } catch {}
  return existsSync(path.join(commonDir, "objects")) ? { gitDir, commonDir, sha256 } : undefined
}

/** The number of entries in a git index, from its 12-byte header; 0 when there is none. */
export async function indexEntryCount(gitDir: string): Promise<number> {
  const handle = await fs.open(path.join(gitDir, "index"), "r").catch(() => undefined)
  if (!handle) return 0
  try {
    const buf = Buffer.alloc(12)
    await handle.read(buf, 0, 12, 0)
    return buf.toString("latin1", 0, 4) === "DIRC" ? buf.readUInt32BE(8) : 0
  } finally {
    await handle.close()
  }
}

/** Counts files under `dir` (not in `.git`), stopping once `cap` is reached. */
export async function countFiles(dir: string, cap: number): Promise<number> {
  let count = 0
  const stack = [dir]
  while (stack.length && count < cap) {
    const current = stack.pop()!
    const items = await fs.readdir(current, { withFileTypes: true }).catch(() => [])
    for (const item of items) {
      if (item.isDirectory()) {
        if (item.name !== ".git") stack.push(path.join(current, item.name))
      } else if (++count >= cap) break
    }
  }
  return count
}

/** A home directory, an ancestor of one, or the filesystem root: never scanned. */
export function looksLikeHome(worktree: string, home: string): boolean {
  const w = path.resolve(worktree)
  const h = path.resolve(home)
  if (w === path.parse(w).root) return true
  return w === h || h.startsWith(w + path.sep)
}
