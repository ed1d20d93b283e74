// The TUI's status line counts the errors the language servers reported in the files the
// tools wrote, from the lsp.diagnostics events; a file's fix takes its errors off the count.
import { afterEach, expect, test } from "vitest"
import { cleanup } from "ink-testing-library"
import { mount, stubServer, tick } from "./stub"

afterEach(() => cleanup())

test("tui - the status line shows the LSP error count and drops a file's errors once it is clean", async () => {
  const stub = stubServer()
  const ui = mount(stub)
  await ui.controller.boot()
  await tick()
  expect(ui.lastFrame()).not.toContain("LSP error")

  stub.emit({ type: "lsp.diagnostics", properties: { file: "/tmp/project/a.ts", errors: 2, warnings: 1 } })
  stub.emit({ type: "lsp.diagnostics", properties: { file: "/tmp/project/b.ts", errors: 1, warnings: 0 } })
  await tick()
  expect(ui.lastFrame()).toContain("3 LSP errors")

  stub.emit({ type: "lsp.diagnostics", properties: { file: "/tmp/project/a.ts", errors: 0, warnings: 0 } })
  await tick()
  expect(ui.lastFrame()).toContain("1 LSP error")
  expect(ui.lastFrame()).not.toContain("1 LSP errors")
})
