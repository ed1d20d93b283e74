import os from "node:os"
import path from "node:path"
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser"
import { ConfigError } from "./error"
import type { ConfigIssue } from "./issues"
import { mergeDeep } from "./merge"
import { permissionFromTools } from "./permission"
import { Config } from "./schema"
import { substitute, type SubstituteContext, type Token } from "./substitute"

export interface ParseContext {
  env: NodeJS.ProcessEnv
  home: string
  /** Directory for relative `{file:}` paths; defaults to the file's own directory. */
  dir?: string
  /** Which `{env:}`/`{file:}` tokens may resolve (see SubstituteContext.allow). */
  allow?: SubstituteContext["allow"]
}

export interface ParsedConfig {
  config: Config
  warnings: string[]
  /** The `{env:}`/`{file:}` tokens of the source, resolved or refused. */
  tokens?: Token[]
}

/** One config source: substitutions, JSONC, validation, legacy keys folded in. */
export function parseConfigSource(raw: string, label: string, ctx: ParseContext): ParsedConfig {
  // Editors on Windows may save a byte-order mark, which the JSON parser rejects.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  const dir = ctx.dir ?? path.dirname(label)
  const substituted = substitute(text, { label, dir, env: ctx.env, home: ctx.home, allow: ctx.allow })
  if (substituted.text.trim() === "") return { config: {}, warnings: [], tokens: substituted.tokens }

  const errors: ParseError[] = []
  const data: unknown = parse(substituted.text, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length > 0) {
    const issues = errors.slice(0, 10).map((error): ConfigIssue => {
      const offset = substituted.originalOffset(error.offset)
      return { path: lineColumn(text, offset), message: humanize(printParseErrorCode(error.error)) }
    })
    throw new ConfigError(label, issues)
  }
  return { ...validateConfig(data, label), tokens: substituted.tokens }
}

/** Validates an already-parsed value as a config. Unknown top-level keys become warnings. */
export function validateConfig(data: unknown, label: string): ParsedConfig {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    const received = data === null ? "null" : Array.isArray(data) ? "array" : typeof data
    throw new ConfigError(label, [{ path: "", message: `expected an object at the top level, received ${received}` }])
  }
  const warnings = Object.keys(data)
    .filter((key) => !Object.hasOwn(Config.shape, key))
    .map((key) => `${label}: unknown key "${key}" ignored`)
  // Without zod's compiled fast path: compiling it for the whole config schema took 13-15 ms
  // of every start, to check a few keys once per file.
  const result = Config.safeParse(data, { jitless: true })
  if (!result.success) throw ConfigError.fromZod(label, result.error, data)
  const config = foldLegacy(result.data)
  return { config, warnings: [...warnings, ...unsupported(config).map((w) => `${label}: ${w}`)] }
}

/**
 * OpenCode keys wright reads but does not act on: each is named in a warning rather than
 * silently accepted. A value that asks for what wright does anyway (`share: "disabled"`,
 * `autoupdate: false`) is no warning.
 */
function unsupported(config: Config): string[] {
  const out: string[] = []
  if (config.share !== undefined && config.share !== "disabled") out.push(`"share" ignored: sharing sessions is not supported`)
  if (config.autoupdate !== undefined && config.autoupdate !== false) out.push(`"autoupdate" ignored: wright does not update itself; update it with npm`)
  if (config.watcher?.ignore?.length) out.push(`"watcher.ignore" ignored: wright has no file watcher`)
  if (config.experimental?.policies?.length) out.push(`"experimental.policies" ignored: not supported; use "permission" rules`)
  return out
}

/** Public form: one file's text to a validated config (warnings dropped). */
export function parseConfigText(text: string, file: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): Config {
  return parseConfigSource(text, file, { env, home }).config
}

/**
 * Old OpenCode keys, folded into their replacements within the same file:
 * `mode.<name>` → `agent.<name>` with `mode: "primary"` (an `agent` entry wins),
 * `tools` → `permission` (explicit permission entries win), `autoshare` → `share: "auto"`.
 */
function foldLegacy(config: Config): Config {
  const { mode, tools, autoshare, ...out } = config
  if (mode) {
    const agent = { ...out.agent }
    for (const [name, entry] of Object.entries(mode)) {
      agent[name] = mergeDeep({ ...entry, mode: "primary" as const }, agent[name] ?? {})
    }
    out.agent = agent
  }
  if (tools) out.permission = { ...permissionFromTools(tools), ...out.permission }
  if (autoshare && out.share === undefined) out.share = "auto"
  return out
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  const column = offset - (before.lastIndexOf("\n") + 1) + 1
  return `${line}:${column}`
}

/** `PropertyNameExpected` → `property name expected`. */
function humanize(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
}
