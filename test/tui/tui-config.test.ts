// tui.json: the loader (OpenCode's shape, wright's file over OpenCode's), theme files, and the
// keymap's parsing and matching, as pure functions over real files in a temp HOME.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { decodeKeys } from "../../src/tui/keys"
import { createKeymap, keyForCommand, matchKey, parseBinding } from "../../src/tui/keymap"
import { paletteItems } from "../../src/tui/palette"
import { COMMANDS } from "../../src/tui/commands"
import { BUILTIN_THEMES, loadTheme, parseTheme, terminalMode, themed } from "../../src/tui/theme"
import { loadTuiConfig, saveTheme, tuiConfigPaths } from "../../src/tui/tui-config"
import { loadUiSettings } from "../../src/tui/ui-settings"
import { tempDir } from "../lib/tool-context"

function home() {
  const dir = tempDir("wright-tuijson-")
  const paths = tuiConfigPaths({ XDG_CONFIG_HOME: path.join(dir, "config") }, dir)
  const put = (file: string, content: unknown) => {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content))
  }
  return { dir, paths, put, opencode: paths.files[0]!, wright: paths.files[1]! }
}
const key = (raw: string) => decodeKeys(raw)[0]!

test("tui.json - wright's file wins over OpenCode's key by key; both are read", () => {
  const h = home()
  h.put(h.opencode, { $schema: "https://opencode.ai/tui.json", theme: "light", keybinds: { command_list: "ctrl+k", session_new: "<leader>n" } })
  h.put(h.wright, { theme: "dark", keybinds: { session_new: "none" } })
  const c = loadTuiConfig(h.paths)
  expect(c.problems).toEqual([])
  expect(c.theme).toBe("dark")
  expect(c.keybinds).toEqual({ command_list: "ctrl+k", session_new: "none" })
})

test("tui.json - a broken file, a bad key and a bad value are named, not fatal", () => {
  const h = home()
  h.put(h.opencode, "{ theme: ")
  h.put(h.wright, { theme: 3, colours: {}, keybinds: { command_list: "ctrl+", nosuch_action: "ctrl+y", session_list: 5 } })
  const s = loadUiSettings(h.paths)
  expect(s.problems).toEqual([
    expect.stringMatching(new RegExp(`^${h.opencode}: not valid JSON`)),
    `${h.wright}: unknown key "colours" (ignored)`,
    `${h.wright}: theme: expected a theme name (a string)`,
    expect.stringContaining(`${h.wright}: keybinds.session_list: expected a key`),
    expect.stringContaining(`${h.wright}: keybinds.command_list: "ctrl+" has no key`),
    expect.stringContaining(`${h.wright}: keybinds.nosuch_action: no such action`),
  ])
  // The defaults stay: the palette is still on the leader.
  expect(matchKey(s.keymap, key("p"), true)).toMatchObject({ type: "action", id: "command_list" })
  expect(s.themes.get().name).toBe("system")
})

test("keymap - bindings parse to canonical chords; none and false unbind", () => {
  expect(parseBinding("ctrl+K, <leader>p")).toEqual([{ leader: false, key: "ctrl+k" }, { leader: true, key: "p" }])
  expect(parseBinding("alt+Enter")).toEqual([{ leader: false, key: "alt+return" }])
  expect(parseBinding("<leader>up")).toEqual([{ leader: true, key: "up" }])
  expect(parseBinding("none")).toEqual([])
  expect(parseBinding(false)).toEqual([])
  expect(() => parseBinding("hyper+x")).toThrow(/"hyper" in "hyper\+x" is not a modifier/)
})

