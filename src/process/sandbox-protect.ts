// What a sandboxed command may not change although it lies inside a writable root: whatever
// git, wright or a login shell runs or reads later. Resolved once per App (`protectedPaths`);
// laid out per command (`protectLayout`) from a few lstat calls, no directory walks (except
// $HOME's top level, and only when $HOME itself is writable).
//
// bwrap can only mount over a path that exists, and creates a missing mount point on the host
// (an empty `.git/commondir` would break git). So:
//   - an existing protected path is bound read-only over itself. A mount point cannot be
//     renamed or removed, so `mv .wright x && mkdir .wright` fails too; `.git` itself is bound
//     over itself (read-write) for the same reason;
//   - a missing protected folder gets an empty read-only tmpfs at its highest missing ancestor
//     (bwrap makes that one empty directory on the host; it is removed when the last command
//     using it ends): nothing can be created under it;
//   - a missing protected file (`.git/commondir`, `config.worktree`) or git folder (hooks,
//     info: sweeping them costs less than a mount per command), a protected symlink (a
//     link is not a mount point: bwrap mounts over its target) and a new dotfile in a writable
//     $HOME cannot be stopped at the source, because their folder must stay writable (git makes
//     its lock files beside them). They are swept: after the command (nothing in it survives
//     the call: PID namespace), what appeared or changed there is removed and the command's
//     output says so. Outside processes that read them while the command runs (a shell prompt
//     calling git) are the window left; wright's own git calls run with their code-running
//     settings off.
import { existsSync, lstatSync, readdirSync, readlinkSync, rmSync, rmdirSync, symlinkSync, type Stats } from "node:fs"
import path from "node:path"
import type { SandboxPolicy } from "./sandbox-policy"

export interface ProtectInput {
  worktree: string
  directory: string
  env: NodeJS.ProcessEnv
  home: string
}

/** The protected paths (folders and files) of one App, and those swept when missing (git's). */
export function protectedPaths(input: ProtectInput, gitProtected: { dirs: string[]; files: string[] }): { protected: string[]; sweep: string[] } {
  const dirs: string[] = []
  // The config folders at every level from the opened directory up to the worktree: their agents, plugins and commands run later.
  for (let at = path.resolve(input.directory); ; at = path.dirname(at)) {
    dirs.push(path.join(at, ".wright"), path.join(at, ".opencode"))
    if (at === input.worktree || at === path.dirname(at) || !under(at, [input.worktree])) break
  }
  // wright's and OpenCode's own folders: config and plugins (config), credentials, trust and
  // the database (data), installed plugin packages (cache), logs (state).
  for (const [name, fallback] of [
    ["XDG_CONFIG_HOME", ".config"],
    ["XDG_DATA_HOME", ".local/share"],
    ["XDG_CACHE_HOME", ".cache"],
    ["XDG_STATE_HOME", ".local/state"],
  ] as const) {
    const base = xdgBase(input.env, input.home, name, fallback)
    dirs.push(path.join(base, "wright"), path.join(base, "opencode"))
  }
  const git = [...gitProtected.dirs, ...gitProtected.files]
  return { protected: unique([...dirs, ...git]), sweep: unique(git) }
}

/** An XDG base dir; relative values are invalid and ignored, as the spec says. */
export function xdgBase(env: NodeJS.ProcessEnv, home: string, name: string, fallback: string): string {
  const value = env[name]
  return value && path.isAbsolute(value) ? value : path.join(home, fallback)
}

