// /editor and ctrl+g (issue 35 part 2), with the built binary in tmux against the scripted
// model: the prompt as typed goes to $EDITOR (here a script that reads one line from the
// terminal, so the keys must reach the editor and not wright, and appends it), and what was
// saved is sent; /export opens the Markdown transcript in the editor instead of writing a file.
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { text } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { tuiHarness } from "../lib/tui-harness"

const test = base.skipIf(requires("tmux"))
const h = tuiHarness()

function open() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(h.server, "openai-chat"))
  const editor = path.join(box.home, "editor.sh")
  writeFileSync(
    editor,
    `#!/bin/sh
case "$1" in
  *prompt.md) printf 'editor is up\\n' > /dev/tty; IFS= read -r line; printf '%s\\n' "$line" >> "$1" ;;
  *) cp "$1" "${box.home}/seen.tmp" && mv "${box.home}/seen.tmp" "${box.home}/seen-by-editor.md" ;;
esac
`,
  )
  chmodSync(editor, 0o755)
  const pane = h.pane()
  pane.start([process.execPath, BIN], { cwd: box.project, env: { ...box.env, EDITOR: editor } })
  return { box, pane }
}

test("tui editor - ctrl+g opens $EDITOR on the prompt; the keys reach the editor and what it saved is sent", async () => {
  const { pane } = open()
  await pane.waitFor("tab agents")
  pane.type("draft from the prompt")
  pane.keys("C-g")
  await pane.waitFor("editor is up")
  pane.type("typed in the editor")
  h.server.script(text("Got the edited prompt."))
  pane.keys("Enter")
  await pane.waitFor("Got the edited prompt.")
  const sent = JSON.stringify(h.server.requests.at(-1)!.body)
  expect(sent).toContain("draft from the prompt\\ntyped in the editor")
  // wright has the keys again.
  h.server.script(text("Second answer."))
  pane.type("after the editor")
  pane.keys("Enter")
  await pane.waitFor("Second answer.")
  expect(JSON.stringify(h.server.requests.at(-1)!.body)).toContain("after the editor")
})

test("tui editor - /export opens the Markdown transcript in the editor, and writes no file into the project", async () => {
  const { box, pane } = open()
  await pane.waitFor("tab agents")
  h.server.script(text("An answer to export."))
  pane.type("a question to export")
  pane.keys("Enter")
  await pane.waitFor("An answer to export.")
  await pane.waitFor("tab agents")
  pane.type("/export")
  pane.keys("Enter")
  // The editor renames its copy into place: once there, it is whole.
  const seen = path.join(box.home, "seen-by-editor.md")
  await vi.waitFor(() => expect(existsSync(seen)).toBe(true), { timeout: 20_000 })
  const md = readFileSync(seen, "utf8")
  expect(md).toContain("a question to export")
  expect(md).toContain("An answer to export.")
  expect(readdirSync(box.project).filter((f) => f.endsWith(".md"))).toEqual([])
})
