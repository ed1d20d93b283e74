// The command runner in-process against a real App (real SQLite, the real prompt pipeline and
// loop), with the model faked at the HTTP wire.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config"
import { createExec } from "../../src/process"
import type { BusEvent } from "../../src/protocol"
import { createApp, type App } from "../../src/session"
import { createCommandRunner, loadCommands } from "../../src/session/command"
import { openStore } from "../../src/storage"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"

let server: LLMServer
const cleanups: (() => Promise<void> | void)[] = []
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

async function setup(files: Record<string, string>, before?: (project: string) => void) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  for (const [name, body] of Object.entries(files)) {
    const file = path.join(box.project, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, body)
  }
  before?.(box.project)
  const store = openStore(box.dbPath)
  const app: App = await createApp({ directory: box.project, store, env: box.env, home: box.home })
  cleanups.push(async () => {
    await app.dispose()
    store.close()
  })
  const { dirs } = await loadConfig({ directory: box.project, env: box.env, home: box.home })
  const run = createCommandRunner({
    commands: () => loadCommands({ config: app.config, dirs }),
    sessions: app.sessions,
    agents: app.agents,
    bus: app.bus,
    directory: app.directory,
    worktree: app.worktree,
    exec: createExec({ env: box.env }),
  })
  const events: BusEvent[] = []
  app.bus.subscribeAll((e) => events.push(e))
  const session = app.sessions.create()
  return { app, run, session, events, box }
}

