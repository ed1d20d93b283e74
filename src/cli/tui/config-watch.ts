// Watches the config the TUI's core reads (the global config dir, the project's wright.json /
// opencode.json at each level up to the git root, and the .wright/ and .opencode/ folders) and
// calls `onChange` with the files that changed, once per burst of writes. Directories are
// watched, not files: editors replace a file by renaming over it, which a file watch loses.
import { existsSync, readdirSync, statSync, watch, type FSWatcher } from "node:fs"
import path from "node:path"
import { findWorktree, xdgPaths } from "../../config"

const PROJECT_NAMES = new Set(["wright.json", "wright.jsonc", "opencode.json", "opencode.jsonc", ".wright", ".opencode"])
const CONFIG_DIRS = [".wright", ".opencode"]

export interface ConfigWatchOptions {
  directory: string
  env: NodeJS.ProcessEnv
  home: string
  onChange(files: string[]): void
  debounceMs?: number
}

/** Returns a function that stops watching. */
export function watchConfig(opts: ConfigWatchOptions): () => void {
  const wait = opts.debounceMs ?? 250
  let watchers: FSWatcher[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let seen = fingerprint(watched(opts))

  const fire = () => {
    timer = undefined
    if (stopped) return
    const next = fingerprint(watched(opts))
    const changed = [...new Set([...next.keys(), ...seen.keys()])].filter((f) => next.get(f) !== seen.get(f)).sort()
    seen = next
    // New folders (a .wright/ created) are watched from now on.
    arm()
    if (changed.length) opts.onChange(changed)
  }
  const poke = () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(fire, wait)
    timer.unref?.()
  }
  const arm = () => {
    for (const w of watchers) w.close()
    watchers = []
    for (const { dir, accept } of watched(opts)) {
      try {
        const w = watch(dir, { persistent: false }, (_event, name) => {
          if (!name || accept(name.toString())) poke()
        })
        w.on("error", () => {})
        watchers.push(w)
      } catch {
        // Gone meanwhile: the parent's watch sees it come back.
      }
    }
  }
  arm()
  return () => {
    stopped = true
    if (timer) clearTimeout(timer)
    for (const w of watchers) w.close()
  }
}

interface Watched {
  dir: string
  accept(name: string): boolean
}

/** The directories to watch, and which names in each are config. */
function watched(opts: Pick<ConfigWatchOptions, "directory" | "env" | "home">): Watched[] {
  const out: Watched[] = []
  const any = () => true
  const addTree = (dir: string) => {
    if (!isDir(dir)) return
    out.push({ dir, accept: any })
    // One level down: agent/, command/, plugin/, tool/, skill/ and their plural forms; not
    // plans/, which the plan agent writes as it works (no config: trust skips it too).
    for (const name of safeList(dir)) if (name !== "plans" && isDir(path.join(dir, name))) out.push({ dir: path.join(dir, name), accept: any })
  }
  const global = xdgPaths(opts.env, opts.home).config
  addTree(global)
  addTree(path.join(path.dirname(global), "opencode"))
  const directory = path.resolve(opts.directory)
  const root = findWorktree(directory)
  for (let level = directory; ; level = path.dirname(level)) {
    if (isDir(level)) out.push({ dir: level, accept: (name) => PROJECT_NAMES.has(name) })
    for (const d of CONFIG_DIRS) addTree(path.join(level, d))
    if (level === root || path.dirname(level) === level) break
  }
  return out
}

/** Each config file's size and mtime, by path. */
function fingerprint(list: Watched[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const { dir, accept } of list)
    for (const name of safeList(dir)) {
      if (!accept(name)) continue
      const file = path.join(dir, name)
      const st = statSync(file, { throwIfNoEntry: false })
      if (st?.isFile()) out.set(file, `${st.size}:${st.mtimeMs}`)
    }
  return out
}

const isDir = (p: string) => existsSync(p) && statSync(p, { throwIfNoEntry: false })?.isDirectory() === true
function safeList(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
