// A worktree per session: a linked git worktree on its own branch `wright/<name>`, made from the
// main checkout's HEAD under wright's data dir (never inside the checkout), so an agent's edits
// never touch the main checkout until the user merges them. Every git call goes through the
// hardened door (process/git.ts): hooks, fsmonitor and filter drivers never run, and the commit
// and merge steps below also switch off signing, merge drivers, submodule recursion and auto gc,
// all of which a repository's own config could point at a program.
import { createHash } from "node:crypto"
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from "node:fs"
import fs from "node:fs/promises"
import path from "node:path"
import { runGit, worktreeGit, type Exec, type GitResult } from "../process"
import { slug } from "../util"
import { copyIncluded, type Included } from "./worktree-include"
import { carryTrust } from "./worktree-trust"

export const BRANCH_PREFIX = "wright/"

/** A worktree wright made: its name, branch and where it and its main checkout are. */
export interface WorktreeRef {
  name: string
  branch: string
  path: string
  /** The main checkout it was made from, and merges into. */
  main: string
}

export interface WorktreeStatus extends WorktreeRef {
  head: string
  /** Commits on the branch the main checkout's HEAD does not have. */
  ahead: number
  /** Files changed and not committed in the worktree (files copied from `.worktreeinclude` aside). */
  dirty: string[]
}

/** The user's mistake (bad name, not a git repository, would overwrite work): said as is, exit 1. */
export class WorktreeError extends Error {
  constructor(
    message: string,
    /** Files that conflict (merge), or hold unmerged work (discard). */
    readonly files: string[] = [],
  ) {
    super(message)
    this.name = "WorktreeError"
  }
}

/** Where the worktrees of a main checkout live: `<data>/worktrees/<folder>-<hash of its path>/`. */
export function worktreesDir(dataDir: string, main: string): string {
  const real = realpathSync(main)
  return path.join(dataDir, "worktrees", `${path.basename(real).replace(/[^\w.-]/g, "_")}-${createHash("sha256").update(real).digest("hex").slice(0, 10)}`)
}

/** A name is one path segment that is also a valid branch name part. */
export function checkName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || name.includes("..") || name.endsWith(".lock") || name.endsWith("."))
    throw new WorktreeError(`worktree name "${name}": use letters, digits, '.', '_' and '-' (up to 64, starting with a letter or digit)`)
  return name
}

/** Settings on top of GIT_SAFE_CONFIG for steps that commit or merge in a repository's config. */
const COMMIT_SAFE = ["commit.gpgSign=false", "tag.gpgSign=false", "gc.auto=0", "maintenance.auto=false", "submodule.recurse=false", "merge.autoStash=false", "rebase.autoStash=false"]

/**
 * git that may read file contents or write the tree (filters blanked by worktreeGit), with the
 * repository's merge drivers replaced by `false` (git then marks the file as a conflict rather
 * than run the repository's program) and COMMIT_SAFE applied.
 */
async function git(exec: Exec, cwd: string, args: string[], input?: string): Promise<GitResult> {
  const listed = await runGit(exec, ["config", "-z", "--name-only", "--get-regexp", "^merge\\..*\\.driver$"], { cwd })
  const drivers = listed.stdout.toString().split("\0").filter(Boolean).map((n) => `${n}=false`)
  const extra = [...COMMIT_SAFE, ...drivers].flatMap((c) => ["-c", c])
  return worktreeGit(exec, undefined, [...extra, ...args], { cwd, input, timeout: 120_000 })
}

async function must(result: Promise<GitResult>, what: string): Promise<string> {
  const r = await result
  if (r.code !== 0) throw new WorktreeError(`${what} failed: ${r.stderr.trim() || `git exited ${r.code}`}`)
  return r.stdout.toString()
}

/** The main checkout of the repository at `dir` (the folder holding the common `.git`). */
export async function mainCheckout(exec: Exec, dir: string): Promise<string> {
  const r = await runGit(exec, ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: dir })
  if (r.code !== 0) throw new WorktreeError(`${dir} is not in a git repository: worktrees need one (git init, and a first commit)`)
  const common = r.stdout.toString().trim()
  if (path.basename(common) !== ".git") throw new WorktreeError(`${common}: a bare repository has no main checkout to make worktrees from`)
  return path.dirname(common)
}

export interface Created extends WorktreeRef {
  included: Included
  /** The main checkout's trust carried over (worktree-trust.ts). */
  trusted: boolean
}

/**
 * Makes `wright/<name>` from the main checkout's HEAD and checks it out in a new folder, then
 * copies the `.worktreeinclude` files. `name` defaults to two random words.
 */
