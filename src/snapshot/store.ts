// The shadow store of one project: a bare git dir under the data directory (never inside the
// project or its `.git`), the project as work tree, a private index. `track()` writes the
// worktree's state as a tree and returns its hash; `changes()` names the files that differ
// between two trees. It shares the project's objects through alternates when the project is a
// git repository (and seeds its index from the project's, so the first track hashes only what
// git does not already know). Work only happens when something may have changed: `touch()`
// (the file writer, the spawner) marks the worktree dirty; a clean track returns the last tree.
// After known writes the tree is edited in Node (tree-edit.ts); after a command, a stat walk of
// a small worktree names what changed (stat-walk.ts) and the same edit records it; git scans
// only what neither can judge. The walk a scan leaves is saved, so the next process starts
// from it too.
import { createHash, randomBytes } from "node:crypto"
import { existsSync, lstatSync } from "node:fs"
import fs from "node:fs/promises"
import path from "node:path"
import type { Exec } from "../process"
import { createKeyedLock } from "../util"
import { ATTRIBUTES, createGit, nulSplit, type Entry, type Git } from "./git"
import { changedPaths, recordKnown, sameWalk, walkWorktree, type EntrySig, type StatMap } from "./stat-walk"
import { createTreeEditor, type PathChange } from "./tree-edit"
import { countFiles, gitDirOf, indexEntryCount, looksLikeHome } from "./worktree"

export type { Entry } from "./git"

export interface SnapshotSettings {
  enabled: boolean
  /** Extra gitignore-style patterns nothing is captured for. */
  ignore: string[]
  /** Bytes; a new or changed file above it is left out ("not captured"). */
  maxFileSize: number
  /** A worktree with more files is refused with a notice. */
  maxFiles: number
  /** Bytes of the shadow store; above it the oldest sessions' snapshots are pruned. */
  maxSize: number
}

export const SNAPSHOT_DEFAULTS: SnapshotSettings = {
  enabled: true,
  ignore: [],
  maxFileSize: 2 * 1024 * 1024,
  maxFiles: 100_000,
  maxSize: 2 * 1024 * 1024 * 1024,
}


export interface TrackResult {
  tree: string
  /** Worktree-relative paths left out of this track (over max_file_size, nested repositories). */
  notCaptured: string[]
}

export interface SnapshotStore {
  /** The project's worktree (absolute); paths in trees are relative to it. */
  readonly worktree: string
  /** Why snapshots are off (config, no git, a worktree too large or like $HOME), or undefined while on. Never throws. */
  notice(): string | undefined
  /**
   * Marks the worktree as possibly changed since the last track: `files` (absolute) when the
   * caller knows exactly which (the file writer), none for "anything" (a process ran). The next
   * track then looks at just those files, or scans. Cheap; never throws.
   */
  touch(files?: string[]): void
  /** A counter touch() raises: equal values mean nothing was touched in between. */
  version(): number
  /** True when nothing was touched since the last track (a track would return the same tree). */
  clean(): boolean
  /**
   * Writes the worktree's state and returns its tree, for `sessionID` (whose snapshots the quota
   * prunes together). Resolves undefined when snapshots are off (see notice()); never rejects.
   */
  track(sessionID: string): Promise<TrackResult | undefined>
  /** Worktree-relative paths that differ between two trees. Rejects when git fails. */
  changes(from: string, to: string): Promise<string[]>
  /** The entries of `files` (worktree-relative) in `tree`; a missing path has no key. Rejects when git fails. */
  entries(tree: string, files: string[]): Promise<Map<string, Entry>>
  /** A blob's bytes; rejects when the object is gone (pruned). */
  blob(oid: string): Promise<Buffer>
  /** Repacks, then prunes the oldest sessions until the store fits `maxSize`. Runs after tracks on its own; never rejects. */
  maintain(): Promise<void>
  /** Resolves when a background maintenance (if any) finished and the saved walk is written. */
  idle(): Promise<void>
  /** The shadow git dir (for tests and benches). */
  readonly gitDir: string
}

