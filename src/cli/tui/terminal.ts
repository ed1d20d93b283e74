// Pieces the TUI launchers share: prompt history on disk, the export writer, putting the
// terminal back after a crash, and the model flag.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { xdg } from "../../util"
import { UserError } from "../ui"

const HISTORY_MAX = 500

export function promptHistory(env: NodeJS.ProcessEnv = process.env) {
  const file = path.join(xdg(env).state, "prompt-history.jsonl")
  return {
    load(): string[] {
      try {
        return readFileSync(file, "utf8")
          .split("\n")
          .filter(Boolean)
          .slice(-HISTORY_MAX)
          .map((l) => JSON.parse(l) as { text: string })
          .map((e) => e.text)
      } catch {
        return []
      }
    },
    save(text: string) {
      try {
        mkdirSync(path.dirname(file), { recursive: true })
        appendFileSync(file, JSON.stringify({ text }) + "\n")
      } catch {
        // History is a convenience: a read-only home must not break the prompt.
      }
    },
  }
}

/** The /models picker's recents and favourites (`model-prefs.json` in the state dir); read when the picker first opens. */
export function modelPrefs(env: NodeJS.ProcessEnv = process.env) {
  const file = path.join(xdg(env).state, "model-prefs.json")
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [])
  return {
    load(): { recent: string[]; favorite: string[] } {
      try {
        const raw = JSON.parse(readFileSync(file, "utf8")) as { recent?: unknown; favorite?: unknown }
        return { recent: list(raw.recent), favorite: list(raw.favorite) }
      } catch {
        return { recent: [], favorite: [] }
      }
    },
    save(prefs: { recent: string[]; favorite: string[] }) {
      try {
        mkdirSync(path.dirname(file), { recursive: true })
        writeFileSync(file, JSON.stringify(prefs) + "\n")
      } catch {
        // A convenience, like the prompt history: a read-only home must not break the picker.
      }
    },
  }
}

/** Writes an exported session next to where wright was started, never over a file. */
export async function writeExport(name: string, content: string): Promise<string> {
  let file = path.resolve(process.cwd(), name)
  for (let i = 2; existsSync(file); i++) file = path.resolve(process.cwd(), name.replace(/\.md$/, `-${i}.md`))
  writeFileSync(file, content)
  return file
}

/** Raw mode off, bracketed paste off, cursor shown: what a crash must not leave behind. */
export function restoreTerminal() {
  try {
    if (process.stdin.isTTY) process.stdin.setRawMode(false)
  } catch {
    // stdin may already be closed
  }
  if (process.stdout.isTTY) process.stdout.write("\x1b[?2004l\x1b[?25h\n")
}

/** `--model`, read by protocol's one rule; protocol (schema code) is loaded only when the flag is given, so launch stays light. */
export async function parseModelFlag(s: string | undefined) {
  if (!s) return undefined
  const { parseModelRef } = await import("../../protocol")
  return parseModelRef(s, "--model")
}

/**
 * Keys typed while the UI loads wait, unechoed, for the prompt: in the terminal's line mode they
 * would be printed above the UI and their Enter would arrive as a newline, not a submit. Ink
 * turns raw mode off as it closes; Node puts the terminal's mode back when it exits.
 */
export function holdTypeAhead() {
  process.stdin.setRawMode(true)
}

export function requireTerminal() {
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new UserError('wright needs a terminal for the interactive UI; for one task without one use: wright run "…"')
}
