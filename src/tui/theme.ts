// The TUI's colours. Views never name a colour: they ask the theme for a role (primary, error,
// diffAdded, …). Built-ins: "system" (the terminal's own 16-colour palette, the default, so a
// terminal theme the user already set carries over), "dark", "light" and "high-contrast".
// Custom themes are JSON files in OpenCode's shape — `{ "defs": {name: colour}, "theme": {role:
// colour | defName | {dark, light}} }` — in `~/.config/wright/themes/` (or OpenCode's folder);
// the file's name is the theme's name.
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { createContext, useContext } from "react"

export interface Theme {
  name: string
  /** Headings, the logo, dialog borders. */
  primary: string
  /** Secondary highlights: variant, worktree branch, plan agent, question dialogs. */
  accent: string
  /** The build agent, user messages. */
  info: string
  success: string
  warning: string
  error: string
  diffAdded: string
  diffRemoved: string
  diffHunk: string
}

export type ThemeRole = Exclude<keyof Theme, "name">
export const ROLES: ThemeRole[] = ["primary", "accent", "info", "success", "warning", "error", "diffAdded", "diffRemoved", "diffHunk"]

const role = (name: string, c: Omit<Theme, "name">): Theme => ({ name, ...c })

export const BUILTIN_THEMES: Record<string, Theme> = {
  system: role("system", { primary: "cyan", accent: "magenta", info: "blue", success: "green", warning: "yellow", error: "red", diffAdded: "green", diffRemoved: "red", diffHunk: "cyan" }),
  dark: role("dark", { primary: "#fab283", accent: "#9d7cd8", info: "#5c9cf5", success: "#7fd88f", warning: "#f5a742", error: "#e06c75", diffAdded: "#4fd6be", diffRemoved: "#c53b53", diffHunk: "#828bb8" }),
  light: role("light", { primary: "#3b7dd8", accent: "#7b5bb6", info: "#0550ae", success: "#1a7f37", warning: "#9a6700", error: "#cf222e", diffAdded: "#116329", diffRemoved: "#82071e", diffHunk: "#0550ae" }),
  "high-contrast": role("high-contrast", { primary: "#ffffff", accent: "#ffff00", info: "#00ffff", success: "#00ff00", warning: "#ffff00", error: "#ff0000", diffAdded: "#00ff00", diffRemoved: "#ff0000", diffHunk: "#00ffff" }),
}

export const DEFAULT_THEME = "system"

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i
const NAMED = new Set(["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white", "gray", "grey", "blackBright", "redBright", "greenBright", "yellowBright", "blueBright", "magentaBright", "cyanBright", "whiteBright"])
// OpenCode's role names that mean ours.
const ALIASES: Record<string, ThemeRole> = { secondary: "info", text: "info" }

/**
 * Reads a custom theme (OpenCode's shape). Roles it leaves out come from `system`; `mode`
 * picks the `dark` or `light` half of `{dark, light}` values. Throws an Error naming the file
 * and the key for anything it cannot use.
 */
export function parseTheme(name: string, text: string, file: string, mode: "dark" | "light" = "dark"): Theme {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`)
  }
  if (!isObject(json) || !isObject(json.theme)) throw new Error(`${file}: expected an object with a "theme" object of colours`)
  const defs = isObject(json.defs) ? json.defs : {}
  const resolve = (v: unknown, key: string, depth = 0): string => {
    if (isObject(v) && (typeof v.dark === "string" || typeof v.light === "string")) return resolve(v[mode] ?? v.dark ?? v.light, key, depth)
    if (typeof v !== "string") throw new Error(`${file}: theme.${key}: expected a colour ("#rrggbb", a colour name or a defs name)`)
    if (HEX.test(v) || NAMED.has(v)) return v
    if (depth < 4 && v in defs) return resolve(defs[v], key, depth + 1)
    throw new Error(`${file}: theme.${key}: "${v}" is not a colour ("#rrggbb", a colour name or a defs name)`)
  }
  const out: Theme = { ...BUILTIN_THEMES.system!, name }
  for (const [key, value] of Object.entries(json.theme)) {
    const r = (ROLES as string[]).includes(key) ? (key as ThemeRole) : ALIASES[key]
    // OpenCode themes carry roles wright does not draw (backgrounds, markdown, syntax): skipped.
    if (!r) continue
    out[r] = resolve(value, key)
  }
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Built-in names first, then the custom files found (later folders win on a name clash). */
export function listThemes(dirs: string[]): string[] {
  const names = new Set(Object.keys(BUILTIN_THEMES))
  for (const dir of dirs) {
    try {
      for (const f of readdirSync(dir)) if (f.endsWith(".json")) names.add(f.slice(0, -5))
    } catch {
      // a missing folder has no themes
    }
  }
  return [...names]
}

/**
 * Whether the terminal is light or dark, from COLORFGBG ("fg;bg", set by rxvt, Konsole, iTerm2…):
 * a custom theme's `{dark, light}` values pick the matching half. Unknown: dark.
 */
export function terminalMode(env: NodeJS.ProcessEnv = process.env): "dark" | "light" {
  const bg = Number(env.COLORFGBG?.split(";").pop())
  return bg === 7 || bg === 15 ? "light" : "dark"
}

/** The theme called `name`: a built-in, else `<dir>/<name>.json` from the last folder that has it. */
export function loadTheme(name: string, dirs: string[], mode = terminalMode()): Theme {
  const builtin = BUILTIN_THEMES[name]
  if (builtin) return builtin
  for (const dir of [...dirs].reverse()) {
    const file = path.join(dir, `${name}.json`)
    let text: string
    try {
      text = readFileSync(file, "utf8")
    } catch {
      continue
    }
    return parseTheme(name, text, file, mode)
  }
  throw new Error(`theme "${name}" not found: not built in (${Object.keys(BUILTIN_THEMES).join(", ")}) and no ${name}.json in ${dirs.join(" or ")}`)
}

// The 16-colour names pure code (markdown.ts) writes, as the theme's roles.
const BY_NAME: Record<string, ThemeRole> = { cyan: "primary", magenta: "accent", blue: "info", green: "success", yellow: "warning", red: "error" }

/** A colour named by code that knows no theme ("cyan" for a heading), in the theme's colours. */
export const themed = (t: Theme, color: string | undefined) => (color && BY_NAME[color] ? t[BY_NAME[color]!] : color)

export const ThemeContext = createContext<Theme>(BUILTIN_THEMES.system!)
export const useTheme = () => useContext(ThemeContext)
