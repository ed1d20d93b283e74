// Text from the model or a repository must not drive the user's terminal: every control
// sequence an attacker could hide in a README or a command's output comes out visible and inert.
import { expect, test } from "vitest"
import { terminalSafe } from "../../src/util"

const ESC = "\x1b"
const BEL = "\x07"
/** Anything a terminal would act on: C0 but \t \n, DEL, C1. */
const acting = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/

test("terminalSafe - leaves ordinary text, tabs, newlines and non-ASCII alone", () => {
  const s = "fn main() {\n\tprintln!(\"héllo — 世界 🎉\");\n}\n"
  expect(terminalSafe(s)).toBe(s)
})

test("terminalSafe - a clipboard write (OSC 52) and a window title (OSC 2) become visible text", () => {
  const osc52 = `${ESC}]52;c;cm0gLXJmIH4=${BEL}`
  const title = `${ESC}]2;pwned${ESC}\\`
  expect(terminalSafe(osc52)).toBe("^[]52;c;cm0gLXJmIH4=^G")
  expect(terminalSafe(title)).toBe("^[]2;pwned^[\\")
  expect(terminalSafe(osc52 + title)).not.toMatch(acting)
})

test("terminalSafe - hiding and overwriting cannot happen: concealed text, CR, backspace, cursor moves, clear screen", () => {
  expect(terminalSafe(`rm -rf ~ ${ESC}[8mhidden${ESC}[0m`)).toBe("rm -rf ~ ^[[8mhidden^[[0m")
  expect(terminalSafe("rm -rf ~\recho hi")).toBe("rm -rf ~^Mecho hi")
  expect(terminalSafe("rm\b\bls")).toBe("rm^H^Hls")
  expect(terminalSafe(`${ESC}[2J${ESC}[1;1H${ESC}[3A`)).toBe("^[[2J^[[1;1H^[[3A")
  expect(terminalSafe("a\x7fb\x00c")).toBe("a^?b^@c")
})

test("terminalSafe - 8-bit C1 controls (CSI U+009B, OSC U+009D) are shown as escapes, not passed on", () => {
  expect(terminalSafe("\u009b2J")).toBe("\\x9b2J")
  expect(terminalSafe("\u009d52;c;eA==\u009c")).toBe("\\x9d52;c;eA==\\x9c")
  expect(terminalSafe("\u0080\u009f")).not.toMatch(acting)
})

test("terminalSafe - CRLF text from a Windows file reads as plain lines", () => {
  expect(terminalSafe("one\r\ntwo\r\n")).toBe("one\ntwo\n")
  // Only a CR that ends a line is dropped: one that could overwrite stays visible.
  expect(terminalSafe("one\r\r\ntwo\r")).toBe("one^M\ntwo^M")
})

test("terminalSafe - a sequence split across two streamed chunks is neutralised in each chunk", () => {
  const chunks = [`before ${ESC}`, `]52;c;eA==${BEL} after ${ESC}[`, "2J"]
  const out = chunks.map(terminalSafe)
  for (const c of out) expect(c).not.toMatch(acting)
  expect(out.join("")).toBe("before ^[]52;c;eA==^G after ^[[2J")
})

test("terminalSafe - bidirectional overrides and isolates cannot reorder a command: they are shown by code point", () => {
  // A terminal that lays out right-to-left text would draw the overridden run reversed: "rm -rf ~".
  expect(terminalSafe("echo safe \u202e~ fr- mr\u202c")).toBe("echo safe <U+202E>~ fr- mr<U+202C>")
  expect(terminalSafe("a\u2066b\u2067c\u2068d\u2069\u202a\u202b\u202d")).toBe("a<U+2066>b<U+2067>c<U+2068>d<U+2069><U+202A><U+202B><U+202D>")
  // Right-to-left text itself, and the marks that only nudge neutral characters, stay as they are.
  expect(terminalSafe("שלום עולם \u200f مرحبا \u200e")).toBe("שלום עולם \u200f مرحبا \u200e")
})
