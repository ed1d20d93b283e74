// MCP servers' prompts are commands from the first moment: `wright run --command server:prompt`
// (the built binary) and `GET /command` right after start wait for the configured servers to
// connect, each within its timeout. The real server-everything over stdio.
import { createRequire } from "node:module"
import { expect, test } from "vitest"
import { testCore } from "../lib/core"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { text } from "../lib/llm-server"

const require = createRequire(import.meta.url)
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const ev = { type: "local", command: [process.execPath, EVERYTHING, "stdio"] }

const server = useLLMServer()

test("mcp ready - run --command server:prompt at start-up waits for the server and sends its prompt", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), mcp: { ev } })
  server.script(text("Did the simple thing."))
  const r = await wright(["run", "--command", "ev:simple-prompt"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  // Before, this was 'Command not found: "ev:simple-prompt"': commands were resolved before the server connected.
  expect(r.stderr).not.toContain("Command not found")
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain("Did the simple thing.")
  expect(JSON.stringify(server.requests[0]!.body)).toContain("This is a simple prompt without arguments.")
}, 120_000)

test("mcp ready - a server that failed to connect is named when its prompt is asked for", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), mcp: { broken: { type: "local", command: [process.execPath, "-e", "process.exit(3)"] } } })
  const r = await wright(["run", "--command", "broken:review"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(/Command not found: "broken:review"\. MCP server "broken" is failed: /)
}, 120_000)

test("mcp ready - GET /command right after start lists the server's prompts", async () => {
  const core = await testCore({ llm: server, config: { mcp: { ev } } })
  try {
    // No wait for the server here: the route does it.
    const names = (await core.client.command.list()).map((c) => c.name)
    expect(names).toEqual(expect.arrayContaining(["ev:simple-prompt", "ev:args-prompt"]))
  } finally {
    await core.close()
  }
}, 120_000)
