// The main screen's keys, once no dialog, pager or list has taken them (key-router.ts decides
// that): editing the prompt, its history, the completion list, sending (Enter steers while the
// agent works, ctrl+q queues), and the ctrl keys that act on the session. Separate from the
// routing so each reads as one thing: this file is what typing at the prompt does.
import type { AppHost } from "./app-state"
import { completionKey, type Completion } from "./completion"
import { findCommand } from "./commands"
import * as E from "./editor"
import type { Key } from "./keys"
import { mappedKey, runCommand } from "./run-command"
import { lastToolOutput, openEditor, pageIfLarge } from "./screen-handoff"

/** `delivery`: ctrl+q queues; Enter steers while the agent works (both wait in the session's inbox), and sends when idle. */
export function submit(host: AppHost, delivery?: "steer" | "queue") {
  const { store, controller, history, setUi } = host
  const u = host.ui()
  const raw = E.expand(u.editor)
  const text = raw.trim()
  if (!text) return
  // `/connect <provider> <key>`: a key typed on the prompt line stays out of the history, and is not stored.
  if (/^\/connect\s+\S+\s+\S/.test(text)) {
    setUi({ editor: E.emptyEditor(), histIndex: 0, draft: "", sugSelected: 0, sugDismissed: false })
    return store.notify("/connect takes the key in its own hidden field: run /connect <provider>, then paste it", "error")
  }
  const [name = "", ...rest] = text.startsWith("/") ? text.slice(1).split(/\s+/) : []
  const cmd = text.startsWith("/") ? findCommand(name) : undefined
  // Another process writes this session: only the TUI's own commands, the text stays typed.
  const elsewhere = store.getState().busyElsewhere
  // ctrl+q still leaves the message in the session's inbox: that process delivers it as a new turn.
  if (elsewhere && !cmd && delivery !== "queue") {
    return store.notify(`Read-only: this session is running in another wright process (pid ${elsewhere.pid} on ${elsewhere.hostname}); it follows along here, and takes prompts again once that ends (ctrl+q queues yours for it)`, "error")
  }
  if (history[history.length - 1] !== raw) history.push(raw)
  setUi({ editor: E.emptyEditor(), histIndex: 0, draft: "", sugSelected: 0, sugDismissed: false })
  const how = delivery ?? (store.getState().busy ? "steer" : undefined)
  if (text.startsWith("/")) {
    if (cmd) return runCommand(host, cmd.name, rest.join(" "))
    if (store.getState().commands.some((c) => c.name === name)) return void controller.command(name, text.slice(name.length + 2), how)
  }
  void controller.submit(raw, how)
}

/** One step back (1) or forward (-1) in the history; step 0 is the draft typed before ↑. */
function historyStep(host: AppHost, dir: 1 | -1) {
  const u = host.ui()
  const h = host.history
  const next = u.histIndex + dir
  if (next < 0 || next > h.length) return
  const draft = u.histIndex === 0 ? u.editor.text : u.draft
  const text = next === 0 ? draft : h[h.length - next]!
  host.setUi({ histIndex: next, draft, editor: E.setText(text) })
}

/** Sets the editor after an edit: the completion list follows the new text from its top. */
const editing = (host: AppHost) => (next: E.EditorState) => host.setUi({ editor: next, sugSelected: 0, sugDismissed: false })

export function promptKey(host: AppHost, completion: Completion, key: Key) {
  if (mappedKey(host, key)) return
  const { store, controller, setUi } = host
  const u = host.ui()
  const ed = u.editor
  const c = completionKey(ed, u.sugSelected, completion, key)
  if (c.type === "ui") return setUi(c.ui)
  if (c.type === "run") {
    setUi({ editor: E.emptyEditor(), sugSelected: 0 })
    return runCommand(host, c.name, "")
  }
  const edit = editing(host)
  switch (key.name) {
    case "text":
      return edit(E.insert(ed, key.text))
    case "return":
      if (ed.cursor > 0 && ed.text[ed.cursor - 1] === "\\") return edit(E.insert(E.backspace(ed), "\n"))
      return submit(host)
    case "newline":
      return edit(E.insert(ed, "\n"))
    case "backspace":
      return edit(key.meta ? E.deleteWord(ed) : E.backspace(ed))
    case "delete":
      return edit(E.del(ed))
    case "left":
      return edit(E.left(ed))
    case "right":
      return edit(E.right(ed))
    case "home":
      return edit(E.home(ed))
    case "end":
      return edit(E.end(ed))
    case "up": {
      // A prompt waiting for delivery comes back into the empty prompt, to edit or drop.
      if (!ed.text && u.histIndex === 0 && store.getState().route === "session" && store.getState().inbox.length) {
        return void controller.pullBack().then((text) => text !== undefined && setUi({ editor: E.setText(text) }))
      }
      // On the home screen the session list sits right above the empty prompt: ↑ moves into it.
      if (!ed.text && u.histIndex === 0 && store.getState().route === "home" && host.homeItems().length) return setUi({ home: { selected: 0, filter: "" } })
      const next = E.up(ed)
      return next ? edit(next) : historyStep(host, 1)
    }
    case "down": {
      const next = E.down(ed)
      return next ? edit(next) : historyStep(host, -1)
    }
    case "tab":
      return controller.cycleAgent(1)
    case "backtab":
      return controller.cycleAgent(-1)
    case "escape":
      if (store.getState().busy) {
        store.notify("Interrupting…")
        controller.abort()
      }
      return
    case "ctrl":
      return ctrlKey(host, key.text)
  }
}

function ctrlKey(host: AppHost, letter: string) {
  const { store, controller, setUi } = host
  const ed = host.ui().editor
  const edit = editing(host)
  switch (letter) {
    case "a":
      return edit(E.home(ed))
    case "e":
      return edit(E.end(ed))
    case "u":
      return edit(E.deleteToLineStart(ed))
    case "k":
      return edit(E.deleteToLineEnd(ed))
    case "w":
      return edit(E.deleteWord(ed))
    // Readline's history keys, also where ↑ means something else (the home screen's list).
    case "p":
      return historyStep(host, 1)
    case "n":
      return historyStep(host, -1)
    case "t":
      return void controller.cycleVariant()
    case "q":
      return submit(host, "queue")
    // The clipboard's image as an `[Image N]` chip at the cursor.
    case "v":
      return void controller.clipboardImage().then((chip) => chip && setUi({ editor: E.insert(host.ui().editor, `${chip} `) }))
    case "g":
      return openEditor(host)
    case "o": {
      // A large last output opens in the pager instead of flooding the scrollback.
      const out = lastToolOutput(store.messages())
      if (out && !store.getState().live.some((b) => b.kind === "tool") && pageIfLarge(host, out.title, out.text)) return
      // Live and later tool calls follow the toggle; the last finished one is printed again in full.
      const on = !store.getState().showDetails
      store.set({ showDetails: on })
      if (on && !store.getState().live.some((b) => b.kind === "tool")) store.expandLast()
      return
    }
  }
}
