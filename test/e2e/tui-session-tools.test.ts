// The TUI's session tools (issue 35 part 5), with the built binary in tmux against the scripted
// model: /copy puts the last answer on the clipboard through OSC 52 (read from the pane's raw
// output), /rename retitles the session for `wright session list` too, /fork starts a session
// with the messages before the chosen prompt (what the model is sent next proves it), /timeline
// undoes from a chosen prompt, and /auto answers permission asks while its marker shows.
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { text, toolCall } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { tuiHarness } from "../lib/tui-harness"
import { Tmux } from "../tui/tmux"

const test = base.skipIf(requires("tmux"))
const h = tuiHarness()

function open(config: Record<string, unknown> = {}) {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(h.server, "openai-chat"), ...config })
  const pane = h.pane()
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  return { box, pane }
}

/** Everything the program writes to the pane from now on, escape sequences included. */
function rawOutput(pane: Tmux): () => string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "wright-raw-")), "out")
  execFileSync("tmux", ["-L", pane.socket, "pipe-pane", "-o", "-t", "t", `cat >> ${file}`])
  return () => (existsSync(file) ? readFileSync(file, "latin1") : "")
}

const sent = () => JSON.stringify(h.server.requests.at(-1)!.body)

async function ask(pane: Tmux, prompt: string, answer: string) {
  h.server.script(text(answer))
  pane.type(prompt)
  pane.keys("Enter")
  await pane.waitFor(answer)
  await pane.waitFor("tab agents")
}

test("tui session tools - /copy sends the last answer as OSC 52, /rename retitles, /fork keeps the messages before the chosen prompt", async () => {
  const { box, pane } = open()
  await pane.waitFor("tab agents")
  await ask(pane, "first question", "Answer one.")
  await ask(pane, "second question", "The second answer, with ünïcode.")

  const raw = rawOutput(pane)
  pane.type("/copy")
  pane.keys("Enter")
  await pane.waitFor("Copied the last answer")
  const b64 = Buffer.from("The second answer, with ünïcode.", "utf8").toString("base64")
  await vi.waitFor(() => expect(raw()).toContain(`\x1b]52;c;${b64}\x07`), { timeout: 10_000 })

  pane.type("/rename Release checklist")
  pane.keys("Enter")
  await pane.waitFor("Renamed to “Release checklist”")
  const list = await wright(["session", "list"], { cwd: box.project, env: box.env })
  expect(list.stdout).toContain("Release checklist")

  pane.type("/fork")
  pane.keys("Enter")
  const picker = await pane.waitFor("Fork from a prompt")
  expect(picker).toContain("second question")
  expect(picker).toContain("first question")
  // Newest first: the second prompt is chosen; the fork holds what came before it, and its text returns to the prompt.
  pane.keys("Enter")
  const forked = await pane.waitFor("Forked into “Release checklist (fork #1)”")
  expect(forked).toMatch(/❯ second question|second question█|second question/)
  h.server.script(text("Forked answer."))
  pane.keys("End", " again")
  pane.keys("Enter")
  await pane.waitFor("Forked answer.")
  const body = sent()
  expect(body).toContain("first question")
  expect(body).toContain("Answer one.")
  expect(body).toContain("second question again")
  expect(body).not.toContain("The second answer")
  const after = await wright(["session", "list"], { cwd: box.project, env: box.env })
  expect(after.stdout).toContain("Release checklist (fork #1)")
})

test("tui session tools - /timeline undoes from the chosen prompt on and gives its text back", async () => {
  const { pane } = open()
  await pane.waitFor("tab agents")
  await ask(pane, "alpha prompt", "Alpha answer.")
  await ask(pane, "beta prompt", "Beta answer.")
  await ask(pane, "gamma prompt", "Gamma answer.")
  pane.type("/timeline")
  pane.keys("Enter")
  await pane.waitFor("Timeline: undo from a prompt on")
  pane.keys("Down")
  pane.keys("Enter")
  await pane.waitFor("↶ back to: beta prompt")
  h.server.script(text("Fresh answer."))
  pane.keys("Enter")
  await pane.waitFor("Fresh answer.")
  const body = sent()
  expect(body).toContain("Alpha answer.")
  expect(body).not.toContain("Beta answer.")
  expect(body).not.toContain("gamma prompt")
})

