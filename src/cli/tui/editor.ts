// The user's editor for the TUI's /editor, ctrl+x e… and /export: the text goes into a file in a
// private temp dir, $VISUAL (else $EDITOR) runs on it with the terminal (the spawner's tty
// mode: stdio inherited, in wright's process group so it may read the terminal), and what the
// user saved comes back. The TUI releases the terminal before calling this and takes it back after.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"

/** The editor command: $VISUAL, else $EDITOR, split on spaces (`code --wait`); undefined when neither is set. */
export function editorCommand(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const raw = (env.VISUAL || env.EDITOR || "").trim()
  return raw ? raw.split(/\s+/) : undefined
}

/**
 * Opens `text` in the user's editor as `name` and resolves with what was saved. Rejects with a
 * clear message when no editor is set, it cannot start, or it exits non-zero (the text is then
 * not used: an editor quit with `:cq` means "cancel").
 */
export async function editText(text: string, name: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const argv = editorCommand(env)
  if (!argv) throw new Error("no editor: set $VISUAL or $EDITOR (e.g. export EDITOR=vim)")
  const dir = mkdtempSync(path.join(tmpdir(), "wright-edit-"))
  const file = path.join(dir, path.basename(name))
  try {
    writeFileSync(file, text, { mode: 0o600 })
    // Loaded on first use: the TUI's startup never pays for the spawner.
    const { createExec } = await import("../../process")
    const child = await createExec({ env })([...argv, file], { cwd, tty: true }).catch((e: NodeJS.ErrnoException) => {
      throw new Error(`could not start the editor ${argv[0]}: ${e.code === "ENOENT" ? "not found" : e.message}`)
    })
    const exit = await child.done
    if (exit.code !== 0) throw new Error(`the editor ${argv[0]} exited with ${exit.signal ?? `code ${exit.code}`}; nothing was taken from it`)
    return readFileSync(file, "utf8")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
