import { afterEach, expect, test } from "vitest"
import { cleanup } from "ink-testing-library"
import type { TrustStatus } from "../../src/protocol"
import { fitLines } from "../../src/tui/view/dialogs"
import { mount, stubServer, tick } from "./stub"

afterEach(() => cleanup())

const untrusted = (over: Partial<TrustStatus> = {}): TrustStatus => ({
  directory: "/tmp/project",
  trusted: false,
  changed: false,
  ignored: ['mcp.probe: starts "sh -c echo ran > marker"', 'permission.bash: "allow" would loosen your rules'],
  ...over,
})

/** Starts the UI as runTui does: the trust question first, then the basics. */
async function launch(stub: ReturnType<typeof stubServer>) {
  const ui = mount(stub)
  let answered = false
  const asked = ui.controller.askTrust().then(() => void (answered = true))
  await ui.controller.boot()
  await tick()
  return { ...ui, asked, answered: () => answered }
}

const calls = (stub: ReturnType<typeof stubServer>, method: string, path: string) => stub.requests.filter((r) => r.method === method && r.path === path).length

test("tui trust - an untrusted folder's config is asked about, naming what it would do; 1 trusts and the basics load again", async () => {
  const stub = stubServer({ trust: untrusted() })
  const ui = await launch(stub)
  const frame = ui.lastFrame()!
  expect(frame).toContain("This folder's config is not trusted")
  expect(frame).toContain('mcp.probe: starts "sh -c echo ran > marker"')
  expect(frame).toContain('permission.bash: "allow" would loosen your rules')
  expect(frame).toContain("Trust this folder")
  expect(frame).toContain("Keep it held back")
  expect(ui.answered()).toBe(false)
  const agentsBefore = calls(stub, "GET", "/agent")

  ui.stdin.write("1")
  await ui.asked
  await tick()
  expect(calls(stub, "POST", "/trust")).toBe(1)
  // The reloaded project may bring its own agents and commands: they are read again.
  expect(calls(stub, "GET", "/agent")).toBe(agentsBefore + 1)
  expect(ui.lastFrame()).not.toContain("not trusted")
  expect(ui.lastFrame()).toContain("Trusted /tmp/project: its config applies in full")
})

test("tui trust - Enter (typed for the prompt) keeps it held back by default; the notice names /trust, which asks again and trusts", async () => {
  const stub = stubServer({ trust: untrusted() })
  const ui = await launch(stub)
  ui.stdin.write("hello")
  await tick()
  ui.stdin.write("\r")
  await ui.asked
  await tick()
  expect(calls(stub, "POST", "/trust")).toBe(0)
  // Nothing was sent as a prompt either: the keys went to the dialog.
  expect(stub.requests.some((r) => r.path.endsWith("/prompt_async"))).toBe(false)
  expect(ui.lastFrame()).not.toContain("Keep it held back")
  expect(ui.lastFrame()).toContain("This folder's config stays held back; /trust trusts it later.")

  ui.stdin.write("/trust")
  await tick()
  ui.stdin.write("\r")
  await tick()
  expect(ui.lastFrame()).toContain("Keep it held back")
  ui.stdin.write("\x1b[D")
  await tick()
  ui.stdin.write("\r")
  await tick(100)
  expect(calls(stub, "POST", "/trust")).toBe(1)
  expect(ui.lastFrame()).toContain("Trusted /tmp/project")
})

test("tui trust - Esc keeps it held back; a changed config says so", async () => {
  const stub = stubServer({ trust: untrusted({ changed: true }) })
  const ui = await launch(stub)
  expect(ui.lastFrame()).toContain("This folder's config changed since you trusted it")
  ui.stdin.write("\x1b")
  await ui.asked
  await tick()
  expect(calls(stub, "POST", "/trust")).toBe(0)
  expect(ui.lastFrame()).toContain("/trust trusts it later")
})

test.each([
  ["needs no trust", untrusted({ ignored: [] })],
  ["is trusted", untrusted({ trusted: true, source: "record", ignored: [] })],
  ["is trusted by --trust", untrusted({ trusted: true, source: "flag" })],
  ["has no trust route (an older server)", undefined],
])("tui trust - a folder whose config %s is never asked about", async (_, trust) => {
  const stub = stubServer({ trust })
  const ui = await launch(stub)
  await ui.asked
  expect(ui.lastFrame()).not.toContain("Trust this folder")
  expect(ui.lastFrame()).not.toContain("held back")
})

test("tui trust - a long list is cut to the dialog's rows, the last row counting the rest", async () => {
  const ignored = Array.from({ length: 30 }, (_, i) => `mcp.server${i}: starts "server-${i}"`)
  ignored[1] = `mcp.server1: starts "${"x".repeat(400)}"`
  const stub = stubServer({ trust: untrusted({ ignored }) })
  const ui = await launch(stub)
  const frame = ui.lastFrame()!
  // 24 rows: the dialog gets 10, four of them for the title, intro, options and keys.
  expect(frame).toContain('mcp.server4: starts "server-4"')
  expect(frame).not.toContain("mcp.server5:")
  expect(frame).toContain("… and 25 more")
  expect(frame).toContain("Keep it held back")
  // A long line is cut to one row, not wrapped over many.
  expect(frame.split("\n").filter((l) => l.includes("xxxx"))).toHaveLength(1)
  expect(frame.split("\n").length).toBeLessThan(24)

  expect(fitLines(["a", "b", "c"], 3)).toEqual({ shown: ["a", "b", "c"], more: 0 })
  expect(fitLines(["a", "b", "c"], 2)).toEqual({ shown: ["a"], more: 2 })
  expect(fitLines(["a", "b", "c"], -5)).toEqual({ shown: [], more: 3 })
})
