// Turns the raw input sequences Ink's parser splits stdin into (one escape sequence or a run
// of plain text per call) into keys. Ink's own `useInput` loses what we need here: bracketed
// paste markers, Alt+Enter, and the CSI-u / modifyOtherKeys forms of Shift+Enter.
//
// Newline in the prompt: Ctrl+J (sent as "\n" everywhere), Alt+Enter ("\x1b\r"), Shift+Enter
// where the terminal reports it ("\x1b[13;2u" kitty/CSI-u, "\x1b[27;2;13~" xterm
// modifyOtherKeys); most terminals send a plain "\r" for Shift+Enter, which cannot be told apart
// from Enter, so a trailing "\" before Enter also inserts a newline.

export type KeyName =
  | "text"
  | "return"
  | "newline"
  | "backspace"
  | "delete"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "pageup"
  | "pagedown"
  | "tab"
  | "backtab"
  | "escape"
  | "paste-start"
  | "paste-end"
  | "ctrl"
  | "unknown"

export interface Key {
  name: KeyName
  /** Printable text for "text"; the letter for "ctrl" (e.g. "c" for Ctrl+C). */
  text: string
  ctrl?: boolean
  meta?: boolean
  shift?: boolean
}

const CSI_KEYS: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  Z: "backtab",
}
const TILDE_KEYS: Record<string, KeyName> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
  "5": "pageup",
  "6": "pagedown",
  "200": "paste-start",
  "201": "paste-end",
}

const key = (name: KeyName, extra: Partial<Key> = {}): Key => ({ name, text: "", ...extra })

/** Decodes one input event. A run of plain text may hold several keys (fast typing). */
export function decodeKeys(raw: string): Key[] {
  if (raw.startsWith("\x1b")) {
    // Escape and then a control key (Ctrl+D, Ctrl+C, another Escape) pressed close together
    // arrive as one sequence, as Alt+Ctrl would: read as the two keys they nearly always are.
    // (Alt+Enter, ESC + CR or LF, stays the newline.)
    if (raw.length === 2 && raw.charCodeAt(1) < 0x20 && raw[1] !== "\r" && raw[1] !== "\n") return [key("escape"), ...decodeKeys(raw.slice(1))]
    return [decodeEscape(raw)]
  }
  const out: Key[] = []
  let text = ""
  const flush = () => {
    if (text) out.push(key("text", { text }))
    text = ""
  }
  for (const ch of raw) {
    const code = ch.codePointAt(0)!
    if (ch === "\r") {
      flush()
      out.push(key("return"))
    } else if (ch === "\n") {
      flush()
      out.push(key("newline", { ctrl: true }))
    } else if (ch === "\x7f" || ch === "\b") {
      flush()
      out.push(key("backspace"))
    } else if (ch === "\t") {
      flush()
      out.push(key("tab"))
    } else if (code < 0x20) {
      flush()
      out.push(key("ctrl", { ctrl: true, text: String.fromCharCode(code + 0x60) }))
    } else text += ch
  }
  flush()
  return out
}

function decodeEscape(raw: string): Key {
  if (raw === "\x1b") return key("escape")
  if (raw === "\x1b\r" || raw === "\x1b\n") return key("newline", { meta: true })
  if (raw === "\x1b\x7f") return key("backspace", { meta: true })
  const csi = /^\x1b\[([\d;]*)([A-Za-z~])$/.exec(raw) ?? /^\x1bO()([A-Z])$/.exec(raw)
  if (csi) {
    const params = csi[1]!.split(";")
    const final = csi[2]!
    const mods = Number(params[1] ?? "1") - 1
    const m = { shift: (mods & 1) !== 0, meta: (mods & 2) !== 0, ctrl: (mods & 4) !== 0 }
    if (final === "~") {
      // xterm modifyOtherKeys: CSI 27 ; mod ; code ~
      if (params[0] === "27" && params[2]) return fromCode(Number(params[2]), Number(params[1]) - 1)
      const name = TILDE_KEYS[params[0]!]
      return name ? key(name, m) : key("unknown")
    }
    if (final === "u") return fromCode(Number(params[0]), mods)
    const name = CSI_KEYS[final]
    if (name) return key(name, final === "Z" ? { ...m, shift: true } : m)
    return key("unknown")
  }
  // Alt+letter arrives as ESC followed by the letter.
  const rest = raw.slice(1)
  if ([...rest].length === 1) return key("text", { text: rest, meta: true })
  return key("unknown")
}

/** CSI-u style: a key code with a modifier mask (bit 1 shift, 2 alt, 4 ctrl). */
function fromCode(code: number, mods: number): Key {
  const m = { shift: (mods & 1) !== 0, meta: (mods & 2) !== 0, ctrl: (mods & 4) !== 0 }
  if (code === 13) return key(m.shift || m.meta || m.ctrl ? "newline" : "return", m)
  if (code === 27) return key("escape", m)
  if (code === 9) return key(m.shift ? "backtab" : "tab", m)
  if (code === 127) return key("backspace", m)
  if (m.ctrl && code >= 97 && code <= 122) return key("ctrl", { ...m, text: String.fromCharCode(code) })
  return key("text", { ...m, text: String.fromCodePoint(code) })
}