export interface SnapshotStoreDeps {
  exec: Exec
  worktree: string
  /** wright's data directory; the store lives in `<data>/snapshot/<projectID>/<hash of worktree>`. */
  dataDir: string
  projectID: string
  home: string
  settings: SnapshotSettings
  /** New trees between two automatic repacks. */
  repackEvery?: number
  now?: () => number
}

/** The notice for a git call that failed: git missing from PATH is said plainly. */
function offBecause(e: unknown): string {
  const missing = (e as NodeJS.ErrnoException).code === "ENOENT"
  return missing ? "snapshots are off: git was not found on PATH (undo cannot restore files)" : `snapshots are off: ${(e as Error).message}`
}

/** Whether a path (either separator) is a .gitignore, whose change only git's scan follows. */
const ignoreFile = (p: string) => /(^|[/\\])\.gitignore$/.test(p)

/** Bytes of blobs the store keeps in memory for diffs. */
const BLOB_CACHE_BYTES = 8 * 1024 * 1024

interface Manifest {
  sessions: Record<string, { time: number; trees: string[] }>
}

export function createSnapshotStore(deps: SnapshotStoreDeps): SnapshotStore {
  const { worktree, settings } = deps
  const now = deps.now ?? Date.now
  const gitDir = path.join(deps.dataDir, "snapshot", deps.projectID, createHash("sha1").update(worktree).digest("hex").slice(0, 16))
  const indexFile = path.join(gitDir, "wright-index")
  const manifestFile = path.join(gitDir, "wright-sessions.json")
  const walkFile = path.join(gitDir, "wright-walk.json")
  const git: Git = createGit(deps.exec, { gitDir, workTree: worktree, indexFile })
  const lock = createKeyedLock()
  const serial = <T>(fn: () => Promise<T>) => lock("store", fn)
  const repackEvery = deps.repackEvery ?? 25

  let off: string | undefined = settings.enabled ? undefined : "snapshots are off (snapshot: false)"
  let ready: Promise<boolean> | undefined
  let generation = 1
  // What changed since the last track: known files, or "all" (scan the worktree).
  let pending: Set<string> | "all" = "all"
  let last: { tree: string; generation: number; notCaptured: string[] } | undefined
  let manifest: Manifest = { sessions: {} }
  let newTrees = 0
  let background: Promise<void> = Promise.resolve()
  const editor = createTreeEditor({ git, gitDir, worktree })
  // The trees the editor made one after another, with what each changed: changes() between
  // two of them needs no git. A tree made another way breaks the chain.
  let links: { from: string; to: string; changes: Map<string, PathChange> }[] = []
  // Paths the editor recorded that the private index has not seen: git's own path adds them too.
  let stale = new Set<string>()
  // Every entry's signature as the last tree saw it (stat-walk.ts): after a command, an
  // unchanged walk means the same tree without asking git. Off for good past WALK_LIMIT entries.
  let walked: StatMap | undefined
  let walkable = true
  // The walk and tree a scan left, on disk (saveWalk): the next process's first track starts
  // from them, so an unchanged worktree needs no git then either. Valid only under the same
  // ignore settings (walkKey).
  let walkKey: string | undefined
  let resumed = false
  let saving: Promise<void> = Promise.resolve()
  let manifestWrites: Promise<void> = Promise.resolve()
  // Blobs read lately, oldest first (keepBlob).
  const blobs = new Map<string, Buffer>()
  let blobBytes = 0

  async function init(): Promise<boolean> {
    if (off) return false
    if (looksLikeHome(worktree, deps.home)) return disable(`snapshots are off: ${worktree} looks like a home or system directory`)
    // A store made before had git then: its first real call says so if git is gone (track's
    // catch). A new one learns it from `git init` (no `git --version` first: one process less
    // on the first step in a new project).
    const projectGit = gitDirOf(worktree)
    const count = projectGit ? await indexEntryCount(projectGit.gitDir) : await countFiles(worktree, settings.maxFiles + 1)
    if (count > settings.maxFiles) {
      return disable(`snapshots are off: ${worktree} has more than ${settings.maxFiles} files (raise snapshot.max_files to allow)`)
    }
    try {
      const fresh = !existsSync(path.join(gitDir, "HEAD"))
      if (fresh) {
        await fs.mkdir(gitDir, { recursive: true })
        try {
          await git(["init", "-q", "--bare"], { noWorkTree: true })
        } catch (e) {
          return disable(offBecause(e))
        }
        await fs.appendFile(
          path.join(gitDir, "config"),
          "[core]\n\tautocrlf = false\n\tsymlinks = true\n\tfilemode = true\n\tfsmonitor = false\n\tuntrackedCache = true\n\tlongpaths = true\n[gc]\n\tauto = 0\n[repack]\n\twriteBitmaps = false\n[index]\n\tversion = 4\n",
        )
      }
      const exclude = [".git", ...settings.ignore]
      if (projectGit) {
        const info = await fs.readFile(path.join(projectGit.commonDir, "info", "exclude"), "utf8").catch(() => "")
        exclude.unshift(info)
        if (!projectGit.sha256) {
          await fs.mkdir(path.join(gitDir, "objects", "info"), { recursive: true })
          await fs.writeFile(path.join(gitDir, "objects", "info", "alternates"), path.join(projectGit.commonDir, "objects") + "\n")
        }
        // The project's index knows every tracked file's hash and stat: the first track rehashes only what changed.
        if (fresh && !projectGit.sha256) await fs.copyFile(path.join(projectGit.gitDir, "index"), indexFile).catch(() => {})
      }
      await fs.mkdir(path.join(gitDir, "info"), { recursive: true })
      await fs.writeFile(path.join(gitDir, "info", "exclude"), exclude.join("\n") + "\n")
      await fs.writeFile(path.join(gitDir, "info", "attributes"), ATTRIBUTES)
      walkKey = createHash("sha1").update(JSON.stringify([worktree, exclude, settings.maxFileSize])).digest("hex")
      manifest = await fs
        .readFile(manifestFile, "utf8")
        .then((t) => JSON.parse(t) as Manifest)
        .catch(() => ({ sessions: {} }))
      return true
    } catch (e) {
      return disable(`snapshots are off: the shadow store could not be set up (${(e as Error).message})`)
    }
  }

  function disable(why: string): false {
    off = why
    return false
  }

  async function trackNow(sessionID: string): Promise<TrackResult | undefined> {
    if (!(await (ready ??= init()))) return undefined
    if (last && last.generation === generation) {
      remember(sessionID, last.tree)
      return { tree: last.tree, notCaptured: last.notCaptured }
    }
    const seen = generation
    const known = pending
    pending = new Set()
    if (!last && !resumed) {
      resumed = true
      await resume()
    }
    // A written .gitignore may let files in that nobody wrote: only git's scan sees those.
    const rules = known !== "all" && [...known].some(ignoreFile)
    if (last && known !== "all" && !rules) return trackKnown(sessionID, seen, [...known], "add")
    // Walked before git looks, so a change made while git scans shows in the next walk.
    const walk = walkable ? walkWorktree(worktree) : undefined
    if (walk === "too-large") walkable = false
    const before = walked
    walked = walk instanceof Map ? walk : undefined
    if (last && before && walked && !rules && sameWalk(worktree, before, walked)) {
      last = { ...last, generation: seen }
      remember(sessionID, last.tree)
      return { tree: last.tree, notCaptured: last.notCaptured }
    }
    // The walk names what the command touched: the tree is edited for just those paths, as
    // after known writes, unless something calls for git's scan (see trackKnown).
    const touched = last && before && walked && !rules ? changedPaths(worktree, before, walked) : undefined
    if (touched && !touched.some(ignoreFile)) {
      const done = await trackKnown(sessionID, seen, touched, "scan")
      if (done) return saveWalk(done)
    }
    const listed = await git(["ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard"], { allowFail: true })
    if (listed.code !== 0) {
      // A seeded index git cannot read (split index, another version): start from an empty one.
      await fs.rm(indexFile, { force: true })
      walked = undefined
      pending = "all"
      return trackNow(sessionID)
    }
    // With the paths only the editor recorded: the index has not seen them.
    const candidates = [...new Set([...nulSplit(listed.stdout), ...stale])]
    stale = new Set()
    if (!last && candidates.length > settings.maxFiles) {
      disable(`snapshots are off: ${worktree} has more than ${settings.maxFiles} files (raise snapshot.max_files to allow)`)
      return undefined
    }
    const { update, notCaptured } = await sortCandidates(candidates)
    if (update.length) await git(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], { input: update.join("\0") + "\0" })
    const tree = (await git(["write-tree"])).stdout.toString().trim()
    if (tree !== last?.tree) {
      newTrees++
      links = []
    }
    last = { tree, generation: seen, notCaptured }
    remember(sessionID, tree)
    repackSoon()
    return saveWalk({ tree, notCaptured })
  }

  /**
   * Writes the walk and the tree it matches (in the background, in order), for the next
   * process. Called where the two agree: right after a scan or a walk's edit. An older pair is
   * still a true one: whatever changed since shows in the next walk.
   */
  function saveWalk<T>(result: T): T {
    const state = walked && walkKey && last ? JSON.stringify({ key: walkKey, tree: last.tree, notCaptured: last.notCaptured, stale: [...stale], walk: [...walked] }) : undefined
    saving = saving.then(async () => {
      if (!state) return void (await fs.rm(walkFile, { force: true }))
      const temp = `${walkFile}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
      await fs.writeFile(temp, state)
      await fs.rename(temp, walkFile)
    }).catch(() => {})
    return result
  }

  /** Takes up the walk and tree an earlier process saved, when they hold under today's settings and the tree is still stored. */
  async function resume() {
    try {
      const saved = JSON.parse(await fs.readFile(walkFile, "utf8")) as { key: string; tree: string; notCaptured: string[]; stale: string[]; walk: [string, EntrySig][] }
      if (saved.key !== walkKey || !(await editor.hasTree(saved.tree))) return
      last = { tree: saved.tree, generation: 0, notCaptured: saved.notCaptured }
      walked = new Map(saved.walk)
      stale = new Set([...stale, ...saved.stale])
    } catch {
      // None saved, or unreadable: the first track scans.
    }
  }

  /** Every `repackEvery` new trees, a repack runs in the background. */
  function repackSoon() {
    if (newTrees < repackEvery) return
    newTrees = 0
    background = background.then(() => maintainNow())
  }

  /**
   * A track after writes of known files (absolute), no scan: the last tree with just those paths
   * replaced (tree-edit.ts), or where that cannot, `git add` of just those (it honours
   * .gitignore). With `orElse: "scan"` the paths are worktree-relative ones a walk found changed
   * after a command; where the editor cannot, or a path is not captured (too large, a folder:
   * only the scan knows whether ignore rules leave it out), it answers undefined for a scan.
   */
  async function trackKnown(sessionID: string, seen: number, files: string[], orElse: "add"): Promise<TrackResult>
  async function trackKnown(sessionID: string, seen: number, files: string[], orElse: "scan"): Promise<TrackResult | undefined>
  async function trackKnown(sessionID: string, seen: number, files: string[], orElse: "add" | "scan"): Promise<TrackResult | undefined> {
    const rels =
      orElse === "scan"
        ? files
        : files
            .map((f) => path.relative(worktree, f))
            .filter((r) => r && !r.startsWith("..") && !path.isAbsolute(r))
            .map((r) => r.split(path.sep).join("/"))
    // Signatures before the capture reads the files: a write racing it shows as a change later.
    if (walked && orElse === "add") recordKnown(worktree, walked, rels)
    const { update, notCaptured } = await sortCandidates(rels)
    if (orElse === "scan" && notCaptured.length) return undefined
    const from = last!.tree
    const edited = update.length ? await editor.apply(from, update, new Set(notCaptured)) : { tree: from, changes: new Map<string, PathChange>() }
    if (!edited && orElse === "scan") return undefined
    let tree: string
    if (edited) {
      tree = edited.tree
      for (const file of edited.changes.keys()) stale.add(file)
      if (tree !== from) links = [...links.slice(-99), { from, to: tree, changes: edited.changes }]
    } else {
      await syncStale()
      // An ignored path makes `git add` complain and exit 1; the others are still added.
      await git(["add", "--all", "--ignore-errors", "--", ...update], { allowFail: true })
      tree = (await git(["write-tree"])).stdout.toString().trim()
      if (tree !== from) links = []
    }
    if (tree !== last?.tree) newTrees++
    const kept = [...new Set([...(last?.notCaptured ?? []).filter((f) => !rels.includes(f) || notCaptured.includes(f)), ...notCaptured])]
    last = { tree, generation: seen, notCaptured: kept }
    remember(sessionID, tree)
    repackSoon()
    return { tree, notCaptured: kept }
  }

  /** Gives the private index the paths only the editor recorded, before git builds a tree from it. */
  async function syncStale() {
    if (!stale.size) return
    const paths = [...stale]
    stale = new Set()
    const { update } = await sortCandidates(paths)
    if (update.length) await git(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], { input: update.join("\0") + "\0" })
  }

  /** The paths that differ between two trees the editor made in one unbroken chain; undefined otherwise. */
  function linked(from: string, to: string): string[] | undefined {
    let i = links.findIndex((l) => l.from === from)
    if (i === -1) return undefined
    const net = new Map<string, PathChange>()
    for (; i < links.length; i++) {
      for (const [file, c] of links[i]!.changes) net.set(file, { before: net.has(file) ? net.get(file)!.before : c.before, after: c.after })
      if (links[i]!.to === to) break
    }
    if (i === links.length) return undefined
    const same = (a: Entry | null, b: Entry | null) => (a && b ? a.mode === b.mode && a.oid === b.oid : a === b)
    return [...net].filter(([, c]) => !same(c.before, c.after)).map(([file]) => file).sort()
  }

  /** Splits what git listed into paths to update and paths left out (too large, nested repositories). */
  async function sortCandidates(candidates: string[]) {
    const update: string[] = []
    const notCaptured: string[] = []
    // A step's few paths synchronously: a trip through the thread pool costs more on a loaded machine.
    const stats =
      candidates.length <= 64
        ? candidates.map((rel) => {
            try {
              return lstatSync(path.join(worktree, rel))
            } catch {
              return undefined
            }
          })
        : await Promise.all(candidates.map((rel) => fs.lstat(path.join(worktree, rel)).catch(() => undefined)))
    candidates.forEach((rel, i) => {
      const st = stats[i]
      if (rel.endsWith("/") || st?.isDirectory()) notCaptured.push(rel.replace(/\/$/, ""))
      else if (st?.isFile() && st.size > settings.maxFileSize) notCaptured.push(rel)
      else update.push(rel)
    })
    return { update, notCaptured }
  }

  /** Keeps a small blob for the next diff (a file's "before" is read again each time the file changes). */
  function keepBlob(oid: string, bytes: Buffer) {
    if (bytes.length > BLOB_CACHE_BYTES / 8) return
    blobs.set(oid, bytes)
    blobBytes += bytes.length
    for (const [old, b] of blobs) {
      if (blobBytes <= BLOB_CACHE_BYTES) break
      blobs.delete(old)
      blobBytes -= b.length
    }
  }

  function remember(sessionID: string, tree: string) {
    const s = (manifest.sessions[sessionID] ??= { time: now(), trees: [] })
    if (!s.trees.includes(tree)) {
      s.trees.push(tree)
      saveManifest()
    }
  }

  /**
   * Writes the manifest as it is now, after the writes before it, through a temp file: two
   * tracks in a row once wrote it at the same time, and a torn manifest forgets which trees the
   * sessions keep (maintenance would then prune them). Never rejects.
   */
  function saveManifest(): Promise<void> {
    const text = JSON.stringify(manifest)
    manifestWrites = manifestWrites
      .then(async () => {
        const temp = `${manifestFile}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
        await fs.writeFile(temp, text)
        await fs.rename(temp, manifestFile)
      })
      .catch(() => {})
    return manifestWrites
  }

  async function maintainNow(): Promise<void> {
    if (off || !ready || !(await ready)) return
    try {
      await serial(async () => {
        await writeRefs()
        await git(["repack", "-a", "-d", "-l", "-q"], { noWorkTree: true })
        await git(["prune", "--expire=now"], { noWorkTree: true })
        // Over the quota: the oldest sessions' snapshots go first; the newest session always stays.
        const byAge = Object.entries(manifest.sessions).sort((a, b) => a[1].time - b[1].time)
        while (byAge.length > 1 && (await storeSize(path.join(gitDir, "objects"))) > settings.maxSize) {
          delete manifest.sessions[byAge.shift()![0]]
          await saveManifest()
          await writeRefs()
          await git(["repack", "-a", "-d", "-l", "-q"], { noWorkTree: true })
          await git(["prune", "--expire=now"], { noWorkTree: true })
        }
      })
    } catch {
      // Maintenance is best effort: the next one tries again.
    }
  }

  /** One ref per kept tree (refs/wright/<session>/<n>), so repack keeps exactly the live sessions' objects. */
  async function writeRefs() {
    await fs.rm(path.join(gitDir, "refs", "wright"), { recursive: true, force: true })
    await fs.rm(path.join(gitDir, "packed-refs"), { force: true })
    const lines: string[] = []
    for (const [sid, s] of Object.entries(manifest.sessions)) s.trees.forEach((t, i) => lines.push(`create refs/wright/${sid}/${i} ${t}`))
    if (last) lines.push(`create refs/wright/current ${last.tree}`)
    if (lines.length) await git(["update-ref", "--stdin"], { input: lines.join("\n") + "\n", noWorkTree: true })
  }

  return {
    worktree,
    gitDir,
    notice: () => off,
    touch(files) {
      generation++
      if (!files || pending === "all") pending = "all"
      else for (const f of files) pending.add(path.resolve(f))
    },
    version: () => generation,
    clean: () => last !== undefined && last.generation === generation,
    track: (sessionID) =>
      serial(() => trackNow(sessionID)).catch((e: Error) => {
        disable(offBecause(e))
        return undefined
      }),
    async changes(from, to) {
      if (from === to) return []
      const chained = linked(from, to)
      if (chained) return chained
      return nulSplit((await git(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to], { noWorkTree: true })).stdout)
    },
    async entries(tree, files) {
      const out = new Map<string, Entry>()
      // The trees the store just made are in memory: most answers need no git at all.
      const known = await editor.entries(tree, files)
      const rest: string[] = []
      for (const [file, entry] of known) {
        if (entry) out.set(file, entry)
        else if (entry === undefined) rest.push(file)
      }
      for (let i = 0; i < rest.length; i += 200) {
        const batch = rest.slice(i, i + 200)
        const res = await git(["ls-tree", "-r", "-z", "--full-tree", tree, "--", ...batch], { noWorkTree: true })
        for (const line of nulSplit(res.stdout)) {
          const tab = line.indexOf("\t")
          const [mode, , oid] = line.slice(0, tab).split(" ")
          out.set(line.slice(tab + 1), { mode: mode!, oid: oid! })
        }
      }
      return out
    },
    async blob(oid) {
      const hit = blobs.get(oid)
      if (hit) return hit
      const bytes = editor.looseBlob(oid) ?? (await git(["cat-file", "blob", oid], { noWorkTree: true })).stdout
      keepBlob(oid, bytes)
      return bytes
    },
    maintain: () => (background = background.then(() => maintainNow())),
    idle: () => Promise.all([background, saving, manifestWrites]).then(() => {}),
  }
}

async function storeSize(dir: string): Promise<number> {
  let total = 0
  const items = await fs.readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const item of items) {
    const p = path.join(dir, item.name)
    if (item.isDirectory()) total += await storeSize(p)
    else if (item.isFile()) total += (await fs.stat(p).catch(() => ({ size: 0 }))).size
  }
  return total
}
