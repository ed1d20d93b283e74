// The TUI draws text from the core (answers, tool output, session titles, permission asks)
// through src/tui/view/ink.tsx's Text: a hostile repository's escape sequences, echoed by the
// model, must be shown and never reach the terminal to act (Ink itself keeps OSC sequences,
// such as an OSC 52 clipboard write, and SGR codes such as ESC[8m concealed text).
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { render, cleanup } from "ink-testing-library"
import { afterEach, expect, test } from "vitest"
import { Markdown } from "../../src/tui/view/text"
import { Text } from "../../src/tui/view/ink"

afterEach(() => cleanup())

const ATTACK = "Read me \x1b]52;c;cm0gLXJmIH4K\x07 then \x1b]2;pwned\x07 and \x1b[8mhidden\x1b[0m"
// What a terminal would obey: OSC (ESC ]), BEL, the conceal code, 8-bit CSI/OSC.
const ACTS = /\x1b\]|\x07|\x1b\[8m|[\x9b\x9d]/

test("tui - an answer's escape sequences are drawn visibly, not sent to the terminal", () => {
  const { lastFrame } = render(<Markdown text={ATTACK} />)
  const frame = lastFrame() ?? ""
  expect(frame).not.toMatch(ACTS)
  expect(frame).toContain("^[]52;c;cm0gLXJmIH4K^G")
  expect(frame).toContain("^[[8mhidden^[[0m")
})

test("tui - nested and plain Text children are made safe, a permission ask shows what CR hid", () => {
  const { lastFrame } = render(
    <Text>
      {"$ rm -rf ~\recho hi"}
      <Text bold>{"\x1b]2;title\x07"}</Text>
    </Text>,
  )
  const frame = lastFrame() ?? ""
  expect(frame).not.toMatch(ACTS)
  expect(frame).toContain("$ rm -rf ~^Mecho hi")
})

test("tui - no view draws text with Ink's own Text", () => {
  const dir = path.join(__dirname, "../../src/tui")
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f) && !f.endsWith(path.join("view", "ink.tsx")))
  const offenders = files.filter((f) => /import\s*\{[^}]*\bText\b[^}]*\}\s*from\s*"ink"/.test(readFileSync(path.join(dir, f), "utf8")))
  expect(offenders).toEqual([])
})
