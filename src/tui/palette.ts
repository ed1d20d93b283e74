// The command palette's rows: every slash command (the TUI's own and the project's) with the
// key that runs it, so the palette also teaches the keys.
import type { SlashCommand } from "./commands"
import { describe, keyForCommand, type Keymap } from "./keymap"
import type { SelectItem } from "./view/dialogs"

/** Keys the prompt handles itself (not in the keymap) that also run a command. */
const FIXED_KEYS: Record<string, string> = { details: "ctrl+o", variants: "ctrl+t" }

export function paletteItems(keymap: Keymap | undefined, own: SlashCommand[], server: { name: string; description?: string }[]): SelectItem[] {
  const keyOf = (name: string) => [keymap && keyForCommand(keymap, name), FIXED_KEYS[name]].filter(Boolean).join(", ")
  const row = (name: string, description = "") => {
    const key = keyOf(name)
    return { label: `/${name}`, detail: `${key ? `${key}  ` : ""}${description.slice(0, 70)}`, value: name }
  }
  const names = new Set(own.map((c) => c.name))
  return [...own.map((c) => row(c.name, c.description)), ...server.filter((c) => !names.has(c.name)).map((c) => row(c.name, c.description))]
}

/** The palette's own key, for its title. */
export const paletteKey = (keymap: Keymap | undefined) => (keymap && describe(keymap, "command_list")) ?? ""
