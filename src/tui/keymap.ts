// Keybindings from tui.json (OpenCode's names and syntax): "ctrl+k", "alt+enter", comma-separated
// alternatives ("ctrl+k,<leader>p"), "<leader>p" for the leader key (default ctrl+x) then p,
// "none" or false to unbind. An action is an OpenCode id (command_list, session_new, …) or any
// slash command written as "/name", so every command can have a key. The rules are pure: the App
// feeds each key and gets back what to do.
import type { Key } from "./keys"

export interface Action {
  id: string
  /** The slash command it runs; none for command_list (the palette) and leader. */
  command?: string
  default: string
}

/** OpenCode's action ids wright has, with OpenCode's defaults where the key is free here. */
export const ACTIONS: Action[] = [
  { id: "leader", default: "ctrl+x" },
  // OpenCode's default is ctrl+p, which is prompt history here.
  { id: "command_list", default: "<leader>p" },
  { id: "app_exit", command: "exit", default: "<leader>q" },
  { id: "app_help", command: "help", default: "none" },
  { id: "session_new", command: "new", default: "<leader>n" },
  { id: "session_list", command: "sessions", default: "<leader>l" },
  { id: "session_export", command: "export", default: "<leader>x" },
  { id: "session_compact", command: "compact", default: "<leader>c" },
  { id: "session_parent", command: "parent", default: "<leader>up" },
  { id: "session_child_first", command: "children", default: "<leader>down" },
  { id: "messages_undo", command: "undo", default: "<leader>u" },
  { id: "messages_redo", command: "redo", default: "<leader>r" },
  { id: "model_list", command: "models", default: "<leader>m" },
  { id: "agent_list", command: "agents", default: "<leader>a" },
  { id: "theme_list", command: "themes", default: "<leader>t" },
  { id: "status_view", command: "status", default: "<leader>s" },
  { id: "display_thinking", command: "thinking", default: "none" },
  { id: "tool_details", command: "details", default: "none" },
  // The session tools (/editor, /timeline, /copy, /rename, /fork) of the same issue: a binding to
  // a command this build lacks does nothing, and the palette lists only commands that exist.
  { id: "editor_open", command: "editor", default: "<leader>e" },
  { id: "session_timeline", command: "timeline", default: "<leader>g" },
  { id: "messages_copy", command: "copy", default: "<leader>y" },
  { id: "session_rename", command: "rename", default: "none" },
  { id: "session_fork", command: "fork", default: "none" },
]

/** One key press, written canonically ("ctrl+x", "alt+p", "up", "p"), optionally after the leader. */
export interface Chord {
  leader: boolean
  key: string
}

const NAMES: Record<string, string> = { enter: "return", esc: "escape", del: "delete", pgup: "pageup", pgdn: "pagedown", pageup: "pageup", pagedown: "pagedown", space: " " }
const MODS: Record<string, string> = { ctrl: "ctrl", control: "ctrl", alt: "alt", meta: "alt", option: "alt", shift: "shift" }

/** "ctrl+K" → "ctrl+k"; throws on a modifier without a key or an unknown modifier. */
function canonical(spec: string): string {
  const parts = spec.split("+").map((p) => p.trim())
  const last = parts.pop()
  // "ctrl++" means ctrl and the plus key.
  const keyName = last === "" && spec.endsWith("++") ? (parts.pop(), "+") : last
  if (!keyName) throw new Error(`"${spec}" has no key after its modifiers`)
  const mods = new Set<string>()
  for (const p of parts) {
    const m = MODS[p.toLowerCase()]
    if (!m) throw new Error(`"${p}" in "${spec}" is not a modifier (ctrl, alt, shift)`)
    mods.add(m)
  }
  let k = keyName.length === 1 ? keyName : keyName.toLowerCase()
  k = NAMES[k] ?? k
  if (k.length === 1 && k !== k.toLowerCase()) {
    // "K" is shift+k, but a terminal sends ctrl+K and ctrl+k alike: a case slip in "ctrl+K".
    if (!mods.has("ctrl")) mods.add("shift")
    k = k.toLowerCase()
  }
  return [...["ctrl", "alt", "shift"].filter((m) => mods.has(m)), k].join("+")
}

/** Parses one binding value into its alternatives; [] for "none" / false. Throws with the reason. */
export function parseBinding(value: string | false): Chord[] {
  if (value === false || value.trim() === "none" || value.trim() === "") return []
  return value.split(",").map((alt) => {
    const s = alt.trim()
    const m = /^<leader>\s*(.+)$/i.exec(s)
    return m ? { leader: true, key: canonical(m[1]!) } : { leader: false, key: canonical(s) }
  })
}

