import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { answerText, prompt, testCore } from "../lib/core"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { FILESYSTEM_SERVER, FIXTURE_SERVER } from "./harness"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const mcpConfig = {
  mcp: {
    // "." is the project: local servers start in the project directory.
    fs: { type: "local", command: [process.execPath, FILESYSTEM_SERVER, "."] },
    fx: { type: "local", command: [process.execPath, FIXTURE_SERVER], environment: { FIXTURE_INSTRUCTIONS: "Always greet through fx_echo." } },
    off: { type: "local", command: ["wright-no-such-server"], enabled: false },
  },
  permission: { fx_where: "deny" },
}

test("mcp loop - the model calls an MCP tool and the next request carries its result", async () => {
  const core = await testCore({ llm, config: mcpConfig, files: { "notes.txt": "the meeting is at noon\n" } })
  llm.script(toolCall("fs_read_text_file", { path: path.join(core.box.project, "notes.txt") }), text("The meeting is at noon."))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("when is the meeting?"))
  expect(answerText(result)).toBe("The meeting is at noon.")

  const first = llm.requests[0]!.body
  const tools = first.tools.map((t: { function: { name: string } }) => t.function.name)
  expect(tools).toEqual(expect.arrayContaining(["fs_read_text_file", "fx_echo"]))
  // A tool the permission rules deny is never offered.
  expect(tools).not.toContain("fx_where")
  const read = first.tools.find((t: { function: { name: string } }) => t.function.name === "fs_read_text_file")
  expect(read.function.parameters).toMatchObject({ type: "object", required: ["path"] })
  expect(first.messages[0].role).toBe("system")
  expect(JSON.stringify(first.messages.filter((m: { role: string }) => m.role === "system"))).toContain(
    '<mcp_instructions>\\n<server name=\\"fx\\">\\nAlways greet through fx_echo.\\n</server>\\n</mcp_instructions>',
  )

  const toolMessage = llm.requests[1]!.body.messages.find((m: { role: string }) => m.role === "tool")
  expect(JSON.stringify(toolMessage.content)).toContain("the meeting is at noon")
  const part = (await core.client.session.messages(session.id)).flatMap((m) => m.parts).find((p) => p.type === "tool")
  expect(part).toMatchObject({ tool: "fs_read_text_file", state: { status: "completed", output: "the meeting is at noon\n" } })
  expect(core.events.filter((e) => e.type === "mcp.tools.changed").map((e) => e.properties)).toEqual(
    expect.arrayContaining([{ server: "fs" }, { server: "fx" }]),
  )
  await core.close()
})

test("mcp loop - an MCP error result ends the call in the error state and the model reads the message", async () => {
  const core = await testCore({ llm, config: mcpConfig })
  llm.script(toolCall("fs_read_text_file", { path: "/etc/hostname" }), text("I cannot read that."))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("read /etc/hostname"))
  const part = (await core.client.session.messages(session.id)).flatMap((m) => m.parts).find((p) => p.type === "tool")
  expect(part).toMatchObject({ tool: "fs_read_text_file", state: { status: "error", error: expect.stringContaining("Access denied") } })
  expect(JSON.stringify(llm.requests[1]!.body.messages.at(-1))).toContain("Access denied")
  await core.close()
})

test("mcp loop - GET /mcp reports each configured server's status", async () => {
  const core = await testCore({
    llm,
    config: { mcp: { ...mcpConfig.mcp, broken: { type: "local", command: [process.execPath, "-e", "console.error('bad token'); process.exit(1)"] } } },
  })
  const status = await core.client.mcp.status()
  expect(status).toEqual({
    fs: { status: "connected" },
    fx: { status: "connected" },
    off: { status: "disabled" },
    broken: { status: "failed", error: expect.stringContaining("bad token") },
  })
  await core.close()
})