/** The text of the last user message the model received (openai-chat). */
function lastUserText(body: { messages: { role: string; content: unknown }[] }): string {
  const user = body.messages.filter((m) => m.role === "user").at(-1)!
  if (typeof user.content === "string") return user.content
  return (user.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n")
}

describe("command runner", () => {
  it("command runner - sends the expanded template with the arguments and publishes command.executed", async () => {
    const { app, run, session, events } = await setup({ ".wright/command/greet.md": "---\ndescription: greet someone\n---\nSay hello to $1 from $2.\n" })
    server.script(text("Hello, Ada!"))

    const result = await run(session.id, { command: "greet", arguments: `"Ada Lovelace" the whole team` })

    expect(server.requests).toHaveLength(1)
    expect(lastUserText(server.requests[0]!.body)).toBe("Say hello to Ada Lovelace from the whole team.")
    expect(result.info.role).toBe("assistant")
    expect(result.parts.some((p) => p.type === "text" && p.text === "Hello, Ada!")).toBe(true)
    const executed = events.filter((e) => e.type === "command.executed")
    expect(executed.map((e) => e.properties)).toEqual([{ name: "greet", sessionID: session.id, arguments: `"Ada Lovelace" the whole team`, messageID: result.info.id }])
    const user = app.sessions.messages(session.id).find((m) => m.info.role === "user")!
    expect(user.info).toMatchObject({ agent: "build" })
  })

  it("command runner - an @file in the template reaches the model as the file's content", async () => {
    const { run, session } = await setup({
      "notes.txt": "the secret word is pelican\n",
      ".wright/command/summarize.md": "Summarize @notes.txt briefly.",
    })
    server.script(text("Done."))
    await run(session.id, { command: "summarize", arguments: "" })
    const body = JSON.stringify(server.requests[0]!.body)
    expect(body).toContain("Summarize @notes.txt briefly.")
    expect(body).toContain("the secret word is pelican")
  })

  it("command runner - an unknown command is a BadRequestError listing the available ones", async () => {
    const { run, session, events } = await setup({ ".wright/command/greet.md": "Hi $1" })
    const attempt = run(session.id, { command: "gret", arguments: "x" })
    await expect(attempt).rejects.toMatchObject({ name: "BadRequestError" })
    await expect(attempt).rejects.toThrow('Command not found: "gret". Available commands: greet, init, review')
    expect(server.requests).toHaveLength(0)
    expect(events.some((e) => e.type === "command.executed")).toBe(false)
  })

  it("command runner - a bad model or an unknown agent is rejected before the model is called", async () => {
    const { run, session } = await setup({ ".wright/command/greet.md": "Hi $1" })
    await expect(run(session.id, { command: "greet", arguments: "x", model: "nomodel" })).rejects.toThrow('model: expected "provider/model" (e.g. anthropic/claude-sonnet-4-5), got "nomodel"')
    await expect(run(session.id, { command: "greet", arguments: "x", agent: "nobody" })).rejects.toMatchObject({ name: "AgentNotFoundError" })
    expect(server.requests).toHaveLength(0)
  })
})

describe("/review", () => {
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, stdio: "pipe" }).toString()
  /** A repository on main with one commit, a feature branch with one more, then back on main. */
  function repo(project: string) {
    git(project, "init", "-q", "-b", "main")
    writeFileSync(path.join(project, "calc.js"), "export const add = (a, b) => a + b\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "calc")
    git(project, "checkout", "-qb", "feature")
    writeFileSync(path.join(project, "calc.js"), "export const add = (a, b) => a - b\n")
    git(project, "commit", "-qam", "feature: subtract instead")
    git(project, "checkout", "-q", "main")
  }

  it("review - with no argument the model gets the uncommitted diff, new files included, and the review instructions", async () => {
    const { run, session } = await setup({}, (p) => {
      repo(p)
      writeFileSync(path.join(p, "calc.js"), "export const add = (a, b) => a + b + 1\n")
      writeFileSync(path.join(p, "new.js"), "export const fresh = true\n")
    })
    server.script(text("calc.js:1 — major — off by one."))
    await run(session.id, { command: "review", arguments: "" })
    const sent = lastUserText(server.requests[0]!.body)
    expect(sent).toContain("Review the uncommitted changes in the working tree")
    expect(sent).toContain("-export const add = (a, b) => a + b\n+export const add = (a, b) => a + b + 1")
    expect(sent).toContain("+export const fresh = true")
    expect(sent).toContain("`path/to/file.ext:LINE`")
  })

  it("review - a commit, a branch against its base, and the current branch against a named base", async () => {
    const { run, session, box } = await setup({}, repo)
    server.script(text("ok"), text("ok"))
    await run(session.id, { command: "review", arguments: "feature" })
    const branch = lastUserText(server.requests[0]!.body)
    expect(branch).toContain("Review branch feature against its base main")
    expect(branch).toContain("feature: subtract instead")
    expect(branch).toContain("+export const add = (a, b) => a - b")

    await run(session.id, { command: "review", arguments: "main~0" })
    const commit = lastUserText(server.requests.at(-1)!.body)
    expect(commit).toMatch(/Review commit [0-9a-f]{12}\./)
    expect(commit).toContain("+export const add = (a, b) => a + b")

    git(box.project, "checkout", "-q", "feature")
    server.script(text("ok"))
    await run(session.id, { command: "review", arguments: "branch main" })
    const current = lastUserText(server.requests.at(-1)!.body)
    expect(current).toContain("Review branch feature against its base main")
    expect(current).toContain("+export const add = (a, b) => a - b")
  })

  it("review - nothing to review, a name that is no commit, and no repository are clear errors before any model call", async () => {
    const { run, session } = await setup({}, repo)
    await expect(run(session.id, { command: "review", arguments: "" })).rejects.toThrow("Nothing to review: there are no uncommitted changes")
    await expect(run(session.id, { command: "review", arguments: "nosuch" })).rejects.toThrow('/review: "nosuch" is neither a commit nor a branch of this repository')
    await expect(run(session.id, { command: "review", arguments: "branch" })).rejects.toThrow("/review branch: no base branch found for main")
    await expect(run(session.id, { command: "review", arguments: "branch feature" })).rejects.toThrow("Nothing to review: main has no changes against feature")
    const bare = await setup({})
    await expect(bare.run(bare.session.id, { command: "review", arguments: "" })).rejects.toThrow("/review needs a git repository")
    expect(server.requests).toHaveLength(0)
  })

  it("review - a hostile repository: its diff driver, textconv and a snippet or mention inside the diff never run", async () => {
    const { run, session, box } = await setup({}, (p) => {
      repo(p)
      const pwned = path.join(p, "..", "pwned")
      git(p, "config", "diff.external", `sh -c 'touch ${pwned}-external'`)
      git(p, "config", "diff.evil.textconv", `sh -c 'touch ${pwned}-textconv; cat "$0"'`)
      writeFileSync(path.join(p, ".gitattributes"), "*.js diff=evil\n")
      writeFileSync(path.join(p, "calc.js"), `export const add = (a, b) => a + b // !\`touch ${pwned}-snippet\` @../secret.txt\n`)
      writeFileSync(path.join(p, "..", "secret.txt"), "top secret\n")
    })
    server.script(text("ok"))
    await run(session.id, { command: "review", arguments: "" })
    const pwned = path.join(box.project, "..", "pwned")
    for (const how of ["external", "textconv", "snippet"]) expect(existsSync(`${pwned}-${how}`), how).toBe(false)
    const body = JSON.stringify(server.requests[0]!.body)
    expect(body).toContain("!`touch")
    expect(body).not.toContain("top secret")
  })
})