test("tui session tools - /auto shows its marker and allows a permission ask without the dialog; off, the dialog asks again", async () => {
  const { box, pane } = open({ permission: { bash: "ask" } })
  await pane.waitFor("tab agents")
  pane.type("/auto")
  pane.keys("Enter")
  // The status line's marker (the transcript's lines say "auto-approved").
  await pane.waitFor(/build ⏵⏵ auto-approve ·/)
  h.server.script(toolCall("bash", { command: "echo auto > ran.txt", description: "Write a file" }), text("Written while auto."))
  pane.type("write the file")
  pane.keys("Enter")
  const done = await pane.waitFor("Written while auto.")
  expect(done).toContain("auto-approved bash")
  expect(pane.all()).not.toContain("Permission required")
  expect(readFileSync(path.join(box.project, "ran.txt"), "utf8")).toBe("auto\n")

  pane.type("/auto")
  pane.keys("Enter")
  await pane.waitFor("Auto-approve off")
  expect(pane.screen()).not.toMatch(/⏵⏵ auto-approve(?!d)/)
  h.server.script(toolCall("bash", { command: "echo again > ran2.txt", description: "Write another" }), text("Asked this time."))
  pane.type("write another")
  pane.keys("Enter")
  await pane.waitFor("Permission required")
  pane.keys("Enter")
  await pane.waitFor("Asked this time.")
})

test("tui session tools - /models lists favourites (ctrl+f) then recents first, kept for the next launch", async () => {
  const config = providerConfig(h.server, "openai-chat") as { provider: { fake: { models: Record<string, unknown> } } }
  const limit = { context: 200_000, output: 8_000 }
  const models = { "alpha-model": { limit }, "chat-model": { limit }, "zeta-model": { limit } }
  const { box, pane } = open({ provider: { fake: { ...config.provider.fake, models } } })
  await pane.waitFor("tab agents")
  pane.type("/models")
  pane.keys("Enter")
  await pane.waitFor("Models")
  pane.type("zeta")
  // The list may still be loading: choose once the row is there, and go on once the status line names it.
  await pane.waitFor("fake/zeta-model")
  pane.keys("Enter")
  await pane.waitFor("build · fake/zeta-model")
  pane.type("/models")
  pane.keys("Enter")
  // The recent one leads; ctrl+f stars the selected row (the recent), which then leads as a favourite.
  const picker = await pane.waitFor(/fake\/zeta-model\s+recent/)
  expect(picker.indexOf("fake/zeta-model")).toBeLessThan(picker.indexOf("fake/alpha-model"))
  pane.keys("Down")
  pane.keys("C-f")
  await pane.waitFor("★ fake/alpha-model")
  pane.keys("Escape")
  pane.keys("C-d")
  await pane.waitFor("[exited")

  const again = h.pane()
  again.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await again.waitFor("tab agents")
  again.type("/models")
  again.keys("Enter")
  const listed = await again.waitFor("★ fake/alpha-model")
  const order = ["★ fake/alpha-model", "fake/zeta-model", "fake/chat-model"].map((m) => listed.indexOf(m))
  expect(order.every((i) => i >= 0)).toBe(true)
  expect(order).toEqual([...order].sort((a, b) => a - b))
})

test("tui session tools - /mcps switches a server off for the session: its tools leave the next request; on again, they come back", async () => {
  const fixture = path.join(import.meta.dirname, "../mcp/fixtures/stdio-server.mjs")
  const { pane } = open({ mcp: { fixture: { type: "local", command: [process.execPath, fixture] } } })
  await pane.waitFor("tab agents")
  await ask(pane, "first", "One.")
  expect(sent()).toContain("fixture_echo")
  pane.type("/mcps")
  pane.keys("Enter")
  await pane.waitFor(/● fixture\s+on · connected/)
  pane.keys("Enter")
  await pane.waitFor("MCP server fixture is off for this session")
  await ask(pane, "second", "Two.")
  expect(sent()).not.toContain("fixture_echo")
  expect(sent()).toContain("\"bash\"")
  pane.type("/mcps")
  pane.keys("Enter")
  await pane.waitFor(/○ fixture\s+off for this session/)
  pane.keys("Enter")
  await pane.waitFor("MCP server fixture is on again for this session")
  await ask(pane, "third", "Three.")
  expect(sent()).toContain("fixture_echo")
})
