// The incremental track after a step whose writes are known: the new tree is the last one
// with just those paths replaced, built here without git's index (reading and rewriting a
// 50,000-entry index costs far more than the step). Blobs and the few trees on the edited
// paths are hashed in Node and written as loose objects, in git's own format; trees already
// seen are kept in memory, and a tree not seen yet is read with one `git cat-file --batch`.
// Anything unusual (a nested repository on the way, a file turned directory) answers
// undefined, and the caller takes git's own path. The index is not updated: the next full
// scan finds these files changed against it and records them again, to the same result.
import { createHash, randomBytes } from "node:crypto"
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, writeFileSync } from "node:fs"
import path from "node:path"
import { deflateSync, inflateSync } from "node:zlib"
import type { Entry, Git } from "./git"

interface TreeEntry {
  mode: string
  name: string
  oid: string
}

/** One path's entry before and after (null: absent). */
export interface PathChange {
  before: Entry | null
  after: Entry | null
}

export interface TreeEditor {
  /**
   * `root` with each of `paths` (worktree-relative, "/"-separated) set to what the disk holds:
   * the new tree and the paths whose entry changed, or undefined when git's own path must do it
   * (nothing visible was changed then). Paths the disk has but ignore rules exclude, and that
   * the tree does not hold, stay out. `skip` paths keep their old entry (too large). Rejects when git fails.
   */
  apply(root: string, paths: string[], skip: Set<string>): Promise<{ tree: string; changes: Map<string, PathChange> } | undefined>
  /**
   * The entries of `paths` (worktree-relative, "/"-separated) in `tree`, read from the trees in
   * memory (the missing ones on the way loaded with one `git cat-file --batch`): an entry, null
   * when the tree holds no file there, undefined when git's own `ls-tree` must answer (a tree
   * that is not readable here, an odd path). Rejects when git fails.
   */
  entries(tree: string, paths: string[]): Promise<Map<string, Entry | null | undefined>>
  /** Whether the store holds the tree `oid` (read from memory or a loose object, else asked of git). Never rejects. */
  hasTree(oid: string): Promise<boolean>
  /** A blob's bytes when it is a loose object of the store or its alternates (what tracks just wrote); undefined otherwise (packed). Never throws. */
  looseBlob(oid: string): Buffer | undefined
}

const TREE = "40000"

