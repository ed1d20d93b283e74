// Where a path really points: symlinks are followed one component at a time, as the
// kernel does, so `link/..` means the parent of the link's target, not the link's own
// directory. Paths that do not exist yet resolve through their nearest existing ancestor.
import fs from "node:fs"
import path from "node:path"

const MAX_LINKS = 40

export function resolveReal(p: string, cwd: string): string {
  const start = p.startsWith("/") ? p : `${path.resolve(cwd)}/${p}`
  let segments = start.split("/")
  let current = "/"
  let links = 0
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      current = path.dirname(current)
      continue
    }
    const next = current === "/" ? `/${segment}` : `${current}/${segment}`
    const target = readLink(next)
    if (target === undefined || ++links > MAX_LINKS) {
      current = next
      continue
    }
    // Restart the walk on the link's target followed by what was left of the path.
    const base = target.startsWith("/") ? "" : current
    segments = `${base}/${target}`.split("/").concat(segments.slice(i + 1))
    current = "/"
    i = -1
  }
  return current
}

function readLink(p: string): string | undefined {
  try {
    return fs.lstatSync(p).isSymbolicLink() ? fs.readlinkSync(p) : undefined
  } catch {
    return undefined
  }
}

/** Both readings of a path: the kernel's (physical) and the shell's `cd` (logical, `..` first). */
export function resolveBoth(p: string, cwd: string): string[] {
  const physical = resolveReal(p, cwd)
  const logical = resolveReal(path.resolve(cwd, p), "/")
  return physical === logical ? [physical] : [physical, logical]
}

/**
 * The patterns a path meets path rules (`read`, `edit`, `list`, …) with: the path as written
 * and the path with symlinks resolved, each relative to the worktree (`/`-separated) when
 * inside it and absolute when not (the resolved one is compared with the worktree's own real
 * path). Asked together, a rule that denies either denies the call, so a link does not dodge
 * a rule written for its target, nor the target's a rule written for the link.
 */
export function pathPatterns(p: string, opts: { cwd: string; worktree: string }): string[] {
  const shown = (abs: string, root: string) => (isInside(root, abs) ? path.relative(root, abs).split(path.sep).join("/") || "." : abs)
  const literal = shown(path.resolve(opts.cwd, p), path.resolve(opts.worktree))
  const resolved = shown(resolveReal(p, opts.cwd), resolveReal(opts.worktree, "/"))
  return [...new Set([literal, resolved])]
}

export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p)
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !path.isAbsolute(rel))
}

/** The `external_directory` pattern for a path: `<dir>/*`, the parent's for a file. */
export function externalDirectoryPattern(absPath: string, isDir = false): string {
  const dir = isDir ? absPath : path.dirname(absPath)
  return dir === "/" ? "/*" : `${dir.replace(/\/+$/, "")}/*`
}

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

export interface ExternalDirectoryAsk {
  permission: "external_directory"
  patterns: string[]
  always: string[]
  metadata: { filepath: string; parentDir: string }
}

/**
 * What a file tool must ask before touching `target` (relative to `cwd`), or undefined
 * when the path, with symlinks resolved, stays inside `project`.
 */
export function externalDirectoryAsk(target: string, opts: { cwd: string; project: string; isDir?: boolean }): ExternalDirectoryAsk | undefined {
  const root = resolveReal(opts.project, "/")
  const outside = resolveBoth(target, opts.cwd).find((p) => !isInside(root, p))
  if (!outside) return undefined
  const pattern = externalDirectoryPattern(outside, opts.isDir ?? isDirectory(outside))
  return {
    permission: "external_directory",
    patterns: [pattern],
    always: [pattern],
    metadata: { filepath: outside, parentDir: pattern.slice(0, -2) || "/" },
  }
}

const GLOB_LIMIT = 512

/**
 * The paths a shell glob names, as bash expands it (no globstar, hidden files only when
 * the pattern starts with a dot; a pattern that matches nothing stays as written).
 * Segments are joined as written, so `..` keeps its physical meaning for resolveReal.
 * Undefined when it names more than GLOB_LIMIT paths.
 */
export function expandGlob(pattern: string, cwd: string): string[] | undefined {
  const abs = pattern.startsWith("/") ? pattern : `${path.resolve(cwd)}/${pattern}`
  let found = [""]
  for (const segment of abs.split("/").slice(1)) {
    if (!/[*?[]/.test(segment)) {
      found = found.map((base) => `${base}/${segment}`)
      continue
    }
    const re = globSegment(segment)
    const next: string[] = []
    for (const base of found) {
      const hits = listDir(base || "/").filter((name) => re.test(name) && (segment.startsWith(".") || !name.startsWith(".")))
      if (hits.length === 0) next.push(`${base}/${segment}`)
      for (const name of hits) next.push(`${base}/${name}`)
      if (next.length > GLOB_LIMIT) return undefined
    }
    found = next
  }
  return found
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

function globSegment(segment: string): RegExp {
  let source = ""
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]
    if (ch === "*") source += ".*"
    else if (ch === "?") source += "."
    else if (ch === "[") {
      const end = segment.indexOf("]", i + 2)
      if (end < 0) {
        source += "\\["
        continue
      }
      let body = segment.slice(i + 1, end)
      if (body.startsWith("!")) body = "^" + body.slice(1)
      source += `[${body.replace(/\\/g, "\\\\")}]`
      i = end
    } else source += ch.replace(/[.+^${}()|\\/]/g, "\\$&")
  }
  return new RegExp(`^${source}$`, "s")
}

const VCS_CONFIG = /(^|\/)\.git\/(config|hooks(\/.*)?)$/

/**
 * The `vcs_config` pattern for a path a command or tool writes, when it is git's own
 * configuration or a hook (`.git/config`, `.git/hooks/**`): relative to `worktree` when inside
 * it. Undefined for every other path.
 */
export function vcsConfigPattern(p: string, worktree: string): string | undefined {
  const abs = path.resolve(worktree, p)
  const shown = isInside(path.resolve(worktree), abs) ? path.relative(path.resolve(worktree), abs).split(path.sep).join("/") : abs
  if (VCS_CONFIG.test(shown)) return shown
  const real = resolveReal(p, worktree)
  return VCS_CONFIG.test(real) ? (isInside(resolveReal(worktree, "/"), real) ? path.relative(resolveReal(worktree, "/"), real) : real) : undefined
}

/** The `vcs_config` patterns among a tool's `edit` patterns (worktree-relative or absolute paths). */
export function vcsConfigPatterns(patterns: string[], worktree: string): string[] {
  return [...new Set(patterns.flatMap((p) => vcsConfigPattern(p, worktree) ?? []))]
}
