// Text from the model or a repository, made safe to print on a terminal: control characters
// become a visible form instead of acting (clipboard writes, window titles, hidden or
// overwritten text). Each character is judged alone, so an escape sequence split across two
// streamed chunks is neutralised as well as a whole one.

// C0 controls but \t and \n, DEL, the C1 controls (some terminals read U+009B as CSI), and the
// bidirectional embeddings, overrides and isolates, with which a terminal that lays out
// right-to-left text (VTE's, among others) shows `rm -rf ~` as something else.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/
const bidi = (c: number) => (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)

/**
 * `s` with every control character except `\n` and `\t` shown visibly: C0 and DEL in caret
 * notation (ESC as `^[`, BEL `^G`, a lone CR `^M`, DEL `^?`), C1 as `\x9b`, a bidirectional
 * override or isolate by its code point (`<U+202E>`). A CR right
 * before a LF is dropped, so CRLF text reads as plain lines (a CRLF split across two chunks
 * shows one `^M`: visible, never acting). Never throws; text without controls comes back as is.
 */
export function terminalSafe(s: string): string {
  if (!CONTROL.test(s)) return s
  let out = ""
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) continue
    if (bidi(c)) out += `<U+${c.toString(16).toUpperCase()}>`
    else if (c === 0x09 || c === 0x0a || (c >= 0x20 && c < 0x7f) || c > 0x9f) out += s[i]
    else if (c === 0x7f) out += "^?"
    else if (c < 0x20) out += "^" + String.fromCharCode(c + 0x40)
    else out += "\\x" + c.toString(16)
  }
  return out
}
