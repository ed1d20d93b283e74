import { expect, test } from "vitest"
import * as E from "../../src/tui/editor"
import { decodeKeys } from "../../src/tui/keys"
import { inline, markdownLines } from "../../src/tui/markdown"

test("keys - Enter submits; Ctrl+J, Alt+Enter and the CSI-u / modifyOtherKeys Shift+Enter make newlines", () => {
  expect(decodeKeys("\r").map((k) => k.name)).toEqual(["return"])
  expect(decodeKeys("\n").map((k) => k.name)).toEqual(["newline"])
  expect(decodeKeys("\x1b\r").map((k) => k.name)).toEqual(["newline"])
  expect(decodeKeys("\x1b[13;2u").map((k) => k.name)).toEqual(["newline"])
  expect(decodeKeys("\x1b[27;2;13~").map((k) => k.name)).toEqual(["newline"])
})

test("keys - fast typing followed by Enter is text then return; arrows, Esc, Shift+Tab, Ctrl+C", () => {
  expect(decodeKeys("hello\r")).toEqual([{ name: "text", text: "hello" }, { name: "return", text: "" }])
  expect(decodeKeys("\x1b[A")[0]!.name).toBe("up")
  expect(decodeKeys("\x1bOB")[0]!.name).toBe("down")
  expect(decodeKeys("\x1b")[0]!.name).toBe("escape")
  expect(decodeKeys("\x1b[Z")[0]!.name).toBe("backtab")
  expect(decodeKeys("\x03")[0]).toMatchObject({ name: "ctrl", text: "c" })
  expect(decodeKeys("\x1b[3~")[0]!.name).toBe("delete")
  expect(decodeKeys("\x1b[1;5C")[0]).toMatchObject({ name: "right", ctrl: true })
})

test("keys - Escape then Ctrl+D (or another Escape) read in one go are the two keys, not one Alt key typed as text", () => {
  expect(decodeKeys("\x1b\x04")).toEqual([{ name: "escape", text: "" }, { name: "ctrl", ctrl: true, text: "d" }])
  expect(decodeKeys("\x1b\x1b").map((k) => k.name)).toEqual(["escape", "escape"])
  // Alt+letter and Alt+Enter keep their meaning.
  expect(decodeKeys("\x1bb")).toEqual([{ name: "text", text: "b", meta: true }])
  expect(decodeKeys("\x1b\r").map((k) => k.name)).toEqual(["newline"])
})

test("editor - a paste over 10 lines is one block token, expanded on submit; backspace removes it whole", () => {
  const text = Array.from({ length: 12 }, (_, i) => `l${i}`).join("\r\n")
  let s = E.insert(E.emptyEditor(), "see: ")
  s = E.paste(s, text)
  expect(s.text).toBe("see: [Pasted 12 lines #1]")
  expect(E.expand(s)).toBe(`see: ${text.replace(/\r\n/g, "\n")}`)
  expect(E.backspace(s).text).toBe("see: ")
  expect(E.paste(E.emptyEditor(), "a\nb").text).toBe("a\nb")
})

test("editor - up/down move between lines and report the edges (for history)", () => {
  let s = E.setText("one\ntwo")
  expect(E.down(s)).toBeUndefined()
  s = E.up(s)!
  expect(E.cursorPosition(s)).toMatchObject({ row: 0, col: 3 })
  expect(E.up(s)).toBeUndefined()
  s = E.deleteWord(E.end(s))
  expect(s.text).toBe("\ntwo")
})

test("markdown - headings, fences, lists and inline styles become styled segments", () => {
  const lines = markdownLines("# Title\n\nSome **bold** and `code`.\n```ts\nconst x = 1\n```\n- item\n1. first\n> quoted")
  expect(lines[0]).toEqual([{ text: "Title", bold: true, color: "cyan", underline: true }])
  expect(lines[2]).toEqual([{ text: "Some " }, { text: "bold", bold: true }, { text: " and " }, { text: "code", color: "yellow" }, { text: "." }])
  expect(lines[3]).toEqual([{ text: "╭ ts", dim: true }])
  expect(lines[4]).toEqual([{ text: "│ ", dim: true }, { text: "const x = 1", color: "yellow" }])
  expect(lines[5]![0]!.text).toBe("• ")
  expect(lines[6]![0]!.text).toBe("1. ")
  expect(lines[7]![0]!.text).toBe("│ ")
  expect(inline("[docs](https://x.dev) *it*")).toEqual([
    { text: "docs", color: "blue", underline: true },
    { text: " (https://x.dev)", dim: true },
    { text: " " },
    { text: "it", italic: true },
  ])
})

test("markdown - an unclosed fence (still streaming) renders its lines as code", () => {
  const lines = markdownLines("```\nlet a")
  expect(lines).toEqual([[{ text: "│ ", dim: true }, { text: "let a", color: "yellow" }]])
})
