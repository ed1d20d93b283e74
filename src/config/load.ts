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

export interface LoadOptions {
  /** The project directory wright runs in. */
  directory: string
  /** Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Defaults to `os.homedir()`. */
  home?: string
  /** Highest precedence, e.g. from CLI flags. Validated like a file. */
  overrides?: Partial<Config>
}

export interface LoadedConfig {
  config: Config
  /** Config files that were read, lowest precedence first. */
  files: string[]
  /** Existing config directories (for Markdown agents, commands, skills), lowest precedence first. */
  dirs: string[]
  /** Non-fatal problems, e.g. unknown top-level keys. */
  warnings: string[]
  /** The git root above `directory`, or `directory` itself outside git. */
  worktree: string
  /**
   * What the user said, without any layer from the project's folders: the global config,
   * WRIGHT_CONFIG, WRIGHT_CONFIG_CONTENT, overrides and env switches. Settings that must
   * never come from a cloned repository (allowed origins and directories) are read here.
   */
  userConfig: Config
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
  const out: LoadedConfig = { config: {}, files: [], dirs: [], warnings: [], worktree: gitRoot ?? directory, userConfig: {} }

  const apply = (parsed: ParsedConfig, fromProject = false) => {
    out.config = mergeConfig(out.config, parsed.config)
    if (!fromProject) out.userConfig = mergeConfig(out.userConfig, parsed.config)
    out.warnings.push(...parsed.warnings)
  }
  const loadFile = (file: string, fromProject = false): boolean => {
    const text = readIfExists(file)
    if (text === undefined) return false
    apply(parseConfigSource(text, file, { env, home }), fromProject)
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
    for (const level of levelsBetween(directory, gitRoot)) {
      addDir(path.join(level, ".opencode"))
      addDir(path.join(level, ".wright"))
      const wright = PROJECT_FILES.map((name) => path.join(level, name)).filter(isFile)
      const chosen = wright.length > 0 ? wright : OPENCODE_PROJECT_FILES.map((name) => path.join(level, name))
      for (const file of chosen) loadFile(file, true)
    }
  }

  const [contentVar, content] = pick(env, "WRIGHT_CONFIG_CONTENT", "OPENCODE_CONFIG_CONTENT")
  if (content) apply(parseConfigSource(content, contentVar, { env, home, dir: directory }))

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
