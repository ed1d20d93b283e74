import { existsSync } from "node:fs"
import os from "node:os"
import path from "node:path"

export interface XdgPaths {
  config: string
  data: string
  cache: string
  state: string
}

/** wright's own directories under the XDG base dirs (`~/.config/wright`, `~/.local/share/wright`, …). */
export function xdgPaths(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): XdgPaths {
  // The XDG spec says relative values are invalid and must be ignored.
  const base = (name: string, fallback: string) => {
    const value = env[name]
    return value && path.isAbsolute(value) ? value : path.join(home, fallback)
  }
  return {
    config: path.join(base("XDG_CONFIG_HOME", ".config"), "wright"),
    data: path.join(base("XDG_DATA_HOME", ".local/share"), "wright"),
    cache: path.join(base("XDG_CACHE_HOME", ".cache"), "wright"),
    state: path.join(base("XDG_STATE_HOME", ".local/state"), "wright"),
  }
}

/** The nearest directory at or above `directory` holding `.git` (a directory, or a file in a linked worktree). */
export function findGitRoot(directory: string): string | undefined {
  let current = path.resolve(directory)
  for (;;) {
    if (existsSync(path.join(current, ".git"))) return current
    const parent = path.dirname(current)
    if (parent === current) return undefined
    current = parent
  }
}

export function findWorktree(directory: string): string {
  return findGitRoot(directory) ?? path.resolve(directory)
}

/** `directory` and each parent up to and including `stop` (or the filesystem root), farthest first. */
export function levelsBetween(directory: string, stop: string | undefined): string[] {
  const levels: string[] = []
  let current = path.resolve(directory)
  for (;;) {
    levels.push(current)
    const parent = path.dirname(current)
    if (current === stop || parent === current) break
    current = parent
  }
  return levels.reverse()
}
