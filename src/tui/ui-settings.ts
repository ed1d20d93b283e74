// The TUI's own settings from tui.json, ready to use: the keymap, and the theme behind a small
// store so `/themes` can preview one (the whole live region redraws in it) and keep it.
import { createKeymap, type Keymap } from "./keymap"
import { BUILTIN_THEMES, DEFAULT_THEME, listThemes, loadTheme, type Theme } from "./theme"
import { loadTuiConfig, saveTheme, type TuiConfigPaths } from "./tui-config"

export interface ThemeControl {
  get(): Theme
  subscribe(fn: () => void): () => void
  /** Every theme's name: built-ins, then custom files. */
  list(): string[]
  /** Shows `name` until `revert` or `choose`; an unreadable theme is an Error. */
  preview(name: string): void
  revert(): void
  /** Keeps `name` and saves it to tui.json; returns the file it was saved to. */
  choose(name: string): string
}

export interface UiSettings {
  keymap: Keymap
  themes: ThemeControl
  /** Lines for the user: a bad file, key or theme, naming the file and key. */
  problems: string[]
}

export function loadUiSettings(paths: TuiConfigPaths): UiSettings {
  const config = loadTuiConfig(paths)
  const keymap = createKeymap(config.keybinds, config.from, config.leaderTimeout)
  const problems = [...config.problems, ...keymap.problems]
  let theme = BUILTIN_THEMES[DEFAULT_THEME]!
  if (config.theme) {
    try {
      theme = loadTheme(config.theme, paths.themeDirs)
    } catch (e) {
      problems.push(`${config.from.theme}: theme: ${(e as Error).message}; using "${DEFAULT_THEME}"`)
    }
  }
  return { keymap, themes: createThemeControl(theme, paths), problems }
}

export function createThemeControl(initial: Theme, paths: Pick<TuiConfigPaths, "themeDirs" | "writeTo">): ThemeControl {
  let kept = initial
  let shown = initial
  const listeners = new Set<() => void>()
  const show = (t: Theme) => {
    if (t === shown) return
    shown = t
    for (const fn of listeners) fn()
  }
  return {
    get: () => shown,
    subscribe(fn) {
      listeners.add(fn)
      return () => void listeners.delete(fn)
    },
    list: () => listThemes(paths.themeDirs),
    preview: (name) => show(loadTheme(name, paths.themeDirs)),
    revert: () => show(kept),
    choose(name) {
      const t = loadTheme(name, paths.themeDirs)
      kept = t
      show(t)
      saveTheme(paths.writeTo, name)
      return paths.writeTo
    },
  }
}
