// Deferred MCP tools, end to end with the scripted model: a server with 300 tool definitions
// (about 40k tokens) is over mcp.max_tool_share of a 200k context, so the first request
// carries mcp_tool_search instead of them; the model searches, the match is loaded and sent
// with the next request, and the model calls it.
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { definitionTokens } from "../../src/mcp"
import { answerText, prompt, testCore } from "../lib/core"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"

const MANY = path.join(import.meta.dirname, "fixtures", "many-tools.mjs")

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const names = (req: { body: { tools?: { function: { name: string } }[] } }) => (req.body.tools ?? []).map((t) => t.function.name)

test("deferred - 300 MCP tools wait behind mcp_tool_search; the model finds one, it is loaded, and the model calls it", async () => {
  const core = await testCore({ llm, config: { mcp: { cat: { type: "local", command: [process.execPath, MANY] } } } })
  expect(await core.client.mcp.status()).toEqual({ cat: { status: "connected" } })
  const all = core.app.mcp.tools()
  expect(all).toHaveLength(300)
  // Over the default 10% of the model's 200k context.
  expect(all.reduce((n, t) => n + definitionTokens(t), 0)).toBeGreaterThan(20_000)

  llm.script(toolCall("mcp_tool_search", { query: "shipment 204" }), toolCall("cat_record_217_invoice", { id: "INV-9" }), toolCall("cat_record_204_shipment", { id: "SH-4" }), text("Shipment 204 is open, owned by Dana."))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("who owns shipment 204?"))
  expect(answerText(result)).toBe("Shipment 204 is open, owned by Dana.")

  const [first, second, third] = llm.requests
  expect(names(first!)).toContain("mcp_tool_search")
  expect(names(first!).filter((n) => n.startsWith("cat_"))).toEqual([])
  expect(names(first!)).toContain("read")
  const search = first!.body.tools.find((t: { function: { name: string } }) => t.function.name === "mcp_tool_search")
  expect(search.function.description).toContain("300 of 300 tools from MCP servers (cat) are not loaded")

  const parts = (await core.client.session.messages(session.id)).flatMap((m) => m.parts).filter((p) => p.type === "tool")
  const found = parts[0] as unknown as { state: { status: string; output: string; metadata: { loaded: string[] } } }
  expect(found.state.status).toBe("completed")
  expect(found.state.metadata.loaded).toContain("cat_record_204_shipment")
  expect(found.state.output).toContain("cat_record_204_shipment(id, fields, verbose): Looks up shipment record number 204")
  // Only the matches are sent from then on; a tool that was not found is still not offered.
  const loaded = names(second!).filter((n) => n.startsWith("cat_"))
  expect(loaded).toEqual(expect.arrayContaining(found.state.metadata.loaded))
  expect(loaded.length).toBe(found.state.metadata.loaded.length)
  expect(loaded).not.toContain("cat_record_217_invoice")
  // Calling a tool that was never loaded is an invalid call the model reads about, not a run.
  expect(parts[1]).toMatchObject({ tool: "invalid", state: { status: "completed", metadata: { tool: "cat_record_217_invoice" } } })
  expect(parts[2]).toMatchObject({ tool: "cat_record_204_shipment", state: { status: "completed", output: "shipment 204 (SH-4): status open, owner Dana" } })
  expect(names(third!)).toEqual(expect.arrayContaining(["mcp_tool_search", "cat_record_204_shipment"]))
  await core.close()
}, 120_000)

test("deferred - under the share every MCP tool is sent and there is no search tool; mcp.max_tool_share raises the bar", async () => {
  const core = await testCore({ llm, config: { mcp: { max_tool_share: 0.5, cat: { type: "local", command: [process.execPath, MANY] } } } })
  llm.script(text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("hi"))
  const sent = names(llm.requests[0]!)
  expect(sent.filter((n) => n.startsWith("cat_"))).toHaveLength(300)
  expect(sent).not.toContain("mcp_tool_search")
  await core.close()
}, 120_000)

test("deferred - a bad mcp.max_tool_share is refused naming the key", async () => {
  const err = await testCore({ llm, config: { mcp: { max_tool_share: 10 } } }).catch((e) => e)
  expect(String(err)).toMatch(/mcp\.max_tool_share.*between 0 and 1/s)
})
