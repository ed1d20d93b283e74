// A cheap "did anything change?" for small worktrees. After a command ran, the store would
// rescan with two git processes (ls-files, write-tree); most commands (a test run, `ls`, an
// echo) change nothing, and forking from a large Node process costs several milliseconds each.
// So the store keeps the stat signature of every entry (except `.git`) as it was just before
// its last scan, and after a command walks the worktree again: the same entries with the same
// signatures mean the same tree, and where they differ, the entries that differ name every
// path that may have changed (changedPaths): the store edits just those into the tree, as after
// a known write. The answers err one way only: anything unexpected is "changed", and anything
// the edit cannot judge alone goes to git's scan as before.
// File times are coarse (a kernel tick), so a file changed within a tick of the walk could keep
// its signature: such "racy" entries (git's own word for them) are compared by content too.
import { createHash } from "node:crypto"
import { lstatSync, readdirSync, readFileSync, type BigIntStats } from "node:fs"
import path from "node:path"

/** More entries than this and the walk gives up: git's scan (with its caches) is cheaper then. */
export const WALK_LIMIT = 2000
/** Entries whose times are this close to the walk are compared by content as well. */
const RACY_NS = 100_000_000n
/** A racy file larger than this is not read: it counts as changed. */
const RACY_READ_LIMIT = 256 * 1024

/** One entry's lstat signature ("d" for a directory); `hash` (sha1 of the bytes) when it was racy; `unknown` never matches. */
export interface EntrySig {
  sig: string
  hash?: string
  unknown?: true
}

/** Worktree-relative "/"-separated path → signature. */
export type StatMap = Map<string, EntrySig>

const hashOf = (file: string) => createHash("sha1").update(readFileSync(file)).digest("hex")

/** The signature of one entry as lstat saw it at `now` (ns). */
export function signature(file: string, st: BigIntStats, now: bigint): EntrySig {
  if (st.isDirectory()) return { sig: "d" }
  const sig = `${st.mode}:${st.size}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`
  const newest = st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs
  if (newest + RACY_NS < now) return { sig }
  if (!st.isFile() || st.size > BigInt(RACY_READ_LIMIT)) return { sig, unknown: true }
  try {
    return { sig, hash: hashOf(file) }
  } catch {
    return { sig, unknown: true }
  }
}

/** The current time in the file clock's unit (ns since the epoch). */
export const nowNs = () => BigInt(Date.now()) * 1_000_000n

/** Every entry under `worktree` but `.git`; "too-large" past `limit` entries; undefined when a folder could not be read. */
export function walkWorktree(worktree: string, limit = WALK_LIMIT): StatMap | "too-large" | undefined {
  const out: StatMap = new Map()
  const now = nowNs()
  const dirs = [""]
  try {
    for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
      // Joined by hand: path.join's normalising costs a third of the walk.
      const base = dir ? worktree + path.sep + dir.split("/").join(path.sep) + path.sep : worktree + path.sep
      for (const item of readdirSync(base, { withFileTypes: true })) {
        if (item.name === ".git") continue
        const rel = dir ? `${dir}/${item.name}` : item.name
        const abs = base + item.name
        out.set(rel, signature(abs, lstatSync(abs, { bigint: true }), now))
        if (out.size > limit) return "too-large"
        if (item.isDirectory()) dirs.push(rel)
      }
    }
  } catch {
    // A folder that vanished or cannot be read mid-walk: no answer, git decides.
    return undefined
  }
  return out
}

/**
 * True when `now` (a walk just taken) holds the same entries as `before` with the same
 * signatures, and every entry that was racy in `before` still has the same bytes.
 */
export function sameWalk(worktree: string, before: StatMap, now: StatMap): boolean {
  if (before.size !== now.size) return false
  for (const [rel, was] of before) {
    const is = now.get(rel)
    if (!is || was.unknown || is.unknown || was.sig !== is.sig) return false
    if (was.hash === undefined) continue
    try {
      if ((is.hash ?? hashOf(path.join(worktree, rel))) !== was.hash) return false
    } catch {
      return false
    }
  }
  return true
}

/**
 * Records what the store just captured of `rels` (worktree-relative) after a known write:
 * their signatures taken before the capture read them, and their folders. A path that is gone
 * leaves the map. Paths inside a `.git` are never walked, so they are left out.
 */
export function recordKnown(worktree: string, map: StatMap, rels: string[]): void {
  const now = nowNs()
  for (const rel of rels) {
    const parts = rel.split("/")
    if (parts.includes(".git")) continue
    const abs = path.join(worktree, rel)
    let st: BigIntStats
    try {
      st = lstatSync(abs, { bigint: true })
    } catch {
      map.delete(rel)
      continue
    }
    map.set(rel, signature(abs, st, now))
    for (let i = 1; i < parts.length; i++) map.set(parts.slice(0, i).join("/"), { sig: "d" })
  }
}

/**
 * The paths (not folders) whose entry differs between `before` and `now`: new, gone, or with
 * another signature, or racy with other bytes. Each is worth a look, not surely changed (a
 * file rewritten with the same bytes is listed). A folder's own entry is never listed: its
 * files are. Undefined past `limit` paths (git's scan is the better tool then).
 */
export function changedPaths(worktree: string, before: StatMap, now: StatMap, limit = 500): string[] | undefined {
  const out: string[] = []
  const differs = (rel: string, was: EntrySig | undefined, is: EntrySig | undefined): boolean => {
    if (!was || !is || was.unknown || is.unknown || was.sig !== is.sig) return true
    if (was.hash === undefined) return false
    try {
      return (is.hash ?? hashOf(path.join(worktree, rel))) !== was.hash
    } catch {
      return true
    }
  }
  for (const [rel, is] of now) {
    // A folder that stayed one, or is new (its files are listed on their own).
    if (is.sig === "d" && (before.get(rel)?.sig ?? "d") === "d") continue
    if (differs(rel, before.get(rel), is)) out.push(rel)
    if (out.length > limit) return undefined
  }
  for (const [rel, was] of before) {
    if (!now.has(rel) && was.sig !== "d") out.push(rel)
    if (out.length > limit) return undefined
  }
  return out
}