/** The canonical name of a decoded key, as `canonical` writes a binding. */
export function keyString(key: Key): string | undefined {
  const mods = (ctrl: boolean, alt: boolean, shift: boolean, k: string) => [ctrl && "ctrl", alt && "alt", shift && "shift", k].filter(Boolean).join("+")
  switch (key.name) {
    case "ctrl":
      return mods(true, !!key.meta, !!key.shift, key.text)
    case "text": {
      const chars = [...key.text]
      if (chars.length !== 1) return undefined
      const c = chars[0]!
      const upper = c !== c.toLowerCase()
      return mods(!!key.ctrl, !!key.meta, upper || !!key.shift, c.toLowerCase())
    }
    case "newline":
      // ctrl+j arrives as "\n": a newline with ctrl.
      return key.ctrl && !key.meta && !key.shift ? "ctrl+j" : mods(!!key.ctrl, !!key.meta, !!key.shift, "return")
    case "backtab":
      return mods(!!key.ctrl, !!key.meta, true, "tab")
    case "unknown":
    case "paste-start":
    case "paste-end":
      return undefined
    default:
      return mods(!!key.ctrl, !!key.meta, !!key.shift, key.name)
  }
}

export interface Keymap {
  leader: Chord[]
  /** Action id → its alternatives. */
  bindings: Map<string, Chord[]>
  leaderTimeout: number
  /** Bad keys in tui.json, one line each. */
  problems: string[]
}

/** Defaults overlaid with the user's keybinds. `from` names the file a keybind came from, for problem lines. */
export function createKeymap(user: Record<string, string | false> = {}, from: Record<string, string> = {}, leaderTimeout = 2000): Keymap {
  const problems: string[] = []
  const bindings = new Map<string, Chord[]>()
  for (const a of ACTIONS) bindings.set(a.id, parseBinding(a.default))
  for (const [id, value] of Object.entries(user)) {
    const source = from[`keybinds.${id}`] ?? "tui.json"
    if (!ACTIONS.some((a) => a.id === id) && !/^\/[\w.-]+$/.test(id)) {
      problems.push(`${source}: keybinds.${id}: no such action (OpenCode's ids like command_list, session_new, or a slash command like "/diff")`)
      continue
    }
    try {
      const chords = parseBinding(value)
      if (id === "leader" && chords.some((c) => c.leader)) throw new Error("the leader cannot use <leader>")
      bindings.set(id, chords)
    } catch (e) {
      problems.push(`${source}: keybinds.${id}: ${(e as Error).message}`)
    }
  }
  const leader = bindings.get("leader") ?? []
  bindings.delete("leader")
  return { leader, bindings, leaderTimeout, problems }
}

export type KeymapResult = { type: "none" } | { type: "leader" } | { type: "action"; id: string; command?: string } | { type: "swallow" }

/**
 * What a key does given whether the leader was just pressed. "swallow": a key after the leader
 * that means nothing (it is not typed either, as in OpenCode).
 */
export function matchKey(map: Keymap, key: Key, afterLeader: boolean): KeymapResult {
  const k = keyString(key)
  if (k === undefined) return afterLeader ? { type: "swallow" } : { type: "none" }
  if (!afterLeader && map.leader.some((c) => c.key === k)) return { type: "leader" }
  for (const [id, chords] of map.bindings) {
    if (chords.some((c) => c.leader === afterLeader && c.key === k)) return { type: "action", id, command: commandOf(id) }
  }
  return afterLeader ? { type: "swallow" } : { type: "none" }
}

export function commandOf(id: string): string | undefined {
  return id.startsWith("/") ? id.slice(1) : ACTIONS.find((a) => a.id === id)?.command
}

/** How a binding reads to the user: "ctrl+x p", "ctrl+k". */
export function describe(map: Keymap, id: string): string | undefined {
  const chords = map.bindings.get(id)
  if (!chords?.length) return undefined
  const leader = map.leader[0]?.key
  return chords.map((c) => (c.leader ? (leader ? `${leader} ${c.key}` : undefined) : c.key)).filter(Boolean).join(", ") || undefined
}

/** The key(s) that run slash command `name`, by its action or a "/name" binding. */
export function keyForCommand(map: Keymap, name: string): string | undefined {
  const ids = [`/${name}`, ...ACTIONS.filter((a) => a.command === name).map((a) => a.id)]
  const keys = ids.map((id) => describe(map, id)).filter(Boolean)
  return keys.length ? keys.join(", ") : undefined
}
