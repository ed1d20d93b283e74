// Giving the screen away and taking it back: the pager on the terminal's alternate screen (a
// large /diff, ctrl+o on a large tool output) and the user's editor with the whole terminal
// (/editor, ctrl+g, /export). While either has it, the printed blocks are frozen (`ui.frozen`),
// so blocks finished meanwhile reach the scrollback once the main screen is back, not the other
// screen. Separate from the keys because the order of these writes and timers is what keeps
// the main screen intact.
import { useEffect } from "react"
import type { MessageWithParts } from "../protocol"
import type { AppHost, Ui } from "./app-state"
import * as E from "./editor"
import { openPager } from "./pager"

/** Opens the pager on text taller than the screen leaves for output; false when it fits (printed as before). */
export function pageIfLarge(host: AppHost, title: string, text: string): boolean {
  const { stdout, size, store } = host
  const lines = text.split("\n").length
  if (lines <= Math.max(8, size.rows - 4)) return false
  // The pager draws on the alternate screen: leaving it puts the conversation back exactly as it
  // was. Through Ink, which erases its live region on the main screen first: the frame it drew
  // last may be older than the UI's state (a prompt not yet drawn cleared), and would stay there.
  if (stdout.isTTY && !host.ui().frozen) host.writeThroughInk("\x1b[?1049h\x1b[H\x1b[2J")
  host.setUi({ pager: openPager(title, text, size.columns), frozen: host.ui().frozen ?? store.getState().printed })
  return true
}

export function closePager(host: AppHost): void {
  host.setUi({ pager: undefined })
  // Ink draws the prompt again on the alternate screen first; then the main screen comes back
  // (through Ink, which draws that frame again where its live region was erased on the way in)
  // and the blocks printed meanwhile go to the scrollback.
  setTimeout(() => {
    if (host.ui().pager) return
    if (host.stdout.isTTY) host.writeThroughInk("\x1b[?1049l")
    host.setUi({ frozen: undefined })
  }, 80)
}

/** The last finished tool call's output, for ctrl+o. */
export function lastToolOutput(messages: MessageWithParts[]): { title: string; text: string } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const parts = messages[i]!.parts
    for (let j = parts.length - 1; j >= 0; j--) {
      const p = parts[j]!
      if (p.type !== "tool") continue
      if (p.state.status === "completed") return { title: `${p.tool}: ${p.state.title || ""}`.trim(), text: p.state.output }
      if (p.state.status === "error") return { title: `${p.tool}: error`, text: p.state.error }
    }
  }
  return undefined
}

/** /editor, ctrl+g: the prompt as typed goes to the user's editor; what they save is sent. */
export function openEditor(host: AppHost): void {
  const { store } = host
  if (!host.editText) return store.notify("/editor: not available here", "error")
  const u = host.ui()
  const text = E.expand(u.editor)
  // A file ends in a newline, as editors write it back.
  host.setUi({ editing: { kind: "prompt", text: text && !text.endsWith("\n") ? `${text}\n` : text, name: "prompt.md" }, frozen: u.frozen ?? store.getState().printed })
}

/**
 * Runs the user's editor on `ui.editing` when it is set; a saved prompt goes into the editor
 * and `submit` sends it. Also leaves the alternate screen if the App goes while the pager has it.
 */
export function useScreenHandoff(host: AppHost, editing: Ui["editing"], submit: () => void): void {
  const { stdout, store, controller, editText } = host
  useEffect(() => () => void (host.ui().frozen && stdout.isTTY && stdout.write("\x1b[?1049l")), [])
  // The raw input let go of the terminal in this commit (its effect cleanup ran first): the editor may have it.
  useEffect(() => {
    const job = editing
    if (!job || !editText) return
    // Blocks finished while the editor had the screen are printed once it is back, so they reach the scrollback.
    const done = () => host.setUi({ editing: undefined, ...(host.ui().pager ? {} : { frozen: undefined }) })
    editText(job.text, job.name).then(
      (saved) => {
        done()
        if (job.kind === "export") return
        const text = saved.replace(/\n+$/, "")
        if (!text.trim()) return void (host.setUi({ editor: E.emptyEditor() }), store.notify("The editor's text was empty: nothing sent"))
        host.setUi({ editor: E.setText(text) })
        submit()
      },
      (e) => {
        done()
        // No editor set: /export writes the file as before.
        if (job.kind === "export" && /no editor/.test(String(e))) return void controller.exportSession()
        store.notify(`Editor: ${e instanceof Error ? e.message : String(e)}`, "error")
      },
    )
  }, [editing])
}
