// `tui.json`: the user's theme and keys, global only (a project cannot rebind a user's keys).
// Read from OpenCode's `~/.config/opencode/tui.json`, then wright's `~/.config/wright/tui.json`
// (wright's wins key by key); in OpenCode's shape: `{ "theme": "dark", "keybinds": { "leader":
// "ctrl+x", "command_list": "<leader>p" }, "leader_timeout": 2000 }`. One small synchronous read
// at start, no schema library: the TUI's ready time must not grow. A bad file or key is
// reported (naming the file and the key) and skipped, never fatal.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { xdg } from "../util"

export interface TuiConfigPaths {
  /** Read in order; later files win. */
  files: string[]
  /** Where custom themes (`<name>.json`) are looked for; later folders win. */
  themeDirs: string[]
  /** Where `/themes` saves the choice. */
  writeTo: string
}

export interface TuiConfig {
  theme?: string
  keybinds: Record<string, string | false>
  /** The file each keybind and the theme came from, to name it in a problem. */
  from: Record<string, string>
  leaderTimeout?: number
  /** What was wrong, one line each, naming the file and key. */
  problems: string[]
}

export function tuiConfigPaths(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): TuiConfigPaths {
  const wright = xdg(env, home).config
  const opencode = path.join(path.dirname(wright), "opencode")
  return {
    files: [path.join(opencode, "tui.json"), path.join(wright, "tui.json")],
    themeDirs: [path.join(opencode, "themes"), path.join(wright, "themes")],
    writeTo: path.join(wright, "tui.json"),
  }
}

// Keys of OpenCode's tui.json that wright reads; others OpenCode has (scroll_speed, …) are let be.
const KNOWN = new Set(["$schema", "theme", "keybinds", "leader_timeout", "scroll_speed", "scroll_acceleration", "diff_style"])

export function loadTuiConfig(paths: Pick<TuiConfigPaths, "files">): TuiConfig {
  const out: TuiConfig = { keybinds: {}, from: {}, problems: [] }
  for (const file of paths.files) {
    let text: string
    try {
      text = readFileSync(file, "utf8")
    } catch {
      continue
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      out.problems.push(`${file}: not valid JSON (${(e as Error).message}); its settings are ignored`)
      continue
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      out.problems.push(`${file}: expected a JSON object; its settings are ignored`)
      continue
    }
    const j = json as Record<string, unknown>
    for (const k of Object.keys(j)) if (!KNOWN.has(k)) out.problems.push(`${file}: unknown key "${k}" (ignored)`)
    if (j.theme !== undefined) {
      if (typeof j.theme === "string" && j.theme) (out.theme = j.theme), (out.from.theme = file)
      else out.problems.push(`${file}: theme: expected a theme name (a string)`)
    }
    if (j.leader_timeout !== undefined) {
      if (typeof j.leader_timeout === "number" && j.leader_timeout > 0) out.leaderTimeout = j.leader_timeout
      else out.problems.push(`${file}: leader_timeout: expected a number of milliseconds`)
    }
    if (j.keybinds !== undefined) {
      if (typeof j.keybinds !== "object" || j.keybinds === null || Array.isArray(j.keybinds)) {
        out.problems.push(`${file}: keybinds: expected an object of action: "key" pairs`)
        continue
      }
      for (const [k, v] of Object.entries(j.keybinds)) {
        if (typeof v === "string" || v === false) (out.keybinds[k] = v), (out.from[`keybinds.${k}`] = file)
        else out.problems.push(`${file}: keybinds.${k}: expected a key like "ctrl+k" or "<leader>p", "none" or false`)
      }
    }
  }
  return out
}

/** Saves the theme into wright's tui.json, keeping what else the file holds. */
export function saveTheme(file: string, name: string): void {
  let json: Record<string, unknown> = {}
  let text: string | undefined
  try {
    text = readFileSync(file, "utf8")
  } catch {
    // no file yet: a new one
  }
  if (text !== undefined) {
    // A file we cannot read back is the user's to fix: never overwritten.
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Error(`${file}: not valid JSON, so the theme was not saved there`)
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: not a JSON object, so the theme was not saved there`)
    json = parsed as Record<string, unknown>
  }
  json.theme = name
  mkdirSync(path.dirname(file), { recursive: true })
  // Through a temporary file: a crash mid-write must not leave half a config.
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(json, null, 2) + "\n")
  renameSync(tmp, file)
}
