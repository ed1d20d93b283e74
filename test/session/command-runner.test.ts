// The command runner in-process against a real App (real SQLite, the real prompt pipeline and
// loop), with the model faked at the HTTP wire.
import { mkdirSync, writeFileSync } from "node:fs"
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

async function setup(files: Record<string, string>) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  for (const [name, body] of Object.entries(files)) {
    const file = path.join(box.project, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, body)
  }
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
    await expect(attempt).rejects.toThrow('Command not found: "gret". Available commands: greet, init')
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
