// The pager (issue 35 part 6), with the built binary in tmux against the scripted model: /diff
// of a change taller than the screen opens a scrollable view instead of flooding the
// scrollback; keys page through it, `/` finds text, `q` leaves it and the prompt is back as
// it was. ctrl+o opens a large tool output there too; a small /diff is still printed.
import { expect, test as base } from "vitest"
import { requires } from "../lib/requires"
import { text, toolCall } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { tuiHarness } from "../lib/tui-harness"

const test = base.skipIf(requires("tmux"))
const h = tuiHarness()

function open() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(h.server, "openai-chat"))
  const pane = h.pane()
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env, rows: 30 })
  return { box, pane }
}

const big = Array.from({ length: 150 }, (_, i) => `line number ${i + 1} of the big file`).join("\n") + "\nthe needle is here\n"

test("tui pager - /diff of a large change pages: keys scroll, / finds, q comes back to the prompt", async () => {
  const { box, pane } = open()
  await pane.waitFor("tab agents")
  h.server.script(toolCall("write", { filePath: `${box.project}/big.txt`, content: big }), text("Wrote the big file."))
  pane.type("write a big file")
  pane.keys("Enter")
  await pane.waitFor("Wrote the big file.")
  await pane.waitFor("tab agents")

  pane.type("/diff")
  pane.keys("Enter")
  // Waited for whole: a capture may catch the frame half drawn.
  const first = await pane.waitFor((s) => s.includes("diff: this session's changes") && /lines 1-\d+ of 15\d/.test(s) && !s.includes("tab agents"))
  expect(first).toContain("+line number 1 of the big file")
  expect(first).not.toContain("the needle is here")
  // The prompt and status line give way to the pager.
  expect(first).not.toContain("tab agents")

  pane.keys("PageDown")
  await pane.waitFor(/lines 2\d-/)
  pane.type("/")
  pane.type("needle")
  await pane.waitFor("/needle")
  pane.keys("Enter")
  await pane.waitFor((s) => s.includes("+the needle is here") && s.includes("(end)"))
  pane.type("/")
  pane.type("no such text")
  pane.keys("Enter")
  await pane.waitFor("not found: no such text")

  pane.type("q")
  // The main screen comes back as it was: the conversation above the prompt.
  // Waited for whole (the prompt's placeholder too): a capture may catch the frame half drawn.
  const back = await pane.waitFor((s) => s.includes("Wrote the big file.") && s.includes("tab agents") && s.includes("Ask anything") && !s.includes("diff: this session's changes"))
  expect(back).not.toContain("diff: this session's changes")
  expect(back).toContain("❯ write a big file")
  expect(back.match(/Ask anything/g)).toHaveLength(1)
  // The pager had the alternate screen: the scrollback kept the conversation, not the diff.
  expect(pane.all()).not.toContain("+line number 40 of the big file")
})

test("tui pager - ctrl+o opens a large tool output in the pager; a small /diff is printed as before", async () => {
  const { box, pane } = open()
  await pane.waitFor("tab agents")
  h.server.script(toolCall("bash", { command: "seq 1 120 | sed 's/^/out /'", description: "Count" }), text("Counted."))
  pane.type("count")
  pane.keys("Enter")
  await pane.waitFor("Counted.")
  await pane.waitFor("tab agents")
  pane.keys("C-o")
  const paged = await pane.waitFor(/lines 1-\d+ of 12\d/)
  expect(paged).toContain("out 1")
  pane.keys("End")
  await pane.waitFor("out 120")
  pane.keys("Escape")
  await pane.waitFor("tab agents")

  h.server.script(toolCall("write", { filePath: `${box.project}/small.txt`, content: "just one line\n" }), text("Small one."))
  pane.type("write a small file")
  pane.keys("Enter")
  await pane.waitFor("Small one.")
  // The write's own result shows "+just one line" too: wait for the turn to end, then for /diff's own heading.
  await pane.waitFor("tab agents")
  pane.type("/diff")
  pane.keys("Enter")
  const printed = await pane.waitFor(/\d+ files? changed/)
  expect(printed).toContain("+just one line")
  expect(printed).not.toContain("diff: this session's changes")
  expect(printed).toContain("tab agents")
})
