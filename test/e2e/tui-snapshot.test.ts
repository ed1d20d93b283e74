// Undo and redo in the real TUI (tmux, the built binary): the files a turn changed are shown
// with their counts, /diff lists them, /undo puts them back and says which, /redo returns them.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const test = base.skipIf(requires("tmux"))

vi.setConfig({ testTimeout: 150_000 })

let server: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  server = await startLLMServer({ strict: false })
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  server.reset()
})
afterAll(() => server.close())

test("tui snapshot - the changed files show with counts; /diff lists them; /undo restores and names them; /redo brings them back", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeFileSync(path.join(box.project, "notes.md"), "alpha\nbeta\n")
  server.script(
    toolCall("edit", { filePath: "notes.md", oldString: "beta", newString: "gamma\ndelta" }),
    toolCall("bash", { command: "echo made > made-by-bash.txt", description: "make a file" }),
    text("Changed both files."),
  )
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await pane.waitFor("tab agents")
  pane.type("change the notes")
  pane.keys("Enter")
  await pane.waitFor("Changed both files.")
  // Idle before /diff and /undo: /undo while the step still ends can meet a busy session.
  await pane.waitFor("tab agents")
  const counted = await pane.waitFor("2 files +3 -1")
  expect(counted).toContain("(/diff)")

  pane.type("/diff")
  pane.keys("Enter")
  const diff = await pane.waitFor("2 files changed")
  expect(diff).toContain("+++ b/notes.md")
  expect(diff).toMatch(/notes\.md.*\+2 -1/)
  expect(diff).toMatch(/made-by-bash\.txt.*\+1 -0/)

  pane.type("/undo")
  pane.keys("Enter")
  const undone = await pane.waitFor(/restored: .*notes\.md/)
  expect(undone).toMatch(/restored: (made-by-bash\.txt, notes\.md|notes\.md, made-by-bash\.txt)/)
  expect(readFileSync(path.join(box.project, "notes.md"), "utf8")).toBe("alpha\nbeta\n")
  expect(existsSync(path.join(box.project, "made-by-bash.txt"))).toBe(false)

  // The prompt gets the undone text back (after the restore is shown); clear it once it is
  // there, before typing the next command.
  await pane.waitFor(/│ change the notes\s+│/)
  pane.keys("C-u")
  await pane.waitFor(/│ Ask anything/)
  pane.type("/redo")
  pane.keys("Enter")
  await pane.waitFor(/redone\s+back: /)
  expect(readFileSync(path.join(box.project, "notes.md"), "utf8")).toBe("alpha\ngamma\ndelta\n")
  expect(readFileSync(path.join(box.project, "made-by-bash.txt"), "utf8")).toBe("made\n")
})
