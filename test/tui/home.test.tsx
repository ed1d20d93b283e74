import { afterEach, expect, test } from "vitest"
import { cleanup } from "ink-testing-library"
import { homeKey, homeMatches, type HomeUi } from "../../src/tui/home"
import type { Key } from "../../src/tui/keys"
import { mount, session, stubServer, tick } from "./stub"

afterEach(() => cleanup())

const k = (name: Key["name"], text = ""): Key => ({ name, text })
const items = [
  { id: "ses_c", title: "gamma tests", time: { updated: 3 } },
  { id: "ses_b", title: "beta docs", time: { updated: 2 } },
  { id: "ses_a", title: "alpha refactor", time: { updated: 1 } },
]
const at = (selected: number, extra: Partial<HomeUi> = {}): HomeUi => ({ selected, filter: "", ...extra })

test("tui home keys - moving, opening, leaving and deleting with a confirmation", () => {
  expect(homeKey(at(0), items, k("down"))[0]).toEqual(at(1))
  expect(homeKey(at(0), items, k("up"))[0]).toEqual(at(0))
  // ↓ past the last row and esc go back to the prompt.
  expect(homeKey(at(2), items, k("down"))).toEqual([undefined, { type: "leave" }])
  expect(homeKey(at(1), items, k("escape"))).toEqual([undefined, { type: "leave" }])
  expect(homeKey(at(1), items, k("return"))[1]).toEqual({ type: "open", id: "ses_b" })
  // ctrl+d asks; y, enter or ctrl+d again deletes; anything else keeps it.
  const [asking, none] = homeKey(at(1), items, k("ctrl", "d"))
  expect(asking).toEqual(at(1, { confirm: "ses_b" }))
  expect(none).toEqual({ type: "none" })
  expect(homeKey(asking!, items, k("text", "y"))[1]).toEqual({ type: "delete", id: "ses_b" })
  expect(homeKey(asking!, items, k("ctrl", "d"))[1]).toEqual({ type: "delete", id: "ses_b" })
  expect(homeKey(asking!, items, k("return"))[1]).toEqual({ type: "delete", id: "ses_b" })
  expect(homeKey(asking!, items, k("text", "n"))).toEqual([at(1), { type: "none" }])
  expect(homeKey(asking!, items, k("escape"))).toEqual([at(1), { type: "none" }])
  expect(homeKey(at(0), [], k("delete"))).toEqual([at(0), { type: "none" }])
})

test("tui home keys - typing searches by words of the title or the id; / only starts it", () => {
  let u = at(2)
  for (const ch of ["/", "a", "l", "p"]) u = homeKey(u, items, k("text", ch))[0]!
  expect(u).toEqual({ selected: 0, filter: "alp" })
  expect(homeMatches(items, u.filter).map((s) => s.title)).toEqual(["alpha refactor"])
  expect(homeMatches(items, "docs beta").map((s) => s.id)).toEqual(["ses_b"])
  expect(homeMatches(items, "ses_c").map((s) => s.id)).toEqual(["ses_c"])
  expect(homeKey(u, items, k("backspace"))[0]).toEqual({ selected: 0, filter: "al" })
})

test("tui home - ↑ from the empty prompt moves into the list, ctrl+d then y deletes through the API and says so", async () => {
  const stub = stubServer({ sessions: [session("ses_c", "gamma tests"), session("ses_b", "beta docs")] })
  const ui = mount(stub)
  await ui.controller.boot()
  await tick()
  expect(ui.lastFrame()).toContain("Recent sessions")
  ui.stdin.write("\x1b[A")
  await tick()
  expect(ui.lastFrame()).toContain("› gamma tests")
  ui.stdin.write("\x04")
  await tick()
  expect(ui.lastFrame()).toContain("Delete “gamma tests”?")
  ui.stdin.write("y")
  await tick(150)
  expect(stub.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual(["/session/ses_c"])
  expect(ui.lastFrame()).toContain("Deleted “gamma tests”")
  expect(ui.lastFrame()).toContain("› beta docs")
  expect(ui.exited()).toBe(0)
})
