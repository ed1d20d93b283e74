// The one way the file tools write. Right before the bytes go out, the file's directory is
// opened without following links and confirmed to lie inside one of the allowed roots; the
// temp file and the rename then go through that open directory, so a directory swapped for
// a symlink while a permission ask was pending (or after the check) cannot redirect them.
// On Linux the directory is reached from the root one component at a time, each opened
// with O_NOFOLLOW through /proc/self/fd, and its real location read back from /proc.
// Elsewhere the same checks run on paths: the window is narrower than before, not closed.
// It does not lock (callers hold the per-file lock) and does not ask permission.
import { randomBytes } from "node:crypto"
import { constants, existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import path from "node:path"
import { isInside, resolveReal } from "../permission"

const PROC = process.platform === "linux" && existsSync("/proc/self/fd")
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY
const NOFOLLOW = constants.O_NOFOLLOW ?? 0

/** A directory opened for writing into; entries are reached through it, not through its path. */
export interface ContainedDir {
  /** The directory's real path when it was opened. */
  readonly path: string
  /** The file's name inside it (a symlinked file's target name). */
  readonly name: string
  /** Directories created to reach it, deepest first. */
  readonly created: string[]
  /** A path to `entry` in this directory that cannot be redirected by renaming its ancestors. */
  at(entry: string): string
  close(): Promise<void>
}

export interface ContainedWrite {
  /** Directories the file must lie in, symlinks resolved (the project, the worktree, an approved outside one). */
  roots: string[]
  /** The file, absolute; symlinks to it are followed as long as they stay inside a root. */
  file: string
  data: string | Uint8Array
  /** The new file's mode; an existing file's mode is kept otherwise. */
  mode?: number
}

/** Writes `file` atomically (temp + rename) through its directory, opened and checked just now. Throws when it is outside every root. */
export async function writeFileContained(w: ContainedWrite): Promise<void> {
  const dir = await openContained(w.roots, w.file)
  try {
    const temp = await writeTemp(dir, w.data, w.mode)
    await fs.rename(dir.at(temp), dir.at(dir.name)).catch(async (e: unknown) => {
      await fs.rm(dir.at(temp), { force: true })
      throw e
    })
  } finally {
    await dir.close()
  }
}

/** Opens the directory `file` (symlinks resolved) will be written in, creating missing directories below its root. */
export async function openContained(roots: string[], file: string): Promise<ContainedDir> {
  const target = resolveReal(file, "/")
  const realRoots = roots.map((r) => resolveReal(r, "/"))
  const root = realRoots.filter((r) => r !== target && isInside(r, target)).sort((a, b) => b.length - a.length)[0]
  if (!root) {
    throw new Error(
      `Refused to write ${file}: it resolves to ${target}, outside the project (${[...new Set(realRoots)].join(", ")}). ` +
        `A directory on its path may have been replaced by a symlink; nothing was written. Check the path and try again.`,
    )
  }
  const parent = path.dirname(target)
  return PROC ? openThroughProc(file, root, parent, path.basename(target)) : openByPath(file, root, parent, path.basename(target))
}

/** Writes `data` to a new temp file next to the target; returns the temp file's name. */
export async function writeTemp(dir: ContainedDir, data: string | Uint8Array, mode?: number): Promise<string> {
  const existing = await fs.lstat(dir.at(dir.name)).catch(() => undefined)
  if (existing?.isSymbolicLink()) throw changed(path.join(dir.path, dir.name), "became a symlink")
  if (existing?.isDirectory()) throw new Error(`${path.join(dir.path, dir.name)} is a directory. Give the path of a file inside it.`)
  const keep = mode ?? (existing ? existing.mode & 0o7777 : undefined)
  const temp = `.${dir.name}.wright-tmp-${process.pid}-${randomBytes(4).toString("hex")}`
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW
  const handle = await fs.open(dir.at(temp), flags, keep ?? 0o666)
  try {
    await handle.writeFile(data)
    if (keep !== undefined) await handle.chmod(keep)
  } catch (e) {
    await handle.close()
    await fs.rm(dir.at(temp), { force: true })
    throw e
  }
  await handle.close()
  return temp
}

function changed(where: string, how: string): Error {
  return new Error(`Refused to write: ${where} ${how} while the write was being prepared; nothing was written. Check the path and try again.`)
}

async function openThroughProc(file: string, root: string, parent: string, name: string): Promise<ContainedDir> {
  const created: string[] = []
  let handle = await openRoot(root, created)
  try {
    if ((await fs.readlink(`/proc/self/fd/${handle.fd}`)) !== root) throw changed(root, "moved")
    let current = root
    for (const part of path.relative(root, parent).split(path.sep).filter(Boolean)) {
      const next = path.join(current, part)
      const at = `/proc/self/fd/${handle.fd}/${part}`
      const openDir = () =>
        fs.open(at, DIR_FLAGS | NOFOLLOW).catch((e: NodeJS.ErrnoException) => {
          throw e.code === "ELOOP" || e.code === "ENOTDIR" ? changed(next, "became a symlink or a file") : e
        })
      const opened = await openDir().catch(async (e: NodeJS.ErrnoException) => {
        if (e.code !== "ENOENT") throw e
        // A parallel write may make the same folder between our open and our mkdir: that is
        // success, and the open below (no links followed) checks whatever is there now.
        if (await mkdirOnce(at)) created.unshift(next)
        return openDir()
      })
      await handle.close()
      handle = opened
      current = next
    }
    const real = await fs.readlink(`/proc/self/fd/${handle.fd}`)
    if (real !== parent) throw new Error(`Refused to write ${file}: its directory is now ${real}, not ${parent}; nothing was written.`)
  } catch (e) {
    await handle.close()
    throw e
  }
  const fd = handle.fd
  return { path: parent, name, created, at: (entry) => `/proc/self/fd/${fd}/${entry}`, close: () => handle.close() }
}

async function openRoot(root: string, created: string[]): Promise<fs.FileHandle> {
  try {
    return await fs.open(root, DIR_FLAGS)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
    // An approved directory outside the project that does not exist yet.
    const first = await fs.mkdir(root, { recursive: true })
    if (first) created.unshift(...ancestors(first, root))
    return fs.open(root, DIR_FLAGS)
  }
}

/** Makes one directory; false when something already stood there (the caller checks what). */
async function mkdirOnce(at: string): Promise<boolean> {
  try {
    await fs.mkdir(at)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  }
}

/** `from` … `to`, deepest first. */
function ancestors(from: string, to: string): string[] {
  const out = [to]
  for (let d = to; d !== from && path.dirname(d) !== d; ) out.push((d = path.dirname(d)))
  return out
}

async function openByPath(file: string, root: string, parent: string, name: string): Promise<ContainedDir> {
  const created: string[] = []
  await openRoot(root, created).then((h) => h.close())
  let current = root
  for (const part of path.relative(root, parent).split(path.sep).filter(Boolean)) {
    current = path.join(current, part)
    if (!(await fs.lstat(current).catch(() => undefined)) && (await mkdirOnce(current))) created.unshift(current)
    else if (!(await fs.lstat(current)).isDirectory()) throw changed(current, "became a symlink or a file")
  }
  if ((await fs.realpath(parent)) !== parent) throw new Error(`Refused to write ${file}: its directory no longer resolves to ${parent}; nothing was written.`)
  return { path: parent, name, created, at: (entry) => path.join(parent, entry), close: async () => {} }
}
