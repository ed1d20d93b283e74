// The OS sandbox (Linux, bubblewrap). A `Sandbox` is resolved once per App from the `sandbox`
// config: which paths a command may write (the worktree, a private temp dir, configured
// paths), which it may read (everything, or with `external_directory: deny` only the system
// directories, the project and the temp dir), and whether it has a network. The spawner wraps
// a command in `bwrap` when it is handed an `on` sandbox. Nothing here decides what may run:
// the permission gate asks before; the sandbox only makes the boundary real.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs"
import path from "node:path"
import type { SandboxConfig } from "../config"
import { explainBlock, type SandboxBlock } from "./sandbox-failure"
import type { SandboxMode, SandboxPolicy } from "./sandbox-policy"
import { probeBwrap } from "./sandbox-probe"
import { layoutFor, protectedPaths, under } from "./sandbox-protect"
import { hideArgs, maskArgs, secretPaths } from "./sandbox-secrets"

export type { SandboxMode, SandboxPolicy } from "./sandbox-policy"

export type Sandbox =
  | { state: "on"; bwrap: string; policy: SandboxPolicy; explain(output: string): SandboxBlock | undefined; dispose(): void }
  | { state: "off" }
  /** Asked for, but bwrap is missing or fails. `required`: commands that would run sandboxed are refused. */
  | { state: "unavailable"; reason: string; required: boolean; notice: string }

/** Mounted read-only when reads are restricted (missing ones are skipped; symlinks such as /bin → usr/bin kept as links). */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/run/systemd/resolve"]

export interface ResolveSandboxInput {
  config: SandboxConfig | undefined
  worktree: string
  directory: string
  /** The App's environment: PATH finds bwrap, TMPDIR places the private temp dir. */
  env: NodeJS.ProcessEnv
  home: string
  /** Reads outside the project are denied (`external_directory: deny`); `extraReadable` are the directories still allowed. */
  restrictReads: boolean
  extraReadable?: string[]
  /** The platform (tests pass "darwin" to see the notice). */
  platform?: NodeJS.Platform
}

/** The App's sandbox: probes bwrap (once per process), creates the private temp dir. Never throws. */
export async function resolveSandbox(input: ResolveSandboxInput): Promise<Sandbox> {
  const cfg = input.config ?? {}
  if (cfg.mode === "off") return { state: "off" }
  const required = cfg.required === true
  const network = cfg.network !== false
  const platform = input.platform ?? process.platform
  if (platform !== "linux") return unavailable(`the sandbox needs Linux (bubblewrap); this is ${platform}`, required, "")
  const probe = await probeBwrap(input.env, network)
  if (!probe.ok) return unavailable(probe.reason, required, probe.missing ? INSTALL_HINT : USERNS_HINT)

  const tmpBase = input.env.TMPDIR || "/tmp"
  // Made with the first sandboxed command: a run that starts none creates and removes nothing.
  let tmpdir: string | undefined
  const mode: SandboxMode = cfg.mode === "read-only" ? "read-only" : "workspace-write"
  const git = mode === "workspace-write" ? gitDirs(input.worktree) : { writable: [], dirs: [], files: [] }
  const configured = (cfg.writable ?? []).map((p) => expand(p, input.directory, input.home))
  const guarded = protectedPaths(input, git)
  const readable = input.restrictReads ? unique([input.worktree, input.directory, ...(input.extraReadable ?? [])]) : "all"
  const policy: SandboxPolicy = {
    mode,
    network,
    writable: [...(mode === "workspace-write" ? [input.worktree] : []), ...git.writable, ...configured],
    get tmpdir() {
      return (tmpdir ??= mkdtempSync(path.join(tmpBase, "wright-sandbox-")))
    },
    protected: guarded.protected,
    sweepIfMissing: guarded.sweep,
    home: input.home,
    ...secretPaths({ env: input.env, home: input.home, readable: unique([input.worktree, input.directory, ...(input.extraReadable ?? [])]) }),
    readable,
  }
  return {
    state: "on",
    bwrap: probe.path,
    policy,
    explain: (output) => explainBlock(policy, output),
    dispose: () => {
      if (tmpdir) rmSync(tmpdir, { recursive: true, force: true })
    },
  }
}

const INSTALL_HINT = "Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)."
const USERNS_HINT =
  "bwrap needs unprivileged user namespaces: on Ubuntu 24.04+ allow them for bwrap with an AppArmor profile, or set kernel.apparmor_restrict_unprivileged_userns=0."

function unavailable(reason: string, required: boolean, hint: string): Sandbox {
  const what = required
    ? `sandbox.required is true, so commands that would run sandboxed (bash, !cmd, command templates) are refused.`
    : `Commands (bash, !cmd, command templates) run without it: only the permission rules protect your files, your network and the processes left running.`
  const notice = `The OS sandbox is off: ${reason}. ${what}${hint ? ` ${hint}` : ""} Set "sandbox": {"mode": "off"} to silence this.`
  return { state: "unavailable", reason, required, notice }
}

/**
 * bwrap's arguments for one command in `cwd` (the command follows after "--"). Later mounts
 * lie over earlier ones, so the order is: what is readable, /dev and /proc, what is writable,
 * then the protected paths inside the writable ones.
 */
