// The project's files as clients see them (`/file`, `/file/content`, `/file/status`): a
// directory listing with .gitignore marks, a file's content, and git's view of what changed.
// Paths outside the project (directory or git worktree), symlinks included, are refused.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs"
import path from "node:path"
import ignore, { type Ignore } from "ignore"
import type { GitResult } from "../process"
import { BadRequestError, NotFoundError, type FileContent, type FileNode, type FileStatus } from "../protocol"
import { mimeOf } from "../util"

const MAX_READ_BYTES = 10 * 1024 * 1024
const HIDDEN = new Set([".git", ".DS_Store"])

export interface Project {
  directory: string
  worktree: string
}

function badPath(message: string): never {
  throw new BadRequestError({ message: `Invalid request: query.path: ${message}`, issues: [{ path: "query.path", message }] })
}

function real(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

function inside(child: string, parent: string) {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/** The absolute path of `p` (relative to the project directory), or a 400 when it leaves the project. */
export function resolveInProject(project: Project, p: string): string {
  const abs = path.resolve(project.directory, p)
  const roots = [project.directory, project.worktree].map(real)
  if (!roots.some((root) => inside(real(abs), root))) badPath(`${p} is outside the project directory ${project.directory}`)
  return abs
}

/** .gitignore rules from the worktree root down to `dir`, each scoped to its own folder. */
function ignoreRules(project: Project, dir: string): (abs: string, isDir: boolean) => boolean {
  const root = inside(dir, project.worktree) ? project.worktree : project.directory
  const levels: { base: string; rules: Ignore }[] = []
  for (let level = dir; ; level = path.dirname(level)) {
    const file = path.join(level, ".gitignore")
    if (existsSync(file)) levels.push({ base: level, rules: ignore().add(readFileSync(file, "utf8")) })
    if (level === root || path.dirname(level) === level) break
  }
  return (abs, isDir) =>
    levels.some(({ base, rules }) => {
      const rel = path.relative(base, abs).split(path.sep).join("/")
      return rel !== "" && rules.ignores(isDir ? `${rel}/` : rel)
    })
}

export function listDirectory(project: Project, p: string): FileNode[] {
  const dir = resolveInProject(project, p)
  if (!existsSync(dir)) throw new NotFoundError({ message: `No such directory: ${p}` })
  if (!statSync(dir).isDirectory()) badPath(`${p} is a file, not a directory (read it with /file/content)`)
  const ignored = ignoreRules(project, dir)
  const nodes: FileNode[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (HIDDEN.has(entry.name)) continue
    const absolute = path.join(dir, entry.name)
    let isDir = entry.isDirectory()
    if (entry.isSymbolicLink()) isDir = statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false
    nodes.push({
      name: entry.name,
      path: path.relative(project.directory, absolute).split(path.sep).join("/"),
      absolute,
      type: isDir ? "directory" : "file",
      ignored: ignored(absolute, isDir),
    })
  }
  return nodes.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "directory" ? -1 : 1))
}

export function readContent(project: Project, p: string): FileContent {
  const file = resolveInProject(project, p)
  const info = statSync(file, { throwIfNoEntry: false })
  if (!info) throw new NotFoundError({ message: `No such file: ${p}` })
  if (info.isDirectory()) badPath(`${p} is a directory (list it with /file)`)
  if (info.size > MAX_READ_BYTES) badPath(`${p} is ${info.size} bytes; files over ${MAX_READ_BYTES} bytes are not served`)
  const bytes = readFileSync(file)
  const mime = mimeOf(file)
  const binary = (mime !== undefined && mime !== "image/svg+xml") || bytes.subarray(0, 8192).includes(0)
  if (binary) return { type: "binary", content: bytes.toString("base64"), encoding: "base64", mimeType: mime ?? "application/octet-stream" }
  return { type: "text", content: bytes.toString("utf8") }
}

/** The App's git in the worktree (process/git.ts: hardened, sandboxed read-only when the sandbox is on). */
export type WorktreeGit = (args: string[], cwd: string) => Promise<GitResult>

async function output(git: WorktreeGit, cwd: string, args: string[]): Promise<string | undefined> {
  try {
    const r = await git(args, cwd)
    return r.code === 0 ? r.stdout.toString("utf8") : undefined
  } catch {
    return undefined
  }
}

function countLines(file: string): number {
  try {
    const bytes = readFileSync(file)
    if (bytes.subarray(0, 8192).includes(0)) return 0
    const text = bytes.toString("utf8")
    return text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
  } catch {
    return 0
  }
}

/** Changed files per `git status`, paths relative to the worktree, with added/removed line counts. */
export async function gitStatus(project: Project & { git: WorktreeGit }): Promise<FileStatus[]> {
  const porcelain = await output(project.git, project.worktree, ["status", "--porcelain=v1", "-z", "--untracked-files=all"])
  if (porcelain === undefined) return []
  const counts = new Map<string, { added: number; removed: number }>()
  const numstat = (await output(project.git, project.worktree, ["diff", "--no-ext-diff", "--no-textconv", "--numstat", "-z", "HEAD"])) ?? ""
  for (const record of numstat.split("\0")) {
    const m = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(record)
    if (m) counts.set(m[3]!, { added: Number(m[1]) || 0, removed: Number(m[2]) || 0 })
  }
  const out: FileStatus[] = []
  const records = porcelain.split("\0")
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!
    if (record.length < 4) continue
    const code = record.slice(0, 2)
    const file = record.slice(3)
    if (code[0] === "R" || code[0] === "C") i++ // the original name follows
    const status: FileStatus["status"] = code.includes("D") ? "deleted" : code === "??" || code.includes("A") ? "added" : "modified"
    const known = counts.get(file)
    const added = known?.added ?? (status === "added" ? countLines(path.join(project.worktree, file)) : 0)
    out.push({ path: file, added, removed: known?.removed ?? 0, status })
  }
  return out
}
