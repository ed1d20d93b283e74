// The real @modelcontextprotocol/server-everything, over stdio and over Streamable HTTP: its
// prompts become `everything:<prompt>` slash commands with arguments, its resources are read
// by the model through read_mcp_resource and by the user through an `@` mention.
import { spawn, type ChildProcess } from "node:child_process"
import { createRequire } from "node:module"
import net from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { prompt, testCore, type TestCore } from "../lib/core"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"

const require = createRequire(import.meta.url)
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const FEATURES = "demo://resource/static/document/features.md"

let llm: LLMServer
let http: ChildProcess | undefined
let httpUrl = ""
beforeAll(async () => {
  llm = await startLLMServer()
  const port = await freePort()
  http = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] })
  await new Promise<void>((resolve, reject) => {
    let err = ""
    http!.stderr!.on("data", (d: Buffer) => {
      err += d.toString()
      if (err.includes("listening on port")) resolve()
    })
    http!.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${err}`)))
  })
  httpUrl = `http://127.0.0.1:${port}/mcp`
}, 60_000)
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(async () => {
  http?.kill()
  await llm.close()
})

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

const transports = {
  stdio: () => ({ type: "local", command: [process.execPath, EVERYTHING, "stdio"] }),
  "streamable HTTP": () => ({ type: "remote", url: httpUrl, oauth: false }),
}

function userTexts(request: { body: { messages: { role: string; content: unknown }[] } }): string {
  return JSON.stringify(request.body.messages.filter((m) => m.role === "user"))
}

for (const [name, server] of Object.entries(transports)) {
  describe(`server-everything over ${name}`, () => {
    let core: TestCore
    beforeAll(async () => {
      core = await testCore({ llm, config: { mcp: { everything: server() } } })
      expect(await core.client.mcp.status()).toEqual({ everything: { status: "connected" } })
    }, 60_000)
    afterAll(() => core.close())

    test("its prompts are slash commands named server:prompt, with their arguments as hints", async () => {
      const commands = await core.client.command.list()
      const args = commands.find((c) => c.name === "everything:args-prompt")
      expect(args).toMatchObject({ source: "mcp", description: "A prompt with two arguments, one required and one optional", hints: ["$1", "$2"] })
      expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(["everything:simple-prompt", "everything:resource-prompt"]))
    })

    test("running a prompt command sends the server's prompt text, filled with the arguments", async () => {
      llm.script(text("Sunny."))
      const session = await core.client.session.create()
      await core.client.session.command(session.id, { command: "everything:args-prompt", arguments: "Paris France" })
      expect(userTexts(llm.requests[0]!)).toContain("What's weather in Paris, France?")
      // A missing required argument is refused before anything is sent, naming it.
      const err = await core.client.session.command(session.id, { command: "everything:args-prompt", arguments: "" }).catch((e) => e)
      expect(String(err.message ?? err)).toMatch(/needs city.*<city> \[state\]/)
      expect(llm.requests).toHaveLength(1)
    })

    test("the model lists and reads a resource through the resource tools", async () => {
      llm.script(toolCall("list_mcp_resources", {}), toolCall("read_mcp_resource", { server: "everything", uri: FEATURES }), text("Read it."))
      const session = await core.client.session.create()
      await core.client.session.prompt(session.id, prompt("what features are there?"))
      const tools = llm.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)
      expect(tools).toEqual(expect.arrayContaining(["list_mcp_resources", "read_mcp_resource", "everything_echo"]))
      const parts = (await core.client.session.messages(session.id)).flatMap((m) => m.parts).filter((p) => p.type === "tool")
      expect(parts[0]).toMatchObject({ tool: "list_mcp_resources", state: { status: "completed", output: expect.stringContaining(FEATURES) } })
      expect((parts[0] as { state: { output: string } }).state.output).toContain("demo://resource/dynamic/text/{resourceId}")
      expect(parts[1]).toMatchObject({ tool: "read_mcp_resource", state: { status: "completed", output: expect.stringMatching(/feature/i) } })
      expect(JSON.stringify(llm.requests[2]!.body.messages.at(-1))).toMatch(/feature/i)
    })

    test("an @-mentioned resource is read into the prompt", async () => {
      llm.script(text("Noted."))
      const session = await core.client.session.create()
      await core.client.session.prompt(session.id, {
        parts: [
          { type: "text", text: "summarise @features.md" },
          {
            type: "file",
            mime: "text/markdown",
            url: FEATURES,
            filename: "features.md",
            source: { type: "resource", clientName: "everything", uri: FEATURES, text: { value: "@features.md", start: 10, end: 22 } },
          },
        ],
      })
      const sent = userTexts(llm.requests[0]!)
      expect(sent).toContain(`Reading MCP resource: features.md (${FEATURES}) from everything`)
      expect(sent).toMatch(/feature/i)
      // The mention of a server that is not there is a clear error.
      const err = await core.client.session
        .prompt(session.id, { parts: [{ type: "file", mime: "text/plain", url: "x://y", source: { type: "resource", clientName: "nope", uri: "x://y", text: { value: "@y", start: 0, end: 2 } } }] })
        .catch((e) => e)
      expect(String(err.message ?? err)).toContain('MCP server "nope" is not connected')
    })

    test("the model calls one of its tools", async () => {
      llm.script(toolCall("everything_echo", { message: "ping" }), text("pong"))
      const session = await core.client.session.create()
      await core.client.session.prompt(session.id, prompt("echo ping"))
      const part = (await core.client.session.messages(session.id)).flatMap((m) => m.parts).find((p) => p.type === "tool")
      expect(part).toMatchObject({ tool: "everything_echo", state: { status: "completed", output: expect.stringContaining("ping") } })
    })
  })
}

test("GET /experimental/resource lists the connected servers' resources by server:name, for @ mentions", async () => {
  const core = await testCore({ llm, config: { mcp: { everything: transports.stdio() } } })
  const resources = await core.client.mcp.resources()
  expect(resources["everything:features.md"]).toEqual({ name: "features.md", uri: FEATURES, client: "everything", description: expect.any(String), mimeType: "text/markdown" })
  await core.close()
}, 60_000)
