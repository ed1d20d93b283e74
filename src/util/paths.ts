import { realpathSync } from "node:fs"
import os from "node:os"
import path from "node:path"

/** wright's XDG directories (`…/wright`), honouring XDG_* variables. */
export function xdg(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()) {
  const base = (name: string, fallback: string) => path.join(env[name] || path.join(home, fallback), "wright")
  return {
    config: base("XDG_CONFIG_HOME", ".config"),
    data: base("XDG_DATA_HOME", ".local/share"),
    cache: base("XDG_CACHE_HOME", ".cache"),
    state: base("XDG_STATE_HOME", ".local/state"),
  }
}

/** Expands a leading `~` or `$HOME`. */
export function expandHome(p: string, home: string = os.homedir()): string {
  if (p === "~" || p === "$HOME") return home
  if (p.startsWith("~/")) return path.join(home, p.slice(2))
  if (p.startsWith("$HOME/")) return path.join(home, p.slice(6))
  return p
}

/** Whether `p` is `dir` or inside it (both absolute, compared as written). */
export function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/** `p` with its links resolved; `p` itself (absolute) when it does not exist. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}