export function bwrapArgs(policy: SandboxPolicy, cwd: string): string[] {
  // A new PID namespace whose init dies with bwrap: when the command ends, or the group is
  // killed on timeout, the kernel ends everything left in it (background jobs, setsid, nohup).
  // No --new-session: the spawner already gives bwrap its own session without a terminal, and
  // the inner shell must stay in bwrap's process group so the group kill reaches it at once.
  // --cap-drop ALL: when wright runs as root, bwrap would keep root's capabilities, and a
  // command could simply unmount the read-only binds.
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL"]
  if (!policy.network) args.push("--unshare-net")
  if (policy.readable === "all") {
    args.push("--ro-bind", "/", "/", ...hideArgs(policy))
    if (under(cwd, policy.hidden) && !under(cwd, [...policy.reexposed, ...policy.writable, policy.tmpdir])) args.push("--ro-bind-try", cwd, cwd)
  } else {
    for (const dir of SYSTEM_DIRS) systemMount(dir, args)
    // An empty /tmp of its own, before the project (often under /tmp) is mounted into it.
    args.push("--tmpfs", "/tmp")
    for (const dir of policy.readable) args.push("--ro-bind-try", dir, dir)
    // Something to chdir into when the workdir is outside every mount (the user allowed it).
    if (!under(cwd, [...policy.readable, ...policy.writable, policy.tmpdir])) args.push("--ro-bind-try", cwd, cwd)
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm")
  for (const dir of policy.writable) args.push("--bind-try", dir, dir)
  args.push("--bind", policy.tmpdir, policy.tmpdir)
  args.push(...layoutFor(policy).args, ...maskArgs(policy))
  args.push("--chdir", cwd)
  return args
}

function systemMount(dir: string, args: string[]) {
  let info
  try {
    info = lstatSync(dir)
  } catch {
    return
  }
  if (info.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir)
  else args.push("--ro-bind", dir, dir)
}

/**
 * The git directories a commit in this worktree writes, and what in them stays as it is. In a
 * plain clone `.git` is inside the worktree already (it is bound over itself so that it cannot
 * be renamed away and replaced); in a linked worktree (`.git` is a file) its gitdir and the
 * common dir lie outside and must be writable too. What git runs or follows later stays
 * read-only: config, config.worktree, commondir, hooks, info, the existing submodules' config
 * and hooks, the linked worktrees' pointers. Objects, refs, logs, the index, HEAD and the lock
 * files beside them stay writable: commits and checkouts need them.
 */
export function gitDirs(worktree: string): { writable: string[]; dirs: string[]; files: string[] } {
  const dotGit = path.join(worktree, ".git")
  let gitdir: string
  try {
    if (lstatSync(dotGit).isDirectory()) return { writable: [dotGit], ...gitProtected(dotGit, dotGit) }
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
    if (!m) return { writable: [], dirs: [], files: [dotGit] }
    gitdir = path.resolve(worktree, m[1]!.trim())
  } catch {
    return { writable: [], dirs: [], files: [] }
  }
  let common = gitdir
  try {
    common = path.resolve(gitdir, readFileSync(path.join(gitdir, "commondir"), "utf8").trim())
  } catch {
    // No commondir: a gitdir of its own (`git init --separate-git-dir`).
  }
  const inner = gitProtected(gitdir, common)
  return { writable: unique([gitdir, common]), dirs: inner.dirs, files: unique([dotGit, ...inner.files]) }
}

function gitProtected(gitdir: string, common: string): { dirs: string[]; files: string[] } {
  const dirs = [path.join(common, "hooks"), path.join(common, "info")]
  const files = [...new Set([gitdir, common])].flatMap((d) => ["config", "config.worktree", "commondir"].map((f) => path.join(d, f)))
  if (gitdir !== common) files.push(path.join(gitdir, "gitdir"))
  // Existing submodules (nested ones too) and linked worktrees: read once per App.
  const modules = (dir: string, depth: number) => {
    if (depth > 3) return
    for (const name of list(path.join(dir, "modules"))) {
      const sub = path.join(dir, "modules", name)
      dirs.push(path.join(sub, "hooks"), path.join(sub, "info"))
      files.push(path.join(sub, "config"))
      modules(sub, depth + 1)
    }
  }
  modules(common, 0)
  // Linked worktrees' pointers: git in this worktree never writes another's gitdir (only
  // `git worktree add/prune` do, and they are refused here). From the main worktree the whole
  // folder is one mount; from a linked one, every other worktree's folder.
  const worktrees = path.join(common, "worktrees")
  if (gitdir === common) dirs.push(worktrees)
  else for (const name of list(worktrees)) if (path.join(worktrees, name) !== gitdir) dirs.push(path.join(worktrees, name))
  return { dirs, files }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
  } catch {
    return []
  }
}

function expand(p: string, directory: string, home: string): string {
  if (p === "~") return home
  if (p.startsWith("~/")) return path.join(home, p.slice(2))
  return path.resolve(directory, p)
}

function unique(list: string[]): string[] {
  return [...new Set(list)]
}

export { under }
