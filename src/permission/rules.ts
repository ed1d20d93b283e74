// Rulesets: evaluation (the last matching rule wins), the config form, the built-in
// defaults and which tools a ruleset hides from the model.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { PermissionAction, PermissionRule, Ruleset } from "../protocol"
import { Wildcard } from "../util"

/**
 * Permissions only a rule that names them can allow: `"sandbox_escape": "allow"` (any pattern)
 * does, while `"*": "allow"`, `"permission": "allow"` or `"sandbox_*": "allow"` are passed over
 * as if absent. A blanket ask or deny still counts. Front ends that approve asks wholesale
 * (`run --auto`) and plugins' permission.ask leave these to the user too.
 */
export const NAMED_ONLY: ReadonlySet<string> = new Set(["sandbox_escape"])

/** Whether `rule` may decide `permission`: an allow for a NAMED_ONLY permission must name it. */
export function counts(rule: PermissionRule, permission: string): boolean {
  return rule.action !== "allow" || rule.permission === permission || !NAMED_ONLY.has(permission)
}

export function evaluate(permission: string, pattern: string, ...rulesets: Ruleset[]): PermissionRule {
  return lastMatch(permission, pattern, ...rulesets) ?? { permission, pattern: "*", action: "ask" }
}

/** The rule that decides, or undefined when none matches. */
export function lastMatch(permission: string, pattern: string, ...rulesets: Ruleset[]): PermissionRule | undefined {
  for (let i = rulesets.length - 1; i >= 0; i--) {
    const rules = rulesets[i]
    for (let j = rules.length - 1; j >= 0; j--) {
      const rule = rules[j]
      if (Wildcard.match(permission, rule.permission) && Wildcard.match(pattern, rule.pattern) && counts(rule, permission)) return rule
    }
  }
  return undefined
}

export function merge(...rulesets: (Ruleset | undefined)[]): Ruleset {
  return rulesets.flatMap((rules) => rules ?? [])
}

const ACTIONS = ["allow", "ask", "deny"]

/**
 * The config form: an action string (for everything), or `{key: action | {pattern: action}}`.
 * Entries keep their object order. `field` names the config location in error messages.
 */
export function fromConfig(cfg: unknown, home: string = os.homedir(), field = "permission"): Ruleset {
  if (cfg === undefined || cfg === null) return []
  if (typeof cfg === "string") return [{ permission: "*", pattern: "*", action: action(cfg, field) }]
  if (!isObject(cfg)) {
    throw new Error(`${field}: expected "allow", "ask", "deny" or an object like {"bash": {"git push *": "ask"}}, got ${describe(cfg)}`)
  }
  const rules: Ruleset = []
  for (const [key, value] of Object.entries(cfg)) {
    const where = `${field}.${key}`
    if (typeof value === "string") {
      rules.push({ permission: key, pattern: "*", action: action(value, where) })
      continue
    }
    if (!isObject(value)) {
      throw new Error(`${where}: expected "allow", "ask", "deny" or an object of {pattern: action}, got ${describe(value)}`)
    }
    for (const [pattern, act] of Object.entries(value)) {
      rules.push({ permission: key, pattern: Wildcard.expandHome(pattern, home), action: action(act, `${where}[${JSON.stringify(pattern)}]`) })
    }
  }
  return rules
}

function action(value: unknown, where: string): PermissionAction {
  if (typeof value === "string" && ACTIONS.includes(value)) return value as PermissionAction
  throw new Error(`${where}: expected "allow", "ask" or "deny", got ${describe(value)}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array"
  return JSON.stringify(value) ?? String(value)
}

/**
 * Everything allowed except loops of identical tool calls, paths outside the project
 * (but the tool-output directory and any extra directories are fine), re-running a command
 * outside the OS sandbox, changes to git's own configuration and hooks (`vcs_config`) and
 * `.env` files.
 */
export function defaults(opts: { toolOutputDir: string; extraAllowedDirs?: string[] }): Ruleset {
  const dirs = [opts.toolOutputDir, ...(opts.extraAllowedDirs ?? [])].flatMap(withRealPath)
  return [
    { permission: "*", pattern: "*", action: "allow" },
    { permission: "doom_loop", pattern: "*", action: "ask" },
    { permission: "external_directory", pattern: "*", action: "ask" },
    // Running a command again outside the OS sandbox after the sandbox stopped it.
    { permission: "sandbox_escape", pattern: "*", action: "ask" },
    { permission: "vcs_config", pattern: "*", action: "ask" },
    ...[...new Set(dirs)].map((dir): PermissionRule => ({ permission: "external_directory", pattern: path.join(dir, "*"), action: "allow" })),
    { permission: "read", pattern: "*.env", action: "ask" },
    { permission: "read", pattern: "*.env.*", action: "ask" },
    { permission: "read", pattern: "*.env.example", action: "allow" },
  ]
}

// Paths are compared after symlinks are resolved, so an allowed dir is listed both ways.
function withRealPath(dir: string): string[] {
  const abs = path.resolve(dir)
  try {
    return [abs, fs.realpathSync.native(abs)]
  } catch {
    return [abs]
  }
}

const EDIT_TOOLS = new Set(["edit", "write", "apply_patch", "patch", "multiedit"])

/** Tools whose last rule (by permission key) denies pattern `*`: the model never sees them. */
export function disabledTools(toolIDs: string[], ruleset: Ruleset): Set<string> {
  const hidden = new Set<string>()
  for (const id of toolIDs) {
    const key = EDIT_TOOLS.has(id) ? "edit" : id
    const rule = ruleset.findLast((r) => Wildcard.match(key, r.permission))
    if (rule && rule.pattern === "*" && rule.action === "deny") hidden.add(id)
  }
  return hidden
}