export function createTreeEditor(deps: { git: Git; gitDir: string; worktree: string }): TreeEditor {
  const { git, gitDir, worktree } = deps
  // Trees by object id; a store edits the same few directories over and over.
  const trees = new Map<string, TreeEntry[]>()
  const CACHE_LIMIT = 4096

  function remember(oid: string, entries: TreeEntry[]) {
    if (trees.size >= CACHE_LIMIT) trees.delete(trees.keys().next().value!)
    trees.set(oid, entries)
  }

  /** A loose object's type and body (the store's own objects, then its alternates'); undefined when it is not loose there. Never throws. */
  function readLoose(oid: string): { type: string; body: Buffer } | undefined {
    if (!/^[0-9a-f]{40}$/.test(oid)) return undefined
    for (const dir of objectDirs()) {
      let raw: Buffer
      try {
        raw = inflateSync(readFileSync(path.join(dir, oid.slice(0, 2), oid.slice(2))))
      } catch {
        continue
      }
      const nul = raw.indexOf(0)
      const header = /^(\w+) (\d+)$/.exec(raw.toString("latin1", 0, nul))
      if (!header || Number(header[2]) !== raw.length - nul - 1) return undefined
      return { type: header[1]!, body: raw.subarray(nul + 1) }
    }
    return undefined
  }

  let dirs: string[] | undefined
  /** The store's objects folder and those its alternates name (read once). */
  function objectDirs(): string[] {
    if (dirs) return dirs
    const own = path.join(gitDir, "objects")
    let others: string[] = []
    try {
      others = readFileSync(path.join(own, "info", "alternates"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")).map((l) => path.resolve(own, l))
    } catch {}
    return (dirs = [own, ...others])
  }

  /** A tree read from its loose object and kept; undefined when it is not loose (git reads it then). */
  function looseTree(oid: string): TreeEntry[] | undefined {
    const obj = readLoose(oid)
    const entries = obj?.type === "tree" ? parseTree(obj.body) : undefined
    if (entries) remember(oid, entries)
    return entries
  }

  /** Loads the trees on the way from `root` to each directory in `dirs` that the cache lacks. */
  async function load(root: string, dirs: string[]) {
    const wanted: string[] = []
    for (const dir of dirs) {
      let oid: string | undefined = root
      for (const part of dir ? dir.split("/") : []) {
        const entries: TreeEntry[] | undefined = trees.get(oid) ?? looseTree(oid)
        if (!entries) break
        const next: TreeEntry | undefined = entries.find((e) => e.name === part)
        oid = next?.mode === TREE ? next.oid : undefined
        if (!oid) break
      }
      if (oid && !trees.has(oid) && !looseTree(oid)) wanted.push(dir)
    }
    if (!wanted.length) return
    // Every tree on the way to each wanted directory, in one call (a missing one says so).
    const specs = new Set<string>([root])
    for (const dir of wanted) {
      const parts = dir ? dir.split("/") : []
      for (let i = 1; i <= parts.length; i++) specs.add(`${root}:${parts.slice(0, i).join("/")}`)
    }
    const list = [...specs]
    const out = (await git(["cat-file", "--batch"], { input: list.join("\n") + "\n", noWorkTree: true })).stdout
    let at = 0
    for (let i = 0; i < list.length && at < out.length; i++) {
      const nl = out.indexOf(10, at)
      const header = /^([0-9a-f]{40}) (\w+) (\d+)$/.exec(out.toString("utf8", at, nl))
      at = nl + 1
      if (!header) continue
      const size = Number(header[3])
      const entries = header[2] === "tree" ? parseTree(out.subarray(at, at + size)) : undefined
      if (entries) remember(header[1]!, entries)
      at += size + 1
    }
  }

  // Synchronous on purpose: a few small files per step, where each trip through the thread
  // pool costs more than the write on a loaded machine.
  function writeObject(type: "blob" | "tree", content: Buffer): string {
    const head = Buffer.from(`${type} ${content.length}\0`)
    const oid = createHash("sha1").update(head).update(content).digest("hex")
    const dir = path.join(gitDir, "objects", oid.slice(0, 2))
    const file = path.join(dir, oid.slice(2))
    if (existsSync(file)) return oid
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true })
    const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`)
    writeFileSync(temp, deflateSync(Buffer.concat([head, content]), { level: 1 }), { mode: 0o444 })
    renameSync(temp, file)
    return oid
  }

  /** What the disk holds at `rel`: an entry (its blob written), null when absent, "other" when git's path must decide. */
  function onDisk(rel: string): Entry | null | "other" {
    const file = path.join(worktree, rel)
    const st = lstatSync(file, { throwIfNoEntry: false })
    if (!st) return null
    if (st.isSymbolicLink()) return { mode: "120000", oid: writeObject("blob", Buffer.from(readlinkSync(file), "utf8")) }
    if (!st.isFile()) return "other"
    return { mode: st.mode & 0o100 ? "100755" : "100644", oid: writeObject("blob", readFileSync(file)) }
  }

  /** The entry at `rel` in `root` (all trees on the way loaded): an entry, null when absent, "other" when a non-tree is on the way. */
  function lookup(root: string, rel: string): Entry | null | "other" {
    let oid = root
    const parts = rel.split("/")
    for (let i = 0; i < parts.length; i++) {
      const entries = trees.get(oid)
      if (!entries) return "other"
      const e = entries.find((x) => x.name === parts[i])
      if (!e) return null
      if (i === parts.length - 1) return e.mode === TREE ? "other" : { mode: e.mode, oid: e.oid }
      if (e.mode !== TREE) return "other"
      oid = e.oid
    }
    return null
  }

  /** The file entry at `rel` in `root`: null when absent (a directory, or a file on the way, is no file there either), undefined when a tree on the way is not in memory. */
  function fileAt(root: string, rel: string): Entry | null | undefined {
    let oid = root
    const parts = rel.split("/")
    for (let i = 0; i < parts.length; i++) {
      const entries = trees.get(oid)
      if (!entries) return undefined
      const e = entries.find((x) => x.name === parts[i])
      if (!e) return null
      if (i === parts.length - 1) return e.mode === TREE ? null : { mode: e.mode, oid: e.oid }
      if (e.mode !== TREE) return null
      oid = e.oid
    }
    return null
  }

  /** Writes the tree `oid` (undefined: a new directory) with `edits` (relative to it) applied; undefined when it ends up empty. */
  function rewrite(oid: string | undefined, edits: Map<string, Entry | null>): string | undefined {
    const known = oid ? trees.get(oid) : []
    if (!known) throw new NeedsGit()
    // Git's order is kept by replacing in place and inserting where the name sorts.
    const entries = [...known]
    const set = (name: string, entry: TreeEntry | null) => {
      const at = entries.findIndex((e) => e.name === name)
      if (at !== -1 && entry && (entries[at]!.mode === TREE) === (entry.mode === TREE)) entries[at] = entry
      else {
        if (at !== -1) entries.splice(at, 1)
        if (!entry) return
        const key = sortKey(entry)
        const before = entries.findIndex((e) => Buffer.compare(sortKey(e), key) > 0)
        entries.splice(before === -1 ? entries.length : before, 0, entry)
      }
    }
    const below = new Map<string, Map<string, Entry | null>>()
    for (const [rel, entry] of edits) {
      const slash = rel.indexOf("/")
      if (slash === -1) {
        set(rel, entry && { mode: entry.mode, name: rel, oid: entry.oid })
        continue
      }
      const head = rel.slice(0, slash)
      const sub = below.get(head) ?? new Map<string, Entry | null>()
      sub.set(rel.slice(slash + 1), entry)
      below.set(head, sub)
    }
    for (const [name, sub] of below) {
      const child = entries.find((e) => e.name === name)
      const next = rewrite(child?.mode === TREE ? child.oid : undefined, sub)
      set(name, next ? { mode: TREE, name, oid: next } : null)
    }
    if (!entries.length) return undefined
    const written = writeObject("tree", serialize(entries))
    remember(written, entries)
    return written
  }

  return {
    async entries(tree, paths) {
      const out = new Map<string, Entry | null | undefined>()
      const plain = new Set(paths.filter((p) => p && !p.includes("\n") && !p.split("/").some((part) => part === "" || part === "." || part === "..")))
      if (plain.size) await load(tree, [...new Set([...plain].map((p) => path.posix.dirname(p)).map((d) => (d === "." ? "" : d)))])
      for (const p of paths) out.set(p, plain.has(p) ? fileAt(tree, p) : undefined)
      return out
    },
    async hasTree(oid) {
      if (trees.has(oid) || looseTree(oid)) return true
      if (!/^[0-9a-f]{40}$/.test(oid)) return false
      const r = await git(["cat-file", "-t", oid], { noWorkTree: true, allowFail: true }).catch(() => undefined)
      return r?.code === 0 && r.stdout.toString().trim() === "tree"
    },
    looseBlob(oid) {
      const obj = readLoose(oid)
      return obj?.type === "blob" ? obj.body : undefined
    },
    async apply(root, paths, skip) {
      if (paths.some((p) => p.includes("\n") || p.split("/").some((part) => part === ".git" || part === "" || part === "." || part === ".."))) return undefined
      const dirs = [...new Set(paths.map((p) => path.posix.dirname(p)).map((d) => (d === "." ? "" : d)))]
      await load(root, dirs)
      if (!trees.has(root)) return undefined
      const edits = new Map<string, Entry | null>()
      const changes = new Map<string, PathChange>()
      const fresh: string[] = []
      for (const rel of paths) {
        if (skip.has(rel)) continue
        const before = lookup(root, rel)
        if (before === "other" || before?.mode === "160000") return undefined
        const after = onDisk(rel)
        if (after === "other") return undefined
        if (!before && after) {
          // A new path inside a nested repository is git's to judge.
          for (let d = path.posix.dirname(rel); d !== "."; d = path.posix.dirname(d)) if (existsSync(path.join(worktree, d, ".git"))) return undefined
          fresh.push(rel)
        }
        if (before?.mode === after?.mode && before?.oid === after?.oid) continue
        edits.set(rel, after)
        changes.set(rel, { before, after })
      }
      // A path the tree does not hold yet is added only where the ignore rules allow, as `git add` does.
      if (fresh.length) {
        // check-ignore reads its paths as pathspecs (never literal ones): glob characters are git add's to judge.
        if (fresh.some((p) => /[*?[\]\\]/.test(p) || p.startsWith(":"))) return undefined
        const ignored = await git(["check-ignore", "--no-index", "-z", "--stdin"], { input: fresh.join("\0") + "\0", allowFail: true, env: { GIT_LITERAL_PATHSPECS: "0" } })
        if (ignored.code !== 0 && ignored.code !== 1) return undefined
        for (const rel of ignored.stdout.toString("utf8").split("\0").filter(Boolean)) {
          edits.delete(rel)
          changes.delete(rel)
        }
      }
      if (!edits.size) return { tree: root, changes }
      try {
        const tree = rewrite(root, edits) ?? writeObject("tree", Buffer.alloc(0))
        return { tree, changes }
      } catch (e) {
        if (e instanceof NeedsGit) return undefined
        throw e
      }
    },
  }
}

/** A tree on the way is not readable here (it was not loaded, or has names that are not UTF-8). */
class NeedsGit extends Error {}

/** Git sorts a tree's entries by name, a directory as if its name ended in "/". */
function sortKey(e: TreeEntry): Buffer {
  return Buffer.from(e.mode === TREE ? `${e.name}/` : e.name, "utf8")
}

/** A tree object's body, in one allocation. */
function serialize(entries: TreeEntry[]): Buffer {
  let size = 0
  for (const e of entries) size += e.mode.length + 1 + Buffer.byteLength(e.name) + 1 + 20
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const e of entries) {
    at += out.write(`${e.mode} ${e.name}\0`, at, "utf8")
    at += out.write(e.oid, at, "hex")
  }
  return out
}

/** A raw tree object (`<mode> <name>\0<20-byte id>` per entry); undefined when a name is not UTF-8 (it would not survive a rewrite). */
function parseTree(buf: Buffer): TreeEntry[] | undefined {
  const out: TreeEntry[] = []
  let at = 0
  while (at < buf.length) {
    const space = buf.indexOf(32, at)
    const nul = buf.indexOf(0, space)
    if (space === -1 || nul === -1) return undefined
    const raw = buf.subarray(space + 1, nul)
    const name = raw.toString("utf8")
    if (!Buffer.from(name, "utf8").equals(raw)) return undefined
    out.push({ mode: buf.toString("latin1", at, space), name, oid: buf.toString("hex", nul + 1, nul + 21) })
    at = nul + 21
  }
  return out
}
