import { afterEach, expect, test } from "vitest"
import { cleanup } from "ink-testing-library"
import { showConfigWarnings } from "../../src/tui/config-warnings"
import { mount, stubServer, tick } from "./stub"

afterEach(() => cleanup())

test("tui config warnings - each warning of the project's config is a notice above the prompt, once", async () => {
  const warnings = ['/tmp/project/wright.json: unknown key "keybind" ignored', '/tmp/project/wright.json: key "lsp" ignored: wright starts no language servers yet']
  const stub = stubServer({ configWarnings: warnings })
  const ui = mount(stub)
  await ui.controller.boot()
  await showConfigWarnings(stub.client, ui.store)
  await tick()
  const frame = ui.lastFrame()!
  for (const w of warnings) expect(frame.split(`Warning: ${w}`)).toHaveLength(2)
  expect(stub.requests.filter((r) => r.path === "/config/warnings")).toHaveLength(1)
})

test("tui config warnings - a server without the route (an older wright serve) shows nothing and the UI still works", async () => {
  const stub = stubServer()
  const ui = mount(stub)
  await ui.controller.boot()
  await showConfigWarnings(stub.client, ui.store)
  await tick()
  expect(ui.lastFrame()).not.toContain("Warning:")
  expect(ui.lastFrame()).not.toContain("no route")
})
