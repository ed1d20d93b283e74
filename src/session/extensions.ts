// Whether an App has plugins, custom tools or command hooks, and loading src/plugin when it
// does. The check reads a few directory listings and never imports src/plugin, so a project
// without any extension starts exactly as before.
import { readdirSync } from "node:fs"
import path from "node:path"
import type { Config } from "../config"
import type { Extensions, ExtensionDeps } from "../plugin"

/** `--pure` (WRIGHT_PURE, or OpenCode's OPENCODE_PURE): no plugins, custom tools or command hooks at all. */
export function isPure(env: NodeJS.ProcessEnv): boolean {
  return [env.WRIGHT_PURE, env.OPENCODE_PURE].some((v) => v === "1" || v === "true")
}

/** True when the config lists plugins or hooks, or a config folder has plugin/tool files. */
export function hasExtensions(config: Config, dirs: string[]): boolean {
  if ((config.plugin?.length ?? 0) > 0) return true
  if (config.hooks && Object.values(config.hooks).some((groups) => groups.length > 0)) return true
  // One listing per config folder; a subfolder is listed only when it is there.
  return dirs.some((dir) => list(dir).some((sub) => SUBDIRS.has(sub) && list(path.join(dir, sub)).some((n) => /\.(m?js|ts)$/.test(n))))
}

const SUBDIRS = new Set(["plugin", "plugins", "tool", "tools"])

function list(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

export async function loadExtensions(deps: ExtensionDeps): Promise<Extensions> {
  const { createExtensions } = await import("../plugin")
  return createExtensions(deps)
}
