import { expect, test } from "vitest"
import { findLine, openPager, pagerKey, wrapLines, type PagerUi } from "../../src/tui/pager"
import { orderModels, osc52 } from "../../src/tui/session-tools"
import type { Key } from "../../src/tui/keys"

const k = (name: Key["name"], text = ""): Key => ({ name, text })
const press = (p: PagerUi, ...keys: Key[]) => keys.reduce((u, key) => pagerKey(u, key, 20)[0], p)

test("pager - a long line wraps to the width, so each row is one screen row", () => {
  expect(wrapLines("abcdefghijkl\n\nxy", 10)).toEqual(["abcdefghij", "kl", "", "xy"])
})

test("pager - paging stops at the last screenful; / finds a line and n goes on from it, wrapping around", () => {
  const text = Array.from({ length: 100 }, (_, i) => (i === 70 || i === 10 ? `match ${i}` : `line ${i}`)).join("\n")
  const p = openPager("t", text, 80)
  expect(press(p, k("end")).top).toBe(100 - 17)
  expect(press(p, k("pagedown"), k("pagedown"), k("pageup")).top).toBe(17)
  const found = press(p, k("text", "/"), k("text", "MATCH"), k("return"))
  expect(found.top).toBe(10)
  expect(press(found, k("text", "n")).top).toBe(70)
  expect(findLine(p.lines, "match", 71, 1)).toBe(10)
  expect(press(p, k("text", "/"), k("text", "nothing"), k("return")).message).toBe("not found: nothing")
  expect(pagerKey(p, k("text", "q"), 20)[1]).toBe("close")
})

test("session tools - OSC 52 carries the text as base64, wrapped for tmux passthrough inside tmux", () => {
  expect(osc52("hé")).toBe(`\x1b]52;c;${Buffer.from("hé").toString("base64")}\x07`)
  expect(osc52("x", { TMUX: "/tmp/s" })).toBe("\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\")
})

test("session tools - the model picker lists favourites, then recents, then the rest", () => {
  const items = ["a/1", "a/2", "b/1", "b/2"].map((m) => ({ label: m, value: m }))
  const rows = orderModels(items, { recent: ["b/2", "a/2", "gone/x"], favorite: ["a/2"] })
  expect(rows.map((r) => r.value)).toEqual(["a/2", "b/2", "a/1", "b/1"])
  expect(rows[0]!.label).toBe("★ a/2")
})