test("keymap - the leader then a key runs its action; the same key alone is typed; a user key opens the palette", () => {
  const map = createKeymap({ command_list: "ctrl+k,<leader>p", "/diff": "<leader>d" })
  expect(matchKey(map, key("\x18"), false)).toEqual({ type: "leader" })
  expect(matchKey(map, key("p"), true)).toMatchObject({ type: "action", id: "command_list" })
  expect(matchKey(map, key("p"), false)).toEqual({ type: "none" })
  expect(matchKey(map, key("\x0b"), false)).toMatchObject({ type: "action", id: "command_list" })
  expect(matchKey(map, key("d"), true)).toEqual({ type: "action", id: "/diff", command: "diff" })
  expect(matchKey(map, key("n"), true)).toEqual({ type: "action", id: "session_new", command: "new" })
  expect(matchKey(map, key("\x1b[A"), true)).toMatchObject({ type: "action", command: "parent" })
  // After the leader a key that means nothing is swallowed, not typed.
  expect(matchKey(map, key("z"), true)).toEqual({ type: "swallow" })
  expect(keyForCommand(map, "diff")).toBe("ctrl+x d")
})

test("palette - every command is listed with its key", () => {
  const map = createKeymap({ command_list: "ctrl+k", "/diff": "alt+d" })
  const items = paletteItems(map, COMMANDS, [{ name: "review", description: "review the changes" }])
  expect(items.map((i) => i.value)).toEqual([...COMMANDS.map((c) => c.name), "review"])
  expect(items.find((i) => i.value === "new")!.detail).toMatch(/^ctrl\+x n  start a new session/)
  expect(items.find((i) => i.value === "diff")!.detail).toMatch(/^alt\+d  /)
  expect(items.find((i) => i.value === "details")!.detail).toMatch(/^ctrl\+o  /)
  expect(items.find((i) => i.value === "review")!.detail).toBe("review the changes")
})

test("theme - a custom theme in OpenCode's shape resolves defs and dark/light; a bad colour names file and key", () => {
  const h = home()
  const file = path.join(h.paths.themeDirs[1]!, "mine.json")
  h.put(file, { defs: { red1: "#ff0000" }, theme: { primary: "red1", error: { dark: "#aa0000", light: "#cc0000" }, background: "#000000", secondary: "#00ff00" } })
  const t = loadTheme("mine", h.paths.themeDirs, "dark")
  expect(t).toMatchObject({ name: "mine", primary: "#ff0000", error: "#aa0000", info: "#00ff00", success: "green" })
  // A light terminal (COLORFGBG's background 15) gets the light half.
  expect(loadTheme("mine", h.paths.themeDirs, terminalMode({ COLORFGBG: "0;15" })).error).toBe("#cc0000")
  expect(terminalMode({})).toBe("dark")
  expect(() => parseTheme("x", JSON.stringify({ theme: { primary: "nope" } }), "/t/x.json")).toThrow('/t/x.json: theme.primary: "nope" is not a colour')
  expect(() => loadTheme("missing", h.paths.themeDirs)).toThrow(/theme "missing" not found/)
  // Markdown's headings ("cyan" in markdown.ts) follow the theme's primary.
  expect(themed(BUILTIN_THEMES.light!, "cyan")).toBe(BUILTIN_THEMES.light!.primary)
  expect(themed(BUILTIN_THEMES.system!, "cyan")).toBe("cyan")
})

test("/themes - choosing saves the theme into wright's tui.json and keeps its other settings; a broken file is not overwritten", () => {
  const h = home()
  h.put(h.wright, { keybinds: { command_list: "ctrl+k" } })
  const s = loadUiSettings(h.paths)
  s.themes.preview("light")
  expect(s.themes.get().name).toBe("light")
  s.themes.revert()
  expect(s.themes.get().name).toBe("system")
  expect(s.themes.choose("high-contrast")).toBe(h.wright)
  expect(JSON.parse(readFileSync(h.wright, "utf8"))).toEqual({ keybinds: { command_list: "ctrl+k" }, theme: "high-contrast" })
  h.put(h.wright, "{ broken")
  expect(() => saveTheme(h.wright, "dark")).toThrow(`${h.wright}: not valid JSON`)
  expect(readFileSync(h.wright, "utf8")).toBe("{ broken")
})