type Identity = string
/** What the sweep compares: absent, or the entry's kind, inode and link target. */
function identity(p: string): Identity | undefined {
  let st: Stats | undefined
  try {
    // No throw for a missing path: a thrown error costs more than the lstat, many per command.
    st = lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
  if (!st) return undefined
  return `${st.isSymbolicLink() ? `l:${readlinkSync(p)}` : st.isDirectory() ? "d" : "f"}:${st.dev}:${st.ino}`
}

export interface Layout {
  /** bwrap arguments, to follow the writable binds. */
  args: string[]
  /** Empty directories bwrap creates on the host as mount points (removed after the last command using them). */
  made: string[]
  /** Paths to compare after the command: their identity before it (undefined: absent). */
  watch: Map<string, Identity | undefined>
  /** A writable $HOME: its dot entries before the command. */
  homeDots?: Set<string>
}

/**
 * A layout computed for the command about to start, handed to bwrapArgs so the paths are
 * looked at once per command (the spawner builds bwrap's arguments synchronously when called).
 */
const handed = new WeakMap<SandboxPolicy, Layout>()

export function handLayout(policy: SandboxPolicy, layout: Layout | undefined) {
  if (layout) handed.set(policy, layout)
  else handed.delete(policy)
}

/** The layout handed over for this command, or a fresh one. */
export function layoutFor(policy: SandboxPolicy): Layout {
  return handed.get(policy) ?? protectLayout(policy)
}

/** The mounts that keep the protected paths as they are, from their state now. */
export function protectLayout(policy: SandboxPolicy): Layout {
  const args: string[] = []
  const made: string[] = []
  const watch = new Map<string, Identity | undefined>()
  const roots = [...policy.writable, policy.tmpdir]
  const files = new Set(policy.sweepIfMissing)
  const covered: string[] = []
  const protect = (p: string, file: boolean) => {
    if (!under(p, roots) || under(p, covered)) return
    const id = identity(p)
    if (id === undefined) {
      if (file) return void watch.set(p, undefined)
      // The highest missing ancestor: bwrap makes it (one empty directory) as the mount point.
      let top = p
      while (identity(path.dirname(top)) === undefined && under(path.dirname(top), roots)) top = path.dirname(top)
      if (!under(path.dirname(top), roots)) return
      args.push("--tmpfs", top, "--remount-ro", top)
      made.push(top)
      covered.push(top)
      return
    }
    if (id.startsWith("l:")) {
      watch.set(p, id)
      // A dangling link cannot be a bind's source; the sweep alone guards it.
      if (!existsSync(p)) return
    }
    args.push("--ro-bind", p, p)
    covered.push(p)
  }
  // A writable $HOME (the project is home, or holds it): its dotfiles and dot-folders are what
  // a login shell, ssh and every tool read. New ones are swept.
  let homeDots: Set<string> | undefined
  const candidates = policy.protected.map((p) => ({ p, file: files.has(p) }))
  if (policy.home && under(policy.home, roots)) {
    homeDots = new Set(safeReaddir(policy.home).filter((name) => name.startsWith(".")))
    // A `.git` here is the worktree's: the git rules above keep what must stay, the rest is writable.
    for (const name of homeDots) if (!policy.writable.includes(path.join(policy.home, name))) candidates.push({ p: path.join(policy.home, name), file: true })
  }
  // Parents before children: a child of a folder already read-only needs no mount of its own.
  for (const c of candidates.sort((a, b) => a.p.length - b.p.length)) protect(c.p, c.file)
  return { args, made, watch, homeDots }
}

/**
 * After the command: removes what appeared or changed at a watched path and the new dot
 * entries of a writable $HOME (a replaced protected symlink is put back). Returns the paths
 * removed. Never throws.
 */
export function sweep(policy: SandboxPolicy, layout: Layout, ours: (p: string) => boolean): string[] {
  const removed: string[] = []
  const remove = (p: string, before: Identity | undefined) => {
    try {
      rmSync(p, { recursive: true, force: true })
      if (before?.startsWith("l:")) symlinkSync(linkTarget(before), p)
      removed.push(p)
    } catch {
      // Left as it is: the next command's sweep tries again.
    }
  }
  for (const [p, before] of layout.watch) {
    const now = identity(p)
    if (now === before) continue
    if (now !== undefined) remove(p, before)
    // A protected link the command deleted: put back.
    else if (before?.startsWith("l:")) remove(p, before)
  }
  // A mount point made for this command holds nothing on the host, unless something got in
  // after it was removed under a live command (another wright process's, see removeMade).
  for (const p of layout.made) if (identity(p) !== undefined && safeReaddir(p).length > 0) remove(p, undefined)
  if (layout.homeDots && policy.home)
    for (const name of safeReaddir(policy.home)) {
      const p = path.join(policy.home, name)
      if (name.startsWith(".") && !layout.homeDots.has(name) && !ours(p)) remove(p, undefined)
    }
  return removed
}

/** `l:<target>:<dev>:<ino>` → target (which may hold colons itself). */
function linkTarget(id: Identity): string {
  return id.slice(2, id.lastIndexOf(":", id.lastIndexOf(":") - 1))
}

/**
 * Removes a mount point bwrap made, if it is still the empty directory it was. The caller
 * waits until no sandbox of another wright process runs: removing a folder that is a mount
 * point in another live sandbox detaches that mount, and the folder would be writable there.
 */
export function removeMade(p: string) {
  try {
    rmdirSync(p)
  } catch {
    // Not empty (someone outside filled it) or gone: leave it.
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function unique(list: string[]): string[] {
  return [...new Set(list)]
}

/** Whether `p` is one of `roots` or inside one (absolute, normalised paths; many calls per command, so no path.relative). */
export function under(p: string, roots: string[]): boolean {
  for (const root of roots) {
    if (p === root || root === "/") return true
    if (p.length > root.length && p.startsWith(root) && p[root.length] === "/") return true
  }
  return false
}
