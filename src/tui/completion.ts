// Completion at the prompt: the `/command` or `@mention` being typed at the cursor, the
// suggestions for it (the TUI's own commands, then the server's; agents, then files the server
// found), and the keys of the open list. Its own module because it is the one part of the
// prompt with state of its own (the list's selection, the server's file answers); the keys are
// a pure function, as dialog-keys.ts does for the dialogs.
import { useEffect, useMemo } from "react"
import type { Ui } from "./app-state"
import { findCommand, matchCommands } from "./commands"
import * as E from "./editor"
import type { Key } from "./keys"
import type { StoreState } from "./store"
import type { Suggestion } from "./view/prompt"

export interface CompletionTarget {
  kind: "command" | "mention"
  word: string
  /** Where the completed word starts (its `/` or `@`). */
  start: number
}

/** What the prompt completes now; `suggestions` is empty when nothing matches or esc closed the list. */
export interface Completion {
  target?: CompletionTarget
  suggestions: Suggestion[]
}

/** The `@word` or `/command` being typed at the cursor. */
export function completing(editor: E.EditorState): CompletionTarget | undefined {
  const before = editor.text.slice(0, editor.cursor)
  if (/^\/\S*$/.test(before) && editor.cursor === editor.text.length) return { kind: "command", word: before.slice(1), start: 0 }
  const m = /(^|\s)@(\S*)$/.exec(before)
  if (m) return { kind: "mention", word: m[2]!, start: before.length - m[2]!.length - 1 }
  return undefined
}

export function suggestionsFor(target: CompletionTarget, state: Pick<StoreState, "commands" | "mentions">, files: Ui["files"]): Suggestion[] {
  if (target.kind === "command") {
    const own = matchCommands(target.word).map((c) => ({ label: `/${c.name}`, detail: c.description, insert: `/${c.name} ` }))
    const server = state.commands
      .filter((c) => c.name.startsWith(target.word) && !findCommand(c.name))
      .map((c) => ({ label: `/${c.name}`, detail: c.description?.slice(0, 70), insert: `/${c.name} ` }))
    return [...own, ...server].slice(0, 10)
  }
  const agents = state.mentions.filter((a) => a.startsWith(target.word)).map((a) => ({ label: `@${a}`, detail: "agent", insert: `@${a} ` }))
  const found = files.query === target.word ? files.items.map((f) => ({ label: `@${f}`, insert: `@${f} ` })) : []
  return [...agents, ...found].slice(0, 8)
}

/**
 * The completion for this render. File names come from the server (`completeFiles`), a little
 * after the typing pauses; `onFiles` keeps its answer.
 */
export function useCompletion(ui: Ui, state: Pick<StoreState, "commands" | "mentions">, completeFiles: (word: string) => Promise<string[]>, onFiles: (files: Ui["files"]) => void): Completion {
  const target = completing(ui.editor)
  const suggestions: Suggestion[] = useMemo(
    () => (!target || ui.sugDismissed ? [] : suggestionsFor(target, state, ui.files)),
    [target?.kind, target?.word, ui.sugDismissed, ui.files, state.mentions, state.commands],
  )
  useEffect(() => {
    if (target?.kind !== "mention" || !target.word) return
    const word = target.word
    const t = setTimeout(() => {
      completeFiles(word).then((items) => onFiles({ query: word, items: items.slice(0, 8) }))
    }, 80)
    return () => clearTimeout(t)
  }, [target?.kind, target?.word])
  return { target, suggestions }
}

export type CompletionAction =
  | { type: "none" }
  | { type: "ui"; ui: Pick<Partial<Ui>, "editor" | "sugSelected" | "sugDismissed"> }
  /** Enter on one of the TUI's own commands runs it at once. */
  | { type: "run"; name: string }

/** A key while the list is open: ↑↓ move, esc closes it, tab or enter takes the suggestion; other keys are the editor's ("none"). */
export function completionKey(ed: E.EditorState, selected: number, c: Completion, key: Key): CompletionAction {
  const { suggestions } = c
  if (!suggestions.length) return { type: "none" }
  const sel = Math.min(selected, suggestions.length - 1)
  if (key.name === "up") return { type: "ui", ui: { sugSelected: (sel + suggestions.length - 1) % suggestions.length } }
  if (key.name === "down") return { type: "ui", ui: { sugSelected: (sel + 1) % suggestions.length } }
  if (key.name === "escape") return { type: "ui", ui: { sugDismissed: true } }
  if (key.name === "tab" || key.name === "return") {
    const s = suggestions[sel]!
    const own = findCommand(s.label.slice(1))
    if (key.name === "return" && c.target?.kind === "command" && own) return { type: "run", name: own.name }
    const t = c.target!
    const text = ed.text.slice(0, t.start) + s.insert + ed.text.slice(ed.cursor)
    return { type: "ui", ui: { editor: { ...ed, text, cursor: t.start + s.insert.length }, sugSelected: 0 } }
  }
  return { type: "none" }
}
