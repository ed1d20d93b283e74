import { readFileSync, statSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { z } from "zod"
import { ConfigError } from "./error"
import { mergeConfig, mergeDeep } from "./merge"
import { parseConfigSource, validateConfig, type ParsedConfig } from "./parse"
import { findGitRoot, levelsBetween, xdgPaths } from "./paths"
import { PermissionConfig } from "./permission"
import type { Config } from "./schema"
import { describeToken, hashSources, projectCode, projectConfigFiles, projectTokenPolicy, readTrustRecord, restrictProject, type Trust } from "./trust"

export interface LoadOptions {
  /** The project directory wright runs in. */
  directory: string
  /** Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Defaults to `os.homedir()`. */
  home?: string
  /** Highest precedence, e.g. from CLI flags. Validated like a file. */
  overrides?: Partial<Config>
  /** `--trust`: apply the project's config in full this time, recorded or not (WRIGHT_TRUST=1 too). */
  trust?: boolean
  /** Provider ids of the catalog: their keys are the user's (see restrictProject). */
  knownProviders?: ReadonlySet<string>
  /** The system-wide managed config folders, wright's first (default: /etc/wright, /etc/opencode). */
  managedDirs?: string[]
}

export interface LoadedConfig {
  config: Config
  /** Config files that were read, lowest precedence first. */
  files: string[]
  /** Existing config directories (for Markdown agents, commands, skills), lowest precedence first. */
  dirs: string[]
  /** Non-fatal problems, one line each naming the file, e.g. unknown keys. */
  warnings: string[]
  /** The git root above `directory`, or `directory` itself outside git. */
  worktree: string
  /**
   * What the user said, without any layer from the project's folders: the global config,
   * WRIGHT_CONFIG, WRIGHT_CONFIG_CONTENT, overrides and env switches. Settings that must
   * never come from a cloned repository (allowed origins and directories) are read here.
   */
  userConfig: Config
  /** Whether the project's own config applies in full, and what was held back if not. */
  trust: Trust
  /** Config paths whose values came from `{env:}` or `{file:}`: secrets, redacted on the way out. */
  secrets: (string | number)[][]
  /** What the project's own folders contribute, trusted or not: its config folders (.wright/, .opencode/) and the command names its config defines. */
  project: { dirs: string[]; commands: string[] }
}

const GLOBAL_FILES = ["config.json", "wright.json", "wright.jsonc"]
const OPENCODE_GLOBAL_FILES = ["config.json", "opencode.json", "opencode.jsonc"]
const PROJECT_FILES = ["wright.json", "wright.jsonc", ".wright/wright.json", ".wright/wright.jsonc"]
const OPENCODE_PROJECT_FILES = ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"]

/**
 * Finds, reads and merges every config source, lowest precedence first:
 * global dir → WRIGHT_CONFIG → project files (worktree root down to `directory`) →
 * WRIGHT_CONFIG_CONTENT → overrides, then the env switches. At each place a wright file
 * shadows the OpenCode file, so an OpenCode setup works until the user writes a wright one.
 * Never writes anything.
 */
export async function loadConfig(opts: LoadOptions): Promise<LoadedConfig> {
  const env = opts.env ?? process.env
  const home = opts.home ?? os.homedir()
  const directory = path.resolve(opts.directory)
  const gitRoot = findGitRoot(directory)
  const out: LoadedConfig = { config: {}, files: [], dirs: [], warnings: [], worktree: gitRoot ?? directory, userConfig: {}, trust: { directory, trusted: false, changed: false, ignored: [], hash: "" }, secrets: [], project: { dirs: [], commands: [] } }

  const apply = (parsed: ParsedConfig) => {
    out.config = mergeConfig(out.config, parsed.config)
    out.userConfig = mergeConfig(out.userConfig, parsed.config)
    out.warnings.push(...parsed.warnings)
    for (const t of parsed.tokens ?? []) if (t.resolved) out.secrets.push(t.at)
  }
  const loadFile = (file: string): boolean => {
    const text = readIfExists(file)
    if (text === undefined) return false
    apply(parseConfigSource(text, file, { env, home }))
    out.files.push(file)
    return true
  }
  const addDir = (dir: string) => {
    if (isDirectory(dir) && !out.dirs.includes(dir)) out.dirs.push(dir)
  }

  const globalDir = xdgPaths(env, home).config
  const globalFiles = GLOBAL_FILES.map((name) => path.join(globalDir, name)).filter(isFile)
  if (globalFiles.length === 0) {
    const opencodeDir = path.join(path.dirname(globalDir), "opencode")
    addDir(opencodeDir)
    for (const name of OPENCODE_GLOBAL_FILES) loadFile(path.join(opencodeDir, name))
  }
  addDir(globalDir)
  for (const file of globalFiles) loadFile(file)

  const [configVar, configPath] = pick(env, "WRIGHT_CONFIG", "OPENCODE_CONFIG")
  if (configPath) {
    const file = userPath(configPath, directory, home)
    if (!loadFile(file)) throw new ConfigError(file, [{ path: "", message: `file not found (named by ${configVar})` }])
  }

  if (!truthy(pick(env, "WRIGHT_DISABLE_PROJECT_CONFIG", "OPENCODE_DISABLE_PROJECT_CONFIG")[1])) {
    const sources: { file: string; text: string }[] = []
    const projectDirs: string[] = []
    for (const level of levelsBetween(directory, gitRoot)) {
      // Home and its parents hold the user's own files, not a repository's.
      const users = containsOrIs(level, home)
      for (const dir of [path.join(level, ".opencode"), path.join(level, ".wright")]) {
        addDir(dir)
        if (!users && isDirectory(dir)) projectDirs.push(dir)
      }
      const wright = PROJECT_FILES.map((name) => path.join(level, name)).filter(isFile)
      const chosen = wright.length > 0 ? wright : OPENCODE_PROJECT_FILES.map((name) => path.join(level, name))
      for (const file of chosen) {
        if (users) loadFile(file)
        else {
          const text = readIfExists(file)
          if (text !== undefined) sources.push({ file, text })
        }
      }
    }
    const files = projectConfigFiles(
      sources.map((s) => s.file),
      projectDirs,
    )
    out.trust = decideTrust({ directory, env, opts, hash: hashSources(files), dataDir: xdgPaths(env, home).data })
    // Plugins and custom tools run in wright's own process: trusting the folder is what loads them.
    if (!out.trust.trusted) out.trust.ignored.push(...projectCode(files.files, projectDirs, directory))
    out.project = { dirs: projectDirs, commands: [] }
    const allow = out.trust.trusted ? undefined : projectTokenPolicy([directory, out.worktree])
    let project: Config = {}
    for (const { file, text } of sources) {
      const parsed = parseConfigSource(text, file, { env, home, allow })
      project = mergeConfig(project, parsed.config)
      out.warnings.push(...parsed.warnings)
      out.files.push(file)
      for (const t of parsed.tokens ?? []) {
        if (t.resolved) out.secrets.push(t.at)
        else out.trust.ignored.push(`${path.relative(directory, file) || file}: ${describeToken(t)}`)
      }
    }
    out.project.commands = Object.keys(project.command ?? {})
    if (!out.trust.trusted) {
      const restricted = restrictProject(project, out.userConfig, opts.knownProviders)
      project = restricted.config
      out.trust.ignored.push(...restricted.ignored)
      out.trust.restricted = { ...restricted.permissions, dirs: projectDirs }
    }
    out.config = mergeConfig(out.config, project)
  }

  // An extra config folder of the user's, as OpenCode's: its config file, agents, commands, skills.
  const [dirVar, extraDir] = pick(env, "WRIGHT_CONFIG_DIR", "OPENCODE_CONFIG_DIR")
  if (extraDir) {
    const dir = userPath(extraDir, directory, home)
    if (!isDirectory(dir)) out.warnings.push(`${dirVar}: ${dir} is not a directory; ignored`)
    else {
      addDir(dir)
      loadFirst(dir, ["wright.json", "wright.jsonc"], ["opencode.json", "opencode.jsonc"], loadFile)
    }
  }

  const [contentVar, content] = pick(env, "WRIGHT_CONFIG_CONTENT", "OPENCODE_CONFIG_CONTENT")
  if (content) apply(parseConfigSource(content, contentVar, { env, home, dir: directory }))

  // The administrator's managed config overrides the user's and the project's (flags still win).
  const [wrightManaged, opencodeManaged] = opts.managedDirs ?? managedConfigDirs(env)
  if (!loadFirst(wrightManaged, ["wright.json", "wright.jsonc"], [], loadFile) && opencodeManaged) loadFirst(opencodeManaged, [], ["opencode.json", "opencode.jsonc"], loadFile)

  if (opts.overrides) apply(validateConfig(opts.overrides, "overrides"))

  out.config = applyEnvSwitches(out.config, env)
  out.userConfig = applyEnvSwitches(out.userConfig, env)
  return out
}

function applyEnvSwitches(config: Config, env: NodeJS.ProcessEnv): Config {
  const out = { config: { ...config } }
  const [permissionVar, permission] = pick(env, "WRIGHT_PERMISSION", "OPENCODE_PERMISSION")
  if (permission) {
    let json: unknown
    try {
      json = JSON.parse(permission)
    } catch (error) {
      throw new ConfigError(permissionVar, [{ path: "", message: `not valid JSON: ${(error as Error).message}` }])
    }
    const wrapped = { permission: json }
    const parsed = z.object({ permission: PermissionConfig }).safeParse(wrapped)
    if (!parsed.success) throw ConfigError.fromZod(permissionVar, parsed.error, wrapped)
    out.config.permission = mergeDeep(out.config.permission ?? {}, parsed.data.permission)
  }
  if (truthy(pick(env, "WRIGHT_DISABLE_AUTOCOMPACT", "OPENCODE_DISABLE_AUTOCOMPACT")[1])) {
    out.config.compaction = { ...out.config.compaction, auto: false }
  }
  if (truthy(pick(env, "WRIGHT_DISABLE_PRUNE", "OPENCODE_DISABLE_PRUNE")[1])) {
    out.config.compaction = { ...out.config.compaction, prune: false }
  }
  return out.config
}

/** Trusted by flag, or by a record whose hash still matches every project config source. */
function decideTrust(ctx: { directory: string; env: NodeJS.ProcessEnv; opts: LoadOptions; hash: string; dataDir: string }): Trust {
  const hash = ctx.hash
  const base = { directory: ctx.directory, ignored: [], hash, changed: false }
  if (ctx.opts.trust || truthy(pick(ctx.env, "WRIGHT_TRUST", "OPENCODE_TRUST")[1])) return { ...base, trusted: true, source: "flag" }
  const record = readTrustRecord(ctx.dataDir, ctx.directory)
  if (record?.hash === hash) return { ...base, trusted: true, source: "record" }
  return { ...base, trusted: false, changed: record !== undefined }
}

/** `dir` is `p` or one of its parents. */
function containsOrIs(dir: string, p: string): boolean {
  const rel = path.relative(dir, p)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/** Loads the wright files of `dir`, or its OpenCode files when it has none; whether any was read. */
function loadFirst(dir: string | undefined, wright: string[], opencode: string[], loadFile: (file: string) => boolean): boolean {
  if (!dir) return false
  const own = wright.map((name) => path.join(dir, name)).filter(isFile)
  let read = false
  for (const file of own.length > 0 ? own : opencode.map((name) => path.join(dir, name))) read = loadFile(file) || read
  return read
}

/** OpenCode's system-wide managed config folder for this platform, with wright's beside it. */
function managedConfigDirs(env: NodeJS.ProcessEnv): [string, string] {
  if (process.platform === "darwin") return ["/Library/Application Support/wright", "/Library/Application Support/opencode"]
  if (process.platform === "win32") {
    const base = env.ProgramData || "C:\\ProgramData"
    return [path.join(base, "wright"), path.join(base, "opencode")]
  }
  return ["/etc/wright", "/etc/opencode"]
}

/** The wright variable when set, else OpenCode's. Returns the name that was used, for errors. */
function pick(env: NodeJS.ProcessEnv, wright: string, opencode: string): [string, string | undefined] {
  if (env[wright]) return [wright, env[wright]]
  return [opencode, env[opencode] || undefined]
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && ["1", "true"].includes(value.trim().toLowerCase())
}

function userPath(value: string, directory: string, home: string): string {
  const expanded = value === "~" || value.startsWith("~/") ? path.join(home, value.slice(1)) : value
  return path.resolve(directory, expanded)
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw new ConfigError(file, [{ path: "", message: `cannot be read: ${(error as Error).message}` }], { cause: error })
  }
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false
}