export async function createWorktree(deps: { exec: Exec; dataDir: string; env?: NodeJS.ProcessEnv }, dir: string, name?: string): Promise<Created> {
  const main = await mainCheckout(deps.exec, dir)
  name = checkName(name ?? slug())
  const branch = BRANCH_PREFIX + name
  const where = path.join(worktreesDir(deps.dataDir, main), name)
  if (existsSync(where)) throw new WorktreeError(`worktree "${name}" already exists at ${where}: pick another name, or \`wright worktree discard ${name}\``)
  // The current HEAD: that of the checkout the user is in (the main one, or another worktree).
  const head = await runGit(deps.exec, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: dir })
  if (head.code !== 0) throw new WorktreeError(`${dir} has no commit yet: a worktree starts from HEAD, so commit first`)
  const taken = await runGit(deps.exec, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], { cwd: main })
  if (taken.code === 0) throw new WorktreeError(`branch ${branch} already exists: pick another name, or \`wright worktree discard ${name}\``)
  await fs.mkdir(path.dirname(where), { recursive: true })
  await must(git(deps.exec, main, ["worktree", "add", "--quiet", "-b", branch, where, head.stdout.toString().trim()]), `git worktree add ${where}`)
  const included = await copyIncluded(deps.exec, main, where)
  await fs.writeFile(path.join(await gitDir(deps.exec, where), INCLUDED_LIST), JSON.stringify(included.copied))
  const trusted = deps.env ? await carryTrust({ exec: deps.exec, dataDir: deps.dataDir, env: deps.env }, main, where) : false
  return { name, branch, path: where, main, included, trusted }
}

/** Kept in the worktree's own git dir: the copied files are the user's local files, never committed or merged. */
const INCLUDED_LIST = "wright-included.json"

async function gitDir(exec: Exec, worktree: string): Promise<string> {
  return (await must(runGit(exec, ["rev-parse", "--absolute-git-dir"], { cwd: worktree }), "git rev-parse")).trim()
}

async function includedFiles(exec: Exec, worktree: string): Promise<string[]> {
  try {
    return JSON.parse(await fs.readFile(path.join(await gitDir(exec, worktree), INCLUDED_LIST), "utf8")) as string[]
  } catch {
    return []
  }
}

/** The wright worktrees of the repository at `dir`, with their unmerged work. */
export async function listWorktrees(exec: Exec, dir: string): Promise<WorktreeStatus[]> {
  const main = await mainCheckout(exec, dir)
  const out = await must(runGit(exec, ["worktree", "list", "--porcelain", "-z"], { cwd: main }), "git worktree list")
  const list: WorktreeStatus[] = []
  for (const block of out.split("\0\0")) {
    const fields = new Map(block.split("\0").filter(Boolean).map((l) => [l.split(" ")[0]!, l.slice(l.indexOf(" ") + 1)]))
    const ref = fields.get("branch")
    if (!ref?.startsWith(`refs/heads/${BRANCH_PREFIX}`)) continue
    const branch = ref.slice("refs/heads/".length)
    const wt = fields.get("worktree")!
    const present = existsSync(wt)
    list.push({
      name: branch.slice(BRANCH_PREFIX.length),
      branch,
      path: wt,
      main,
      head: fields.get("HEAD") ?? "",
      ahead: await ahead(exec, main, branch),
      dirty: present ? await dirtyFiles(exec, wt, await includedFiles(exec, wt)) : [],
    })
  }
  return list
}

async function ahead(exec: Exec, main: string, branch: string): Promise<number> {
  const r = await runGit(exec, ["rev-list", "--count", `HEAD..refs/heads/${branch}`], { cwd: main })
  return r.code === 0 ? Number(r.stdout.toString().trim()) : 0
}

