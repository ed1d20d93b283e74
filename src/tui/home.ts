// The home screen's session list, used from the keyboard: ↑ from the empty prompt moves into
// it, typing searches, enter opens, ctrl+d (twice, or then y) deletes, esc or ↓ past the last
// row goes back to the prompt. Pure functions from (list state, key) to the next state and
// what to do, as dialog-keys.ts does for the dialogs.
import type { Key } from "./keys"

export interface HomeSession {
  id: string
  title: string
  time: { updated: number }
  /** A worktree session's branch, shown after its title. */
  worktree?: { branch: string }
}

export interface HomeUi {
  selected: number
  filter: string
  /** The id of the session a delete waits to be confirmed for. */
  confirm?: string
}

export type HomeAction = { type: "none" } | { type: "leave" } | { type: "open"; id: string } | { type: "delete"; id: string }

/** The sessions the list shows: all when nothing is typed, else those whose title or id holds the words typed. */
export function homeMatches<T extends HomeSession>(sessions: T[], filter: string): T[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  if (!words.length) return sessions
  return sessions.filter((s) => {
    const hay = `${s.title} ${s.id}`.toLowerCase()
    return words.every((w) => hay.includes(w))
  })
}

const isDeleteKey = (key: Key) => key.name === "delete" || (key.name === "ctrl" && key.text === "d")

/** `items` are the rows shown (already filtered); undefined as the next state means the prompt has the keys again. */
export function homeKey(u: HomeUi, items: HomeSession[], key: Key): [HomeUi | undefined, HomeAction] {
  const none = { type: "none" } as const
  const at = Math.min(u.selected, Math.max(0, items.length - 1))
  const item = items[at]
  if (u.confirm !== undefined) {
    const yes = isDeleteKey(key) || key.name === "return" || (key.name === "text" && /^y$/i.test(key.text))
    return yes ? [{ ...u, confirm: undefined }, { type: "delete", id: u.confirm }] : [{ ...u, confirm: undefined }, none]
  }
  if (isDeleteKey(key)) return [item ? { ...u, selected: at, confirm: item.id } : u, none]
  switch (key.name) {
    case "up":
      return [{ ...u, selected: Math.max(0, at - 1) }, none]
    case "down":
      // The list sits above the prompt: moving down past its last row goes back there.
      return at >= items.length - 1 ? [undefined, { type: "leave" }] : [{ ...u, selected: at + 1 }, none]
    case "pageup":
      return [{ ...u, selected: Math.max(0, at - 10) }, none]
    case "pagedown":
      return [{ ...u, selected: Math.min(Math.max(0, items.length - 1), at + 10) }, none]
    case "home":
      return [{ ...u, selected: 0 }, none]
    case "end":
      return [{ ...u, selected: Math.max(0, items.length - 1) }, none]
    case "escape":
    case "tab":
      return [undefined, { type: "leave" }]
    case "return":
      return [u, item ? { type: "open", id: item.id } : none]
    case "backspace":
      return [{ ...u, filter: key.meta ? "" : [...u.filter].slice(0, -1).join(""), selected: 0 }, none]
    case "text":
      // "/" starts a search as in less or vim; the list already searches as you type.
      if (u.filter === "" && key.text === "/") return [u, none]
      return [{ ...u, filter: u.filter + key.text, selected: 0 }, none]
    case "ctrl":
      if (key.text === "u" || key.text === "w") return [{ ...u, filter: "", selected: 0 }, none]
      if (key.text === "c") return [undefined, { type: "leave" }]
      return [u, none]
    default:
      return [u, none]
  }
}

/** The rows of `items` to draw, `rows` at most, keeping the selected one in view. */
export function homeWindow<T>(items: T[], selected: number, rows: number): { start: number; shown: T[] } {
  const n = Math.max(0, rows)
  const start = Math.max(0, Math.min(selected - Math.floor(n / 2), items.length - n))
  return { start, shown: items.slice(start, start + n) }
}
