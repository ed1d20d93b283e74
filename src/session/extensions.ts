// Whether an App has plugins, custom tools or command hooks, and loading src/plugin when it
// does. The check reads a few directory listings and never imports src/plugin, so a project
// without any extension starts exactly as before.
import { readdirSync } from "node:fs"
import path from "node:path"
import type { Config } from "../config"
import type { Extensions, ExtensionDeps } from "../plugin"

/** True when the config lists plugins or hooks, or a config folder has plugin/tool files. */
export function hasExtensions(config: Config, dirs: string[]): boolean {
  if ((config.plugin?.length ?? 0) > 0) return true
  if (config.hooks && Object.values(config.hooks).some((groups) => groups.length > 0)) return true
  return dirs.some((dir) => ["plugin", "plugins", "tool", "tools"].some((sub) => hasCode(path.join(dir, sub))))
}

function hasCode(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => /\.(m?js|ts)$/.test(n))
  } catch {
    return false
  }
}

export async function loadExtensions(deps: ExtensionDeps): Promise<Extensions> {
  const { createExtensions } = await import("../plugin")
  return createExtensions(deps)
}
