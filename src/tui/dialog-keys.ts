// Keys inside the dialogs, as pure functions from (ui state, key) to the next state plus what
// to do, so the rules are plain to test and the App only dispatches.
import type { PermissionReply, QuestionRequest } from "../protocol"
import type { Key } from "./keys"
import type { QuestionUi, SelectItem } from "./view/dialogs"

export interface SelectUi {
  kind: "sessions" | "models" | "agents" | "connect" | "variants" | "children" | "fork" | "timeline" | "mcps" | "palette" | "themes"
  title: string
  items: SelectItem[]
  filter: string
  selected: number
}

export const filtered = (s: SelectUi) => {
  const f = s.filter.toLowerCase()
  return f ? s.items.filter((i) => i.label.toLowerCase().includes(f) || i.value.toLowerCase().includes(f)) : s.items
}

export type SelectAction = { type: "none" } | { type: "close" } | { type: "choose"; value: string } | { type: "delete"; value: string } | { type: "favorite"; value: string }

export function selectKey(s: SelectUi, key: Key): [SelectUi, SelectAction] {
  const items = filtered(s)
  const none = { type: "none" } as const
  switch (key.name) {
    case "up":
      return [{ ...s, selected: Math.max(0, s.selected - 1) }, none]
    case "down":
    case "tab":
      return [{ ...s, selected: Math.min(items.length - 1, s.selected + 1) }, none]
    case "pageup":
      return [{ ...s, selected: Math.max(0, s.selected - 10) }, none]
    case "pagedown":
      return [{ ...s, selected: Math.min(items.length - 1, s.selected + 10) }, none]
    case "escape":
      return [s, { type: "close" }]
    case "return": {
      const item = items[s.selected]
      return [s, item ? { type: "choose", value: item.value } : none]
    }
    case "delete": {
      const item = items[s.selected]
      return [s, item && s.kind === "sessions" ? { type: "delete", value: item.value } : none]
    }
    case "backspace":
      return [{ ...s, filter: s.filter.slice(0, -1), selected: 0 }, none]
    case "ctrl": {
      // ctrl+f stars a model in the /models picker.
      const item = items[s.selected]
      return [s, item && s.kind === "models" && key.text === "f" ? { type: "favorite", value: item.value } : none]
    }
    case "text":
      return [{ ...s, filter: s.filter + key.text, selected: 0 }, none]
    default:
      return [s, none]
  }
}

export interface PermissionUi {
  selected: number
  message?: string
}

export type PermissionAction = { type: "none" } | { type: "reply"; reply: PermissionReply; message?: string }

const REPLIES: PermissionReply[] = ["once", "always", "reject"]

export function permissionKey(u: PermissionUi, key: Key): [PermissionUi, PermissionAction] {
  const none = { type: "none" } as const
  if (u.message !== undefined) {
    if (key.name === "text") return [{ ...u, message: u.message + key.text }, none]
    if (key.name === "backspace") return [{ ...u, message: u.message.slice(0, -1) }, none]
    if (key.name === "escape") return [{ ...u, message: undefined }, none]
    if (key.name === "return") return [{ selected: 0 }, { type: "reply", reply: "reject", message: u.message.trim() || undefined }]
    return [u, none]
  }
  const choose = (i: number): [PermissionUi, PermissionAction] =>
    i === 3 ? [{ ...u, selected: 3, message: "" }, none] : [{ selected: 0 }, { type: "reply", reply: REPLIES[i]! }]
  switch (key.name) {
    case "left":
    case "up":
    case "backtab":
      return [{ ...u, selected: (u.selected + 3) % 4 }, none]
    case "right":
    case "down":
    case "tab":
      return [{ ...u, selected: (u.selected + 1) % 4 }, none]
    case "return":
      return choose(u.selected)
    case "escape":
      return choose(2)
    case "text": {
      const t = key.text.toLowerCase()
      if (/^[1-4]$/.test(t)) return choose(Number(t) - 1)
      if (t === "y") return choose(0)
      if (t === "a") return choose(1)
      if (t === "n") return choose(2)
      return [u, none]
    }
    default:
      return [u, none]
  }
}

export interface TrustUi {
  /** 0 trusts, 1 keeps the config held back (the default: an Enter meant for the prompt must not trust a cloned repository). */
  selected: number
}

export type TrustAction = { type: "none" } | { type: "trust" } | { type: "keep" }

