// MCP servers an editor passes in session/new: the real @modelcontextprotocol/server-everything
// over stdio, started for that session alone (its tools offered to that session's model only,
// the editor's env reaching the server), called by the scripted model, stopped on session/close.
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import net from "node:net"
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import * as acp from "@agentclientprotocol/sdk/unstable"
import { expect, test, vi } from "vitest"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { acpSuite, initialize, ofKind, startEditor } from "./harness"

vi.setConfig({ testTimeout: 180_000 })

const require = createRequire(import.meta.url)
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const m = acp.methods
const suite = acpSuite()

/** Processes whose environment carries `marker` (the server the editor asked for, by the env it was given). */
function withMarker(marker: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`WRIGHT_ACP_MARK=${marker}`)) pids.push(Number(entry))
    } catch {
      // gone, or not ours
    }
  }
  return pids
}

async function until(pred: () => boolean, what: string, ms = 20_000) {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

const toolNames = (i: number) => (suite.llm.requests[i]!.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? []

test("acp - an MCP server passed in session/new serves that session only, its tool is called, and it stops on session/close", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(suite.llm, "openai-chat"))
  const editor = await startEditor(box)
  suite.track(editor)
  const init = await initialize(editor)
  expect(init.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true, sse: true })

  const marker = randomUUID()
  const mcpServers: acp.McpServer[] = [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [{ name: "WRIGHT_ACP_MARK", value: marker }] }]
  const withServer = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers })
  expect(withMarker(marker)).toHaveLength(1)
  const without = await editor.agent.request(m.agent.session.new, { cwd: box.project, mcpServers: [] })

  suite.llm.script(toolCall("everything_echo", { message: "ping from the editor's server" }), text("It echoed."))
  const result = await editor.agent.request(m.agent.session.prompt, { sessionId: withServer.sessionId, prompt: [{ type: "text", text: "echo something" }] })
  expect(result.stopReason).toBe("end_turn")
  expect(toolNames(0)).toContain("everything_echo")
  const [call, ...more] = ofKind(editor.updates, "tool_call")
  expect(more).toEqual([])
  const done = ofKind(editor.updates, "tool_call_update").filter((u) => u.toolCallId === call!.toolCallId).at(-1)!
  expect(done.status).toBe("completed")
  expect(JSON.stringify(done.content)).toContain("ping from the editor's server")

  // The other session is not offered the server's tools.
  suite.llm.script(text("no tools here"))
  await editor.agent.request(m.agent.session.prompt, { sessionId: without.sessionId, prompt: [{ type: "text", text: "hello" }] })
  expect(toolNames(2)).not.toContain("everything_echo")
  expect(toolNames(2)).toContain("read")

  await editor.agent.request(m.agent.session.close, { sessionId: withServer.sessionId })
  await until(() => withMarker(marker).length === 0, "the session's MCP server to stop after session/close")
})

test("acp - an http MCP server passed in session/new (server-everything over Streamable HTTP) is started for the session and its tool is called", async () => {
  const port = await freePort()
  const server = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] })
  try {
    await new Promise<void>((resolve, reject) => {
      let err = ""
      server.stderr!.on("data", (d: Buffer) => {
        err += d.toString()
        if (err.includes("listening on port")) resolve()
      })
      server.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${err}`)))
    })
    const box = sandbox()
    writeConfig(box.project, providerConfig(suite.llm, "openai-chat"))
    const editor = await startEditor(box)
    suite.track(editor)
    await initialize(editor)
    const { sessionId } = await editor.agent.request(m.agent.session.new, {
      cwd: box.project,
      mcpServers: [{ type: "http", name: "remote", url: `http://127.0.0.1:${port}/mcp`, headers: [{ name: "x-editor", value: "zed" }] }],
    })
    suite.llm.script(toolCall("remote_echo", { message: "over http" }), text("Echoed."))
    await editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "echo over http" }] })
    expect(toolNames(0)).toContain("remote_echo")
    const [call] = ofKind(editor.updates, "tool_call")
    const done = ofKind(editor.updates, "tool_call_update").filter((u) => u.toolCallId === call!.toolCallId).at(-1)!
    expect(done.status).toBe("completed")
    expect(JSON.stringify(done.content)).toContain("over http")
  } finally {
    server.kill()
  }
})

test("acp - a server that cannot start is reported on stderr and the session still works", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(suite.llm, "openai-chat"))
  const editor = await startEditor(box)
  suite.track(editor)
  await initialize(editor)
  const { sessionId } = await editor.agent.request(m.agent.session.new, {
    cwd: box.project,
    mcpServers: [{ name: "broken", command: "/nonexistent/mcp-server", args: [], env: [] }],
  })
  expect(editor.stderr()).toMatch(/MCP server "broken" did not start/)
  suite.llm.script(text("fine"))
  const result = await editor.agent.request(m.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] })
  expect(result.stopReason).toBe("end_turn")
})