/** Changed, staged and untracked (not ignored) files of a checkout, minus `skip`. */
async function dirtyFiles(exec: Exec, cwd: string, skip: string[] = []): Promise<string[]> {
  const out = await must(git(exec, cwd, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none"]), `git status in ${cwd}`)
  const skipped = new Set(skip)
  return out
    .split("\0")
    .filter(Boolean)
    .map((entry) => entry.slice(3))
    .filter((f) => !skipped.has(f))
}

async function find(exec: Exec, dir: string, name: string): Promise<WorktreeStatus> {
  checkName(name)
  const wt = (await listWorktrees(exec, dir)).find((w) => w.name === name)
  if (!wt) throw new WorktreeError(`no worktree named "${name}": \`wright worktree list\` shows them`)
  return wt
}

export interface Merged {
  name: string
  branch: string
  /** Files the merge changed in the main checkout. */
  files: string[]
  /** Whether the worktree's uncommitted changes were first committed on its branch. */
  committedWork: boolean
}

/**
 * Brings the branch's commits, and the worktree's uncommitted changes (committed on the branch
 * first), into the main checkout. Refuses, changing nothing in the main checkout, when a file
 * the merge would write has uncommitted changes there (or is untracked there), and when the two
 * sides conflict; the error lists the files.
 */
export async function mergeWorktree(exec: Exec, dir: string, name: string): Promise<Merged> {
  const wt = await find(exec, dir, name)
  const main = wt.main
  let committedWork = false
  if (wt.dirty.length && existsSync(wt.path)) {
    const skip = await includedFiles(exec, wt.path)
    await must(git(exec, wt.path, ["add", "-A", "--", ".", ...skip.map((f) => `:(exclude,literal)${f}`)]), "git add in the worktree")
    const who = await runGit(exec, ["config", "user.email"], { cwd: wt.path })
    const identity = who.stdout.toString().trim() ? [] : ["-c", "user.name=wright", "-c", "user.email=wright@localhost"]
    await must(git(exec, wt.path, [...identity, "commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", `wright: uncommitted work of worktree ${name}`]), "git commit in the worktree")
    committedWork = true
  }
  const branchRef = `refs/heads/${wt.branch}`
  const base = (await must(runGit(exec, ["merge-base", "HEAD", branchRef], { cwd: main }), "git merge-base")).trim()
  const changed = (await must(runGit(exec, ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", base, branchRef], { cwd: main }), "git diff")).split("\0").filter(Boolean)
  if (!changed.length) return { name, branch: wt.branch, files: [], committedWork }
  const dirty = new Set(await dirtyFiles(exec, main))
  // An ignored file (an `.env`) is not in status, and git's merge overwrites it silently.
  const tracked = new Set((await must(runGit(exec, ["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", ...changed.map((f) => `:(literal)${f}`)], { cwd: main }), "git ls-tree")).split("\0").filter(Boolean))
  for (const f of changed) if (!tracked.has(f) && lstatSync(path.join(main, f), { throwIfNoEntry: false })) dirty.add(f)
  const overlap = changed.filter((f) => dirty.has(f))
  if (overlap.length)
    throw new WorktreeError(`not merged: the main checkout ${main} has uncommitted changes to files the merge would write: ${overlap.join(", ")}. Commit or move them, then merge again`, overlap)
  const identity = (await runGit(exec, ["config", "user.email"], { cwd: main })).stdout.toString().trim() ? [] : ["-c", "user.name=wright", "-c", "user.email=wright@localhost"]
  const merged = await git(exec, main, [...identity, "merge", "--no-edit", "--no-verify", "--no-gpg-sign", "--no-stat", "-m", `Merge worktree ${name} (${wt.branch})`, branchRef])
  if (merged.code !== 0) {
    const conflicts = (await git(exec, main, ["diff", "--name-only", "-z", "--diff-filter=U", "--no-ext-diff", "--no-textconv"])).stdout.toString().split("\0").filter(Boolean)
    await git(exec, main, ["merge", "--abort"])
    throw new WorktreeError(
      conflicts.length
        ? `not merged: ${wt.branch} and the main checkout both changed ${conflicts.join(", ")}; the merge was undone. Resolve it in the worktree (merge the main branch there), then merge again`
        : `not merged: git merge failed: ${merged.stderr.trim()}`,
      conflicts,
    )
  }
  return { name, branch: wt.branch, files: changed, committedWork }
}

/** Work that discarding would lose: commits the main checkout lacks, and uncommitted files. */
export async function unmergedWork(exec: Exec, dir: string, name: string): Promise<{ ahead: number; dirty: string[] }> {
  const wt = await find(exec, dir, name)
  return { ahead: wt.ahead, dirty: wt.dirty }
}

/** Removes the worktree and its branch. Without `force`, refuses when that loses unmerged work. */
export async function discardWorktree(exec: Exec, dir: string, name: string, opts: { force?: boolean } = {}): Promise<WorktreeRef> {
  const wt = await find(exec, dir, name)
  if (!opts.force && (wt.ahead > 0 || wt.dirty.length > 0)) {
    const what = [wt.ahead ? `${wt.ahead} commit(s) not merged` : "", wt.dirty.length ? `uncommitted changes to ${wt.dirty.join(", ")}` : ""].filter(Boolean).join(" and ")
    throw new WorktreeError(`worktree "${name}" has ${what}: merge it first, or discard with --force`, wt.dirty)
  }
  // A folder removed by hand leaves only git's record of it, which prune drops.
  if (existsSync(wt.path)) await must(runGit(exec, ["worktree", "remove", "--force", wt.path], { cwd: wt.main }), "git worktree remove")
  else await must(runGit(exec, ["worktree", "prune"], { cwd: wt.main }), "git worktree prune")
  await must(runGit(exec, ["branch", "-D", "--quiet", wt.branch], { cwd: wt.main }), "git branch -D")
  return wt
}

/**
 * The wright worktree `dir` is in (its `.git` file names a linked worktree whose HEAD is on a
 * `wright/` branch), read from files alone: sessions created there carry its branch.
 */
export function wrightWorktreeOf(dir: string): { name: string; branch: string } | undefined {
  try {
    const dotGit = path.join(dir, ".git")
    if (!statSync(dotGit).isFile()) return undefined
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
    if (!m) return undefined
    const head = readFileSync(path.join(path.resolve(dir, m[1]!.trim()), "HEAD"), "utf8").trim()
    const ref = /^ref: refs\/heads\/(wright\/(.+))$/.exec(head)
    return ref ? { name: ref[2]!, branch: ref[1]! } : undefined
  } catch {
    return undefined
  }
}