export function trustKey(u: TrustUi, key: Key): [TrustUi, TrustAction] {
  const none = { type: "none" } as const
  const choose = (i: number): [TrustUi, TrustAction] => [{ selected: 1 }, i === 0 ? { type: "trust" } : { type: "keep" }]
  switch (key.name) {
    case "left":
    case "right":
    case "up":
    case "down":
    case "tab":
    case "backtab":
      return [{ selected: 1 - u.selected }, none]
    case "return":
      return choose(u.selected)
    case "escape":
      return choose(1)
    case "text": {
      const t = key.text.toLowerCase()
      if (t === "1" || t === "y" || t === "t") return choose(0)
      if (t === "2" || t === "n" || t === "k") return choose(1)
      return [u, none]
    }
    default:
      return [u, none]
  }
}

export const emptyQuestion = (): QuestionUi => ({ step: 0, selected: 0, picks: [], answers: [] })

export type QuestionAction = { type: "none" } | { type: "reply"; answers: string[][] } | { type: "reject" }

export function questionKey(req: QuestionRequest, u: QuestionUi, key: Key): [QuestionUi, QuestionAction] {
  const none = { type: "none" } as const
  const q = req.questions[u.step]
  if (!q) return [emptyQuestion(), { type: "reject" }]
  const customIndex = q.custom !== false ? q.options.length : -1
  const count = q.options.length + (customIndex >= 0 ? 1 : 0)
  const answer = (a: string[]): [QuestionUi, QuestionAction] => {
    const answers = [...u.answers, a]
    if (answers.length >= req.questions.length) return [emptyQuestion(), { type: "reply", answers }]
    return [{ step: u.step + 1, selected: 0, picks: [], answers }, none]
  }
  if (u.custom !== undefined) {
    if (key.name === "text") return [{ ...u, custom: u.custom + key.text }, none]
    if (key.name === "backspace") return [{ ...u, custom: u.custom.slice(0, -1) }, none]
    if (key.name === "escape") return [{ ...u, custom: undefined }, none]
    if (key.name === "return" && u.custom.trim()) return answer([...u.picks.map((i) => q.options[i]!.label), u.custom.trim()])
    return [u, none]
  }
  const pick = (i: number): [QuestionUi, QuestionAction] => {
    if (i === customIndex) return [{ ...u, selected: i, custom: "" }, none]
    if (q.multiple) return [{ ...u, selected: i, picks: u.picks.includes(i) ? u.picks.filter((p) => p !== i) : [...u.picks, i] }, none]
    return answer([q.options[i]!.label])
  }
  switch (key.name) {
    case "up":
      return [{ ...u, selected: (u.selected + count - 1) % count }, none]
    case "down":
    case "tab":
      return [{ ...u, selected: (u.selected + 1) % count }, none]
    case "escape":
      return [emptyQuestion(), { type: "reject" }]
    case "return":
      if (u.selected === customIndex) return pick(u.selected)
      if (q.multiple) return answer((u.picks.length ? u.picks : [u.selected]).map((i) => q.options[i]!.label))
      return pick(u.selected)
    case "text": {
      if (key.text === " " && q.multiple && u.selected !== customIndex) return pick(u.selected)
      const n = Number(key.text)
      if (Number.isInteger(n) && n >= 1 && n <= count) return pick(n - 1)
      return [u, none]
    }
    default:
      return [u, none]
  }
}

/** The /connect key prompt: what is typed is kept here only, never drawn, never in the prompt or its history. */
export interface SecretUi {
  providerID: string
  text: string
}

export type SecretAction = { type: "none" } | { type: "cancel" } | { type: "submit"; key: string }

export function secretKey(u: SecretUi, key: Key): [SecretUi, SecretAction] {
  const none = { type: "none" } as const
  switch (key.name) {
    case "text":
      return [{ ...u, text: u.text + key.text }, none]
    case "backspace":
      return [{ ...u, text: key.meta ? "" : [...u.text].slice(0, -1).join("") }, none]
    case "escape":
      return [{ ...u, text: "" }, { type: "cancel" }]
    case "return": {
      const typed = u.text.trim()
      return typed ? [{ ...u, text: "" }, { type: "submit", key: typed }] : [u, none]
    }
    case "ctrl":
      return key.text === "u" || key.text === "w" ? [{ ...u, text: "" }, none] : [u, none]
    default:
      return [u, none]
  }
}
