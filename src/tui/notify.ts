// Terminal notifications: the TUI rings when a session needs the user (a permission, a
// question) or finishes, so a user in another window or tab hears of it. How depends on the
// terminal: OSC 9 (iTerm2, WezTerm, ghostty, kitty) and OSC 777 (VTE terminals, foot, urxvt)
// raise a desktop notification; anything else, tmux and screen included (they would swallow
// an OSC, and pass a bell on), gets the bell. `tui.notifications` in the config turns it off
// (false) or picks one ("osc9" | "osc777" | "bell").
import type { BusEvent } from "../protocol"

export type Ring = "osc9" | "osc777" | "bell"
export type NotifySetting = boolean | Ring | undefined

/** The way to ring this terminal, from its environment; undefined: off. */
export function chooseRing(env: NodeJS.ProcessEnv, setting: NotifySetting): Ring | undefined {
  if (setting === false) return undefined
  if (typeof setting === "string") return setting
  const program = env.TERM_PROGRAM ?? ""
  const term = env.TERM ?? ""
  // Inside a multiplexer the outer terminal is unknown, and an OSC would not reach it.
  if (env.TMUX || program === "tmux" || term.startsWith("screen") || term.startsWith("tmux")) return "bell"
  if (["iTerm.app", "WezTerm", "ghostty"].includes(program) || term === "xterm-kitty" || term === "xterm-ghostty" || env.KITTY_WINDOW_ID) return "osc9"
  if (env.VTE_VERSION || term === "foot" || term.startsWith("foot-") || term.startsWith("rxvt")) return "osc777"
  return "bell"
}

/** Text safe inside an OSC string: no control characters (an ESC or BEL would end it early), no `;` (OSC 777's field separator). */
const clean = (s: string) => s.replace(/[\x00-\x1f\x7f-\x9f;]/g, " ").slice(0, 200)

/** The bytes that ring the terminal. */
export function ringSequence(ring: Ring, title: string, body: string): string {
  if (ring === "osc9") return `\x1b]9;${clean(`${title}: ${body}`)}\x07`
  if (ring === "osc777") return `\x1b]777;notify;${clean(title)};${clean(body)}\x07`
  return "\x07"
}

export interface NotifierOptions {
  /** Writes to the terminal (Ink's stdout). */
  write: (s: string) => void
  ring: () => Ring | undefined
  /** A session's title, and whether it is a subagent's (their finishing is not announced). */
  session: (id: string) => { title?: string; child: boolean }
}

/** Returns the listener for the TUI's event stream. */
export function createNotifier(opts: NotifierOptions): (e: BusEvent) => void {
  const busy = new Set<string>()
  const ring = (sessionID: string, body: string) => {
    const how = opts.ring()
    if (!how) return
    const title = opts.session(sessionID).title
    opts.write(ringSequence(how, "wright", title ? `${title}: ${body}` : body))
  }
  return (e) => {
    switch (e.type) {
      case "permission.asked":
        return ring(e.properties.sessionID, `needs your permission (${e.properties.permission})`)
      case "question.asked":
        return ring(e.properties.sessionID, "has a question for you")
      case "session.status": {
        const { sessionID, status } = e.properties
        // A session another process runs is that process's to announce.
        if (status.type !== "idle" && !(status.type === "busy" && status.holder)) busy.add(sessionID)
        if (status.type === "idle") finished(sessionID)
        return
      }
      case "session.idle":
        return finished(e.properties.sessionID)
    }
  }
  function finished(sessionID: string) {
    if (!busy.delete(sessionID)) return
    if (!opts.session(sessionID).child) ring(sessionID, "finished")
  }
}
