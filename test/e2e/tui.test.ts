// The real `wright` binary in a pseudo-terminal (tmux), with the scripted LLM behind it:
// what a person sees and types. Needs a build (`node scripts/build.mjs`).
import Database from "better-sqlite3"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, describe as base, expect, test, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { Tmux } from "../tui/tmux"
import { startServe, stopServe } from "./serve-helpers"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const describe = base.skipIf(requires("tmux"))

// Each test drives a real process in a terminal; a loaded machine can make that slow.
vi.setConfig({ testTimeout: 120_000 })

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

/** Every request body the model received, as one string (a title request may come in between). */
const sentToModel = () => server.requests.map((r) => JSON.stringify(r.body)).join("\n")

function project(extra: Record<string, unknown> = {}) {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), ...extra })
  return box
}

const PROMPT_READY = "tab agents"

/** After wright exits, the pane prints its exit code and then the terminal's line mode. */
const exited = (pane: Tmux, code: number) => pane.waitFor(new RegExp(`\\[exited ${code}\\]\\s*\\n\\s*-?icanon -?echo`))

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
    const after = await exited(pane, 0)
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

  test("tui - keys typed while it starts are not echoed by the terminal, and their Enter sends them once the prompt is up", async () => {
    const box = project()
    server.script(text("typed ahead, answered"))
    const pane = open(box)
    // The terminal leaves line mode before the UI has drawn anything (the process is still
    // loading it): from then on, keys wait for the prompt instead of being echoed.
    let mode = ""
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !/-icanon/.test(mode); ) {
      mode = pane.ttyMode()
      if (!/-icanon/.test(mode)) await new Promise((r) => setTimeout(r, 5))
    }
    expect(mode).toMatch(/-icanon/)
    expect(pane.screen()).not.toContain("a terminal coding agent")
    pane.type("hello there")
    pane.keys("Enter")
    const screen = await pane.waitFor("typed ahead, answered")
    expect(screen).toContain("❯ hello there")
    // Nothing was printed above the UI by the terminal's own echo.
    expect(pane.all()).not.toMatch(/^hello there\s*$/m)
    expect(sentToModel()).toContain("hello there")
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
    // The line is the bash tool's summary: the command as it ran.
    expect(done).toMatch(/✓ \$ echo from-the-tui > ran.txt/)
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
    expect(sentToModel()).toContain("keep the build folder")
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

  test("tui - @file completes from the project and the file goes to the model", async () => {
    const box = project()
    writeFileSync(path.join(box.project, "notes-for-the-model.txt"), "the secret word is pelican\n")
    server.script(text("Read it."))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("summarize @notes-for")
    await pane.waitFor("@notes-for-the-model.txt")
    pane.keys("Tab")
    await pane.waitFor("summarize @notes-for-the-model.txt ")
    pane.keys("Enter")
    await pane.waitFor("Read it.")
    expect(sentToModel()).toContain("the secret word is pelican")
  })

  test.each([
    ["Ctrl+D", 0],
    ["SIGTERM", 0],
    ["SIGHUP", 129],
  ] as const)("tui - quitting with %s while the agent works settles the running step and saves it", async (how, code) => {
    const box = project()
    server.script(text("half an answer", { hang: 2 }))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("work forever")
    pane.keys("Enter")
    await pane.waitFor("esc to interrupt")
    if (how === "Ctrl+D") pane.keys("C-d")
    else pane.signal(how)
    await exited(pane, code)
    const db = new Database(box.dbPath, { readonly: true })
    const messages = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data))
    db.close()
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"])
    expect(messages[1].time.completed).toBeGreaterThan(0)
    expect(messages[1].error?.name).toBe("MessageAbortedError")
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
    const sent = sentToModel()
    expect(sent).toContain("line 1\\nline 2")
    expect(sent).toContain("line 30")
  })

  test("tui - --prompt is sent at start with --agent and --model", async () => {
    const box = project()
    server.script(text("Planned."))
    const pane = open(box, ["--prompt", "plan the work", "--agent", "plan", "--model", "fake/chat-model"])
    const screen = await pane.waitFor("▣ plan · chat-model")
    expect(screen).toContain("❯ plan the work")
    expect(screen).toContain("Planned.")
  })

  test("tui - -s with an unknown id fails with a clear error before the UI starts", async () => {
    const box = project()
    const pane = open(box, ["-s", "ses_doesnotexist"])
    const screen = await exited(pane, 1)
    expect(screen).toContain("--session: no session with id ses_doesnotexist")
    expect(screen).not.toContain(PROMPT_READY)
    // The terminal left line mode for type-ahead as wright started; it is back in it.
    expect(screen).toMatch(/^icanon echo/m)
  })

  test("tui - attach to a server that is not there fails before the UI and leaves the terminal in line mode", async () => {
    const box = project()
    const pane = open(box, ["attach", "http://127.0.0.1:9"])
    const screen = await exited(pane, 1)
    expect(screen).toContain("http://127.0.0.1:9: cannot reach the server")
    expect(screen).toMatch(/^icanon echo/m)
  })
})

describe("tui - server, attach and failures", () => {
  test("tui - --port also serves the HTTP API and shows its URL", async () => {
    const box = project()
    const pane = open(box, ["--port", "0"])
    const screen = await pane.waitFor(/Server listening on http:\/\/127\.0\.0\.1:\d+/)
    const url = /Server listening on (http:\/\/\S+)/.exec(screen)![1]!
    const res = await fetch(`${url}/session`)
    expect(res.status).toBe(200)
    expect(Array.isArray(await res.json())).toBe(true)
  })

  test("tui - attach runs the same UI against a running wright serve, with its password", async () => {
    const box = project()
    server.script(text("Answered by the served core."))
    const serve = await startServe(box, [], { WRIGHT_SERVER_PASSWORD: "s3cret" })
    const url = serve.url
    try {
      const wrong = open(box, ["attach", url, "-p", "nope"])
      expect(await wrong.waitFor("[exited 1]")).toContain("wrong or missing password")
      const pane = open(box, ["attach", url, "-p", "s3cret"])
      await pane.waitFor(PROMPT_READY)
      pane.type("hello server")
      pane.keys("Enter")
      await pane.waitFor("Answered by the served core.")
    } finally {
      await stopServe(serve)
    }
  })

  test("tui - a broken config ends the UI with an error naming the file, and leaves the terminal as it was", async () => {
    const box = sandbox()
    writeFileSync(path.join(box.project, "wright.json"), '{ "model": 42 }')
    const pane = open(box)
    const screen = await exited(pane, 1)
    expect(screen).toContain("wright.json")
    expect(screen).toMatch(/\bicanon\b/)
    expect(screen).not.toContain("Ask anything")
  })

  test("tui - !command runs in the shell and its output shows under it; /undo puts the last prompt back", async () => {
    const box = project()
    server.script(text("Sure."))
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    pane.type("!echo shell-said-hi")
    pane.keys("Enter")
    const shell = await pane.waitFor("✓ $ echo shell-said-hi")
    expect(shell).toMatch(/^\s+shell-said-hi$/m)
    pane.type("a prompt to take back")
    pane.keys("Enter")
    await pane.waitFor("Sure.")
    // Idle first: /undo while the step still ends aborts it and its revert can meet a busy
    // session (a product race, reported separately); this test is about undo itself.
    await pane.waitFor(PROMPT_READY)
    pane.type("/undo")
    pane.keys("Enter")
    const undone = await pane.waitFor("undone: a prompt to take back")
    expect(undone).toMatch(/│ a prompt to take back\s+│/)
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
