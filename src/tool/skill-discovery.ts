// Finds skills where OpenCode and other agents keep them, in OpenCode's order (a later skill
// of the same name replaces an earlier one, and the clash is reported naming both files):
//   1. `~/.claude/skills/**`, `~/.agents/skills/**` (the user's, shared with Claude Code & co.)
//   2. `.claude/skills/**`, `.agents/skills/**` from the working directory up to the worktree
//   3. `{skill,skills}/**` of each config directory, lowest precedence first
//   4. `skills.paths` (any `SKILL.md` below), 5. the `skills.urls` pulled into the cache.
// The frontmatter gives `name` (falling back to the folder name) and `description`.
import { readFileSync, realpathSync, statSync } from "node:fs"
import path from "node:path"
import { globSync } from "tinyglobby"
import { expandHome, isInside, parseFrontmatter, realOrSelf } from "../util"
import { pullSkills } from "./skill-pull"

export interface SkillInfo {
  name: string
  description: string
  /** Absolute path of the SKILL.md file. */
  location: string
  /** The Markdown body, without the frontmatter. */
  content: string
}

/** One place to look: `dir`, the globs below it, and (for a project's folders) the root its files must stay in. */
export interface SkillSource {
  dir: string
  patterns: string[]
  /** When set, a SKILL.md whose real path (symlinks resolved) leaves this directory is skipped, and no symlinked folder is followed. */
  within?: string
}

export interface SkillSearch {
  home: string
  /** The working directory and the worktree (git root) above it. */
  directory: string
  worktree: string
  /** Config directories (`~/.config/wright`, `.opencode`, `.wright`, …), lowest precedence first. */
  configDirs: string[]
  /** Config directories that belong to the project (loaded's `project.dirs`). */
  projectDirs: string[]
  /** Whether the project is trusted; an untrusted project's skills may not reach outside it. */
  trusted: boolean
  /** `skills.paths`: `~/` and paths relative to `directory` allowed. */
  paths?: string[]
  /** `false` (WRIGHT_/OPENCODE_DISABLE_EXTERNAL_SKILLS): skip the `.claude` and `.agents` folders. */
  external?: boolean
  /** Directories the `skills.urls` were pulled into (skill-pull.ts). */
  pulled?: string[]
}

const EXTERNAL = [".claude", ".agents"]
const EXTERNAL_PATTERN = ["skills/**/SKILL.md"]
const CONFIG_PATTERN = ["{skill,skills}/**/SKILL.md"]
const ANY_PATTERN = ["**/SKILL.md"]

/** Every place to look, in the order OpenCode reads them (later wins). */
export function skillSources(s: SkillSearch): { sources: SkillSource[]; warnings: string[] } {
  const warnings: string[] = []
  const project = s.trusted ? undefined : s.worktree
  const inProject = (dir: string) => project !== undefined && isInside(project, dir)
  const external = s.external === false ? [] : EXTERNAL
  const sources: SkillSource[] = external.map((d) => ({ dir: path.join(s.home, d), patterns: EXTERNAL_PATTERN }))
  // Nearest first, as OpenCode walks up; home and its parents hold the user's own folders.
  for (const level of external.length ? levelsUp(s.directory, s.worktree) : []) {
    if (isInside(level, s.home)) continue
    for (const d of external) sources.push({ dir: path.join(level, d), patterns: EXTERNAL_PATTERN, within: project })
  }
  for (const dir of s.configDirs) sources.push({ dir, patterns: CONFIG_PATTERN, within: s.projectDirs.includes(dir) ? project : undefined })
  for (const entry of s.paths ?? []) {
    const dir = path.resolve(s.directory, expandHome(entry, s.home))
    if (!isDirectory(dir)) warnings.push(`skills.paths: ${JSON.stringify(entry)} is not a directory (${dir})`)
    else sources.push({ dir, patterns: ANY_PATTERN, within: inProject(dir) ? project : undefined })
  }
  for (const dir of s.pulled ?? []) sources.push({ dir, patterns: ANY_PATTERN })
  return { sources, warnings }
}

/** Skills of all sources; when two share a name the later one wins and a warning names both files. */
export function findSkills(sources: SkillSource[]): { skills: SkillInfo[]; warnings: string[] } {
  const byName = new Map<string, SkillInfo>()
  const warnings: string[] = []
  const seen = new Set<string>()
  for (const source of sources) {
    for (const file of scan(source)) {
      if (seen.has(file)) continue
      seen.add(file)
      const skill = readSkill(file)
      if (!skill) continue
      const earlier = byName.get(skill.name)
      if (earlier) warnings.push(`skill "${skill.name}": ${skill.location} replaces ${earlier.location} (same name)`)
      byName.set(skill.name, skill)
    }
  }
  return { skills: [...byName.values()], warnings }
}

/** Startup: pulls `urls` into the cache, then finds every skill; warnings name the files or entries at fault. */
export async function loadSkills(search: Omit<SkillSearch, "pulled"> & { urls?: string[]; cacheDir: string; fetch?: typeof fetch }): Promise<{ skills: SkillInfo[]; warnings: string[] }> {
  const pulled = search.urls?.length ? await pullSkills(search.urls, search.cacheDir, search.fetch) : { dirs: [], warnings: [] }
  const { sources, warnings } = skillSources({ ...search, pulled: pulled.dirs })
  const found = findSkills(sources)
  return { skills: found.skills, warnings: [...pulled.warnings, ...warnings, ...found.warnings] }
}

/** Skills under `{skill,skills}/` of the given directories, lowest precedence first (a later one wins). */
export function discoverSkills(dirs: string[]): SkillInfo[] {
  return findSkills(dirs.map((dir) => ({ dir, patterns: CONFIG_PATTERN }))).skills
}

function scan(source: SkillSource): string[] {
  if (!isDirectory(source.dir)) return []
  const within = source.within ? realOrSelf(source.within) : undefined
  const files = globSync(source.patterns, {
    cwd: source.dir,
    absolute: true,
    dot: true,
    // A project's symlinked folder could point anywhere (`/`, `~/.ssh`): never walk into one.
    followSymbolicLinks: within === undefined,
    ignore: ["**/node_modules/**", "**/.git/**"],
  }).sort()
  if (!within) return files
  // A SKILL.md that is itself a link (or sits below a linked folder) must resolve inside the project.
  return files.filter((file) => {
    try {
      return isInside(within, realpathSync(file))
    } catch {
      return false
    }
  })
}

function readSkill(location: string): SkillInfo | undefined {
  let text: string
  try {
    text = readFileSync(location, "utf8")
  } catch {
    return undefined
  }
  let parsed: { data: Record<string, unknown>; body: string }
  try {
    parsed = parseFrontmatter(text, location)
  } catch {
    // A skill whose frontmatter is not valid YAML is left out rather than breaking the tool.
    return undefined
  }
  const { data, body } = parsed
  const str = (v: unknown) => (typeof v === "string" ? v.trim() : "")
  const name = str(data.name) || path.basename(path.dirname(location))
  return { name, description: str(data.description), location: path.resolve(location), content: body }
}

/** `directory` and each parent up to `stop` (or the root), nearest first. */
function levelsUp(directory: string, stop: string): string[] {
  const out: string[] = []
  let current = path.resolve(directory)
  for (;;) {
    out.push(current)
    const parent = path.dirname(current)
    if (current === path.resolve(stop) || parent === current) return out
    current = parent
  }
}



function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}
