// tui.json in a fresh HOME, against the built binary in tmux: a user's key opens the command
// palette (every command with its key, filterable), a theme changes the colours the terminal
// receives, /themes previews and saves one, and a broken tui.json is a notice naming the file.
// Needs a build.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test as base } from "vitest"
import { requires } from "../lib/requires"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { tuiHarness } from "../lib/tui-harness"
import { Tmux } from "../tui/tmux"

const test = base.skipIf(requires("tmux"))

const h = tuiHarness({ strict: false })

/** Starts wright with `files` (relative to XDG_CONFIG_HOME) written first; colours on unless `noColor`. */
function open(files: Record<string, unknown>, opts: { color?: boolean } = {}) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(h.server, "openai-chat"))
  const config = box.env.XDG_CONFIG_HOME!
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(config, rel)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content))
  }
  if (opts.color) delete box.env.NO_COLOR
  const pane = h.pane()
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  return { box, pane, config }
}

/** The visible screen with its colours, as SGR escapes. */
const colours = (pane: Tmux) => execFileSync("tmux", ["-L", pane.socket, "capture-pane", "-p", "-e", "-t", "t"], { encoding: "utf8" })

test("tui themes - a custom key from tui.json opens the palette, listing commands with their keys, filterable", async () => {
  const { pane } = open({ "wright/tui.json": { keybinds: { command_list: "ctrl+k", "/diff": "<leader>d" } } })
  await pane.waitFor("tab agents")
  pane.keys("C-k")
  const screen = await pane.waitFor("Commands ctrl+k")
  expect(screen).toMatch(/\/new\s+ctrl\+x n {2}start a new session/)
  expect(screen).toMatch(/\/diff\s+ctrl\+x d {2}show the files/)
  pane.type("them")
  const filtered = await pane.waitFor((s) => s.includes("search: them") && !s.includes("/new"))
  expect(filtered).toMatch(/\/themes\s+ctrl\+x t/)
  // Enter runs the command: /themes opens its list.
  pane.keys("Enter")
  await pane.waitFor("Themes (↑↓ previews")
  pane.keys("Escape")
  await pane.waitFor((s) => !s.includes("Themes (↑↓"))
  // The leader, then t: the default binding of theme_list; the same letter alone is typed.
  pane.keys("C-x")
  pane.type("t")
  await pane.waitFor("Themes (↑↓ previews")
  pane.keys("Escape")
  await pane.waitFor((s) => !s.includes("Themes (↑↓"))
  pane.type("t")
  await pane.waitFor("│ t")
})

test("tui themes - a theme from tui.json colours the screen; /themes previews and saves another", async () => {
  const { pane, config } = open(
    {
      "wright/tui.json": { theme: "mine" },
      "wright/themes/mine.json": { defs: { signal: "#ff0000" }, theme: { primary: "signal" } },
    },
    { color: true },
  )
  await pane.waitFor("tab agents")
  // The logo is in the theme's primary colour: pure red, in 256 or true colour.
  const red = /\x1b\[(?:1;)?38;(?:5;196|2;255;0;0)m(?:\x1b\[[\d;]*m)*wright/
  expect(colours(pane)).toMatch(red)
  pane.type("/themes")
  pane.keys("Enter")
  await pane.waitFor("Themes (↑↓ previews")
  // The dialog's border is the theme's primary too; moving onto another theme previews it (high-contrast's white).
  expect(colours(pane)).toMatch(/38;(?:5;196|2;255;0;0)m╭/)
  pane.type("high")
  await pane.waitFor(() => /38;(?:5;231|2;255;255;255)m╭/.test(colours(pane)))
  pane.keys("Enter")
  await pane.waitFor("saved to")
  expect(JSON.parse(readFileSync(path.join(config, "wright/tui.json"), "utf8"))).toEqual({ theme: "high-contrast" })
})

test("tui themes - a broken tui.json is a notice naming the file, and the UI still starts", async () => {
  const { pane, config } = open({ "wright/tui.json": '{ "theme": "dark", ' })
  const screen = await pane.waitFor("tab agents")
  expect(screen.replace(/\s*\n\s*/g, "")).toContain(`${path.join(config, "wright/tui.json")}: not valid JSON`)
})
