// The real `wright` binary in a pseudo-terminal (tmux), with the scripted LLM behind it:
// what a person sees and types. Needs a build (`node scripts/build.mjs`).
import Database from "better-sqlite3"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

let server: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  // Not strict: a title request or any call the test did not script gets a plain "ok".
  server = await startLLMServer({ strict: false })
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  server.reset()
})
afterAll(() => server.close())

function open(box: Sandbox, args: string[] = []) {
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, ...args], { cwd: box.project, env: box.env })
  return pane
}

function project(extra: Record<string, unknown> = {}) {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), ...extra })
  return box
}

const PROMPT_READY = "tab agents"

describe("tui - in a terminal", () => {
  test("tui - a typed prompt streams the answer; quitting restores the terminal and -c resumes the saved session", async () => {
    const box = project()
    server.script({ text: ["The answer ", "streams in ", "**piece by piece**."], delayMs: 20 })
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("what is up?")
    pane.keys("Enter")
    const screen = await pane.waitFor("piece by piece.")
    expect(screen).toContain("❯ what is up?")
    expect(screen).toContain("The answer streams in piece by piece.")
    await pane.waitFor("▣ build · chat-model")

    pane.keys("C-d")
    const after = await pane.waitFor("[exited 0]")
    // Raw mode is off again: the shell's line discipline is back.
    expect(after).toMatch(/\bicanon\b/)
    expect(after).toMatch(/\becho\b/)

    const db = new Database(box.dbPath, { readonly: true })
    const sessions = db.prepare("SELECT id FROM session").all() as { id: string }[]
    const roles = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data).role)
    db.close()
    expect(sessions).toHaveLength(1)
    expect(roles).toEqual(["user", "assistant"])

    const again = open(box, ["-c"])
    const resumed = await again.waitFor("piece by piece.")
    expect(resumed).toContain("❯ what is up?")
    await again.waitFor(PROMPT_READY)
    again.keys("C-c")
    await again.waitFor("[exited 0]")
  })

  test("tui - a permission ask is answered in the dialog and the tool then runs", async () => {
    const box = project({ permission: { bash: "ask" } })
    server.script(
      toolCall("bash", { command: "echo from-the-tui > ran.txt", description: "Write a file" }),
      text("The file is written."),
    )
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("write the file")
    pane.keys("Enter")
    const dialog = await pane.waitFor("Permission required")
    expect(dialog).toContain("bash")
    expect(dialog).toContain("Allow once")
    expect(existsSync(path.join(box.project, "ran.txt"))).toBe(false)
    pane.keys("Enter")
    const done = await pane.waitFor("The file is written.")
    expect(done).toMatch(/✓ bash echo from-the-tui > ran.txt/)
    expect(done).not.toContain("Permission required")
    expect(readFileSync(path.join(box.project, "ran.txt"), "utf8")).toBe("from-the-tui\n")
  })

  test("tui - rejecting with a message tells the model and runs nothing", async () => {
    const box = project({ permission: { bash: "ask" } })
    server.script(toolCall("bash", { command: "rm -rf build", description: "Clean" }), text("Understood, I will not delete it."))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("clean up")
    pane.keys("Enter")
    await pane.waitFor("Permission required")
    pane.type("4")
    await pane.waitFor("Tell the model what to do instead")
    pane.type("keep the build folder")
    pane.keys("Enter")
    await pane.waitFor("Understood, I will not delete it.")
    expect(JSON.stringify(server.requests[1]!.body)).toContain("keep the build folder")
  })

  test("tui - /sessions switches to another session", async () => {
    const box = project()
    server.script(text("First answer."), text("Second answer."))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("first question")
    pane.keys("Enter")
    await pane.waitFor("First answer.")
    pane.type("/new")
    pane.keys("Enter")
    await pane.waitFor("wright  a terminal coding agent")
    pane.type("second question")
    pane.keys("Enter")
    await pane.waitFor("Second answer.")

    pane.type("/sessions")
    pane.keys("Enter")
    await pane.waitFor("↑↓ choose · enter open")
    pane.keys("Down")
    pane.keys("Enter")
    // The older session is printed again under its header, newest at the bottom.
    const screen = await pane.waitFor((s) => s.lastIndexOf("First answer.") > s.lastIndexOf("Second answer."))
    expect(screen.slice(screen.lastIndexOf("── "))).toContain("first question")
  })

  test("tui - Esc interrupts the running step", async () => {
    const box = project()
    server.script(text("never finished", { hang: "after-headers" }))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("take your time")
    pane.keys("Enter")
    await pane.waitFor("esc to interrupt")
    pane.keys("Escape")
    await pane.waitFor("interrupted")
    await pane.waitFor(PROMPT_READY)
  })

  test("tui - a large paste becomes one block and is sent whole", async () => {
    const box = project()
    server.script(text("Got your lines."))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n")
    pane.paste(lines)
    await pane.waitFor("[Pasted 30 lines #1]")
    pane.keys("Enter")
    await pane.waitFor("Got your lines.")
    const sent = JSON.stringify(server.requests[0]!.body)
    expect(sent).toContain("line 1\\nline 2")
    expect(sent).toContain("line 30")
  })

  test("tui - -s with an unknown id fails with a clear error before the UI starts", async () => {
    const box = project()
    const pane = open(box, ["-s", "ses_doesnotexist"])
    const screen = await pane.waitFor("[exited 1]")
    expect(screen).toContain("--session: no session with id ses_doesnotexist")
    expect(screen).not.toContain(PROMPT_READY)
  })
})

test("tui - without a terminal wright says so and points to `wright run`", async () => {
  const box = project()
  const { wright } = await import("../lib/e2e")
  writeFileSync(path.join(box.project, "x"), "")
  const r = await wright([], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain("needs a terminal")
})
