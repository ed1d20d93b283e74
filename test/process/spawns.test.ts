// Every child process an App starts for the model or the user goes through its one spawner:
// a recording exec given to the App (it delegates to a real one) sees the bash tool's
// command, the user's `!cmd`, a command template's snippet and an MCP stdio server's start.
import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base } from "vitest"
import { createExec, type Exec, type ExecOptions } from "../../src/process"
import { createApp, createShells } from "../../src/session"
import { openStore } from "../../src/storage"
import { bash, runTool } from "../../src/tool"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { tempDir, toolContext } from "../lib/tool-context"
import { FIXTURE_SERVER } from "../mcp/harness"
import { requires } from "../lib/requires"

// Both cases run commands in the sandbox (bubblewrap): without bwrap they are skipped, saying so.
const test = base.skipIf(requires("bwrap"))

interface Spawn {
  argv: string[]
  opts: ExecOptions
}

function recording(real: Exec): { exec: Exec; spawns: Spawn[] } {
  const spawns: Spawn[] = []
  return {
    spawns,
    exec: (argv, opts) => {
      spawns.push({ argv, opts })
      return real(argv, opts)
    },
  }
}

/** The `-c` script of each shell spawn. */
const scripts = (spawns: Spawn[]) => spawns.filter((s) => s.argv[1] === "-c").map((s) => s.argv[2])

let llm: LLMServer
const cleanups: (() => Promise<void> | void)[] = []
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("spawner - the bash tool starts its command only through ctx.services.exec", async () => {
  const { exec, spawns } = recording(createExec({ env: process.env }))
  const ctx = toolContext({ exec })
  const result = await runTool(bash, { command: "echo through the spawner" }, ctx)
  expect(result.output).toBe("through the spawner\n")
  expect(scripts(spawns)).toEqual(["echo through the spawner"])
  expect(spawns[0]!.opts).toMatchObject({ cwd: ctx.directory, env: { TERM: "dumb", PAGER: "cat" } })

  // An exec that refuses: nothing else starts the command.
  const dir = tempDir()
  const refusing = toolContext({ directory: dir, exec: async () => Promise.reject(new Error("refused by the test")) })
  await expect(runTool(bash, { command: "touch marker" }, refusing)).rejects.toThrow("refused by the test")
  expect(existsSync(path.join(dir, "marker"))).toBe(false)
})

test("spawner - an App starts the model's bash call, the user's !cmd, a template's snippet and an MCP stdio server through its one exec", async () => {
  const box = sandbox()
  writeConfig(box.project, {
    ...providerConfig(llm, "openai-chat"),
    mcp: { fx: { type: "local", command: [process.execPath, FIXTURE_SERVER] } },
    command: { snip: { template: "Snippet said: !`echo snippet-ran`" } },
  })
  const store = openStore(":memory:")
  const { exec, spawns } = recording(createExec({ env: box.env }))
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, exec })
  cleanups.push(async () => {
    await app.dispose()
    store.close()
  })

  await app.mcp.ready()
  expect(app.mcp.status().fx).toEqual({ status: "connected" })
  expect(spawns.map((s) => s.argv)).toEqual([[process.execPath, FIXTURE_SERVER]])
  expect(spawns[0]!.opts).toMatchObject({ cwd: box.project, stdin: "pipe" })

  const session = app.sessions.create()
  llm.script(toolCall("bash", { command: "echo model-ran" }), text("done"))
  await app.sessions.prompt(session.id, { parts: [{ type: "text", text: "run it" }] })

  await createShells(app).run(session.id, { command: "echo user-ran" })

  llm.script(text("ok"))
  await app.sessions.command(session.id, { command: "snip", arguments: "" })

  expect(scripts(spawns)).toEqual(["echo model-ran", "echo user-ran", "echo snippet-ran"])
  expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain("Snippet said: snippet-ran")
  // The App's one sandbox goes with every command, and with the MCP server the project defines.
  expect(app.sandbox.state).toBe("on")
  expect(spawns.filter((s) => s.argv[1] === "-c").map((s) => s.opts.sandbox)).toEqual([app.sandbox, app.sandbox, app.sandbox])
  expect(spawns[0]!.opts.sandbox).toBe(app.sandbox)
})

test("spawner - a project's MCP stdio server always runs in the sandbox; the user's own only when its entry says sandbox: true", async () => {
  const box = sandbox()
  // The fixture writes a pid file where it is told at start-up: outside the project, the sandbox refuses it.
  const server = (name: string, extra: Record<string, unknown>) => ({
    type: "local",
    command: [process.execPath, FIXTURE_SERVER],
    environment: { FIXTURE_CHILD_PID: path.join(box.home, `${name}.pid`) },
    ...extra,
  })
  const globalDir = path.join(box.home, "config", "wright")
  mkdirSync(globalDir, { recursive: true })
  writeConfig(globalDir, { mcp: { boxed: server("boxed", { sandbox: true }), free: server("free", {}) } })
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), mcp: { project: server("project", {}) } })
  const store = openStore(":memory:")
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home })
  cleanups.push(async () => {
    await app.dispose()
    store.close()
  })
  await app.mcp.ready()
  const status = app.mcp.status()
  expect(status.free).toEqual({ status: "connected" })
  expect(existsSync(path.join(box.home, "free.pid"))).toBe(true)
  expect(status.boxed).toMatchObject({ status: "failed", error: expect.stringMatching(/EROFS: read-only file system/) })
  expect(existsSync(path.join(box.home, "boxed.pid"))).toBe(false)
  expect(status.project).toMatchObject({ status: "failed", error: expect.stringMatching(/EROFS: read-only file system/) })
  expect(existsSync(path.join(box.home, "project.pid"))).toBe(false)
})
