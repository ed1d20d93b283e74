// Whether the sandbox hides the filesystem outside the project: it does when the
// `external_directory` rule that applies to "*" (the last matching key, as in rule order) is
// deny. Directories that a later `external_directory` pattern allows stay readable.
import path from "node:path"
import type { PermissionConfig } from "../config"

export function readRestriction(configs: (PermissionConfig | undefined)[], home: string): { restrict: boolean; allowed: string[] } {
  let action: string | undefined
  const allowed: string[] = []
  for (const cfg of configs) {
    for (const [key, rule] of Object.entries(cfg ?? {})) {
      if (key !== "external_directory" && key !== "*") continue
      if (typeof rule === "string") {
        action = rule
        if (rule !== "allow") allowed.length = 0
        continue
      }
      for (const [pattern, a] of Object.entries(rule)) {
        if (pattern === "*") {
          action = a
          if (a !== "allow") allowed.length = 0
        } else if (key === "external_directory" && a === "allow") allowed.push(directoryOf(pattern, home))
      }
    }
  }
  return { restrict: action === "deny", allowed }
}

/** `/data/*`, `~/src/**` → the directory itself. */
function directoryOf(pattern: string, home: string): string {
  const base = pattern.replace(/\/\*+$/, "").replace(/\*.*$/, "")
  const expanded = base === "~" ? home : base.startsWith("~/") ? path.join(home, base.slice(2)) : base
  return path.resolve(expanded || "/")
}
