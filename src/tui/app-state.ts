// The App's own state, beside the store's: the editor, the open dialog's cursor, the pager, the
// editor hand-off; and `AppHost`, the handle the App gives the hooks, key handlers and commands
// that live outside the component. It is its own module so those can share the types without
// importing app.tsx (which imports them).
import type { Session } from "../protocol"
import type { Controller } from "./controller"
import { emptyQuestion, type PermissionUi, type SecretUi, type SelectUi, type TrustUi } from "./dialog-keys"
import * as E from "./editor"
import type { HomeUi } from "./home"
import type { Keymap } from "./keymap"
import type { PagerUi } from "./pager"
import type { SessionTools } from "./session-tools"
import type { Printed, Store } from "./store"
import type { ThemeControl } from "./ui-settings"
import type { QuestionUi } from "./view/dialogs"

export interface Ui {
  editor: E.EditorState
  histIndex: number
  draft: string
  select?: SelectUi
  /** /connect's key prompt, open once a provider is chosen. */
  secret?: SecretUi
  perm: PermissionUi
  question: QuestionUi
  trust: TrustUi
  sugSelected: number
  sugDismissed: boolean
  files: { query: string; items: string[] }
  /** Set while the keys are in the home screen's session list. */
  home?: HomeUi
  /** The server's answer to the list's search (older sessions than those loaded). */
  homeFound: { query: string; items: Session[] }
  /** The pager (/diff of a large change, ctrl+o on a large tool output): it takes the keys and the live region. */
  pager?: PagerUi
  /** The user's editor has the terminal: the prompt (sent when saved) or the transcript (/export). */
  editing?: { kind: "prompt" | "export"; text: string; name: string }
  /** The printed blocks while the pager holds the alternate screen: new ones wait, so they reach the scrollback, not the pager's screen. */
  frozen?: Printed[]
}

export const initialUi = (): Ui => ({ editor: E.emptyEditor(), histIndex: 0, draft: "", perm: { selected: 0 }, question: emptyQuestion(), trust: { selected: 1 }, sugSelected: 0, sugDismissed: false, files: { query: "", items: [] }, homeFound: { query: "", items: [] } })

/**
 * What the App's handlers work with. The App builds one each render, so a handler sees that
 * render's values (the terminal's size), as the closures inside the component did; `ui()` reads
 * the latest state, which `setUi` updates at once, before React renders again.
 */
export interface AppHost {
  store: Store
  controller: Controller
  tools: SessionTools
  stdout: NodeJS.WriteStream
  /**
   * Writes `data` to the terminal through Ink: its live region is erased first and drawn again
   * after, whatever frame it last drew (a switch of screens must not leave a stale one behind).
   */
  writeThroughInk(data: string): void
  size: { rows: number; columns: number }
  ui(): Ui
  setUi(next: Partial<Ui>): void
  /** The sessions the home list shows now (loaded ones that match, plus those the search found). */
  homeItems(): Session[]
  onExit(): void
  editText?: (text: string, name: string) => Promise<string>
  keymap?: Keymap
  themes?: ThemeControl
  /** The prompts sent, oldest first (those saved from earlier runs, then this one's). */
  history: string[]
  /** When the tui.json leader key was pressed; 0 when no key after a leader is awaited. */
  leaderAt: { current: number }
}
