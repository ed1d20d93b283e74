import { afterEach, expect, test } from "vitest"
import { z } from "zod"
import { runTool } from "../../src/tool"
import { toolContext } from "../lib/tool-context"
import { PNG_BASE64, server, testMcp } from "./harness"

const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const m of open.splice(0)) await m.close()
})

function demo() {
  const s = server("demo", "Prefer demo tools for greetings.")
  let calls = 0
  s.registerTool("say-hello", { description: "Greets someone", inputSchema: { name: z.string().describe("who to greet") } }, async ({ name }) => {
    calls++
    return { content: [{ type: "text", text: `Hello, ${name}!` }, { type: "text", text: "Have a nice day." }] }
  })
  s.registerTool("logo", { description: "The project logo" }, async () => ({
    content: [{ type: "text", text: "Here is the logo." }, { type: "image", data: PNG_BASE64, mimeType: "image/png" }],
  }))
  return { server: s, calls: () => calls }
}

async function started(opts: Parameters<typeof testMcp>[0]) {
  const t = testMcp(opts)
  open.push(t.mcp)
  await t.mcp.start()
  return t
}

test("mcp - a server's tools join the registry as server_tool, with the server's JSON schema and description", async () => {
  const { registry, mcp, changes } = await started({ servers: { "my.demo": demo().server } })
  expect(mcp.status()).toEqual({ "my.demo": { status: "connected" } })
  expect(registry.all().map((t) => t.id).sort()).toEqual(["my_demo_logo", "my_demo_say-hello"])
  const hello = registry.get("my_demo_say-hello")!
  expect(hello.description).toBe("Greets someone")
  expect(hello.jsonSchema).toMatchObject({
    type: "object",
    properties: { name: { type: "string", description: "who to greet" } },
    required: ["name"],
    additionalProperties: false,
  })
  expect(hello.jsonSchema.$schema).toBeUndefined()
  // A tool without arguments still gets an object schema the providers accept.
  expect(registry.get("my_demo_logo")!.jsonSchema).toMatchObject({ type: "object", properties: {} })
  expect(changes).toEqual(["my.demo"])
})

test("mcp - calling a tool asks permission under its tool name, then returns the server's text joined", async () => {
  const d = demo()
  const { registry } = await started({ servers: { demo: d.server } })
  const ctx = toolContext()
  const result = await runTool(registry.get("demo_say-hello")!, { name: "Ada" }, ctx)
  expect(ctx.asks).toEqual([{ permission: "demo_say-hello", patterns: ["*"], always: ["*"], metadata: {} }])
  expect(result.output).toBe("Hello, Ada!\n\nHave a nice day.")
  expect(result.attachments).toBeUndefined()
  expect(d.calls()).toBe(1)
})

test("mcp - a denied permission stops the call before it reaches the server", async () => {
  const d = demo()
  const { registry } = await started({ servers: { demo: d.server } })
  const ctx = toolContext({
    decide: () => {
      throw new Error("The user rejected permission to use this specific tool call.")
    },
  })
  await expect(runTool(registry.get("demo_say-hello")!, { name: "Ada" }, ctx)).rejects.toThrow("rejected permission")
  expect(d.calls()).toBe(0)
})

test("mcp - an image in the result becomes a data-URL attachment next to the text", async () => {
  const { registry } = await started({ servers: { demo: demo().server } })
  const result = await runTool(registry.get("demo_logo")!, {}, toolContext())
  expect(result.output).toBe("Here is the logo.")
  expect(result.attachments).toEqual([{ mime: "image/png", url: `data:image/png;base64,${PNG_BASE64}` }])
})

test("mcp - a result flagged isError becomes a tool error carrying the server's message", async () => {
  const s = server()
  s.registerTool("charge", { description: "Charge a card" }, async () => ({ isError: true, content: [{ type: "text", text: "Card declined: insufficient funds" }] }))
  const { registry } = await started({ servers: { pay: s } })
  await expect(runTool(registry.get("pay_charge")!, {}, toolContext())).rejects.toThrow("Card declined: insufficient funds")
})

test("mcp - arguments the server's schema rejects come back as an error the model can read", async () => {
  const { registry } = await started({ servers: { demo: demo().server } })
  await expect(runTool(registry.get("demo_say-hello")!, { name: 42 }, toolContext())).rejects.toThrow("Invalid arguments for tool say-hello: Invalid input: expected string, received number at name")
})

test("mcp - embedded resources: text kept, a small PDF attached, other binaries described instead", async () => {
  const s = server()
  s.registerTool("report", { description: "Report" }, async () => ({
    content: [
      { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
      { type: "resource", resource: { uri: "file:///report.pdf", mimeType: "application/pdf", blob: Buffer.from("%PDF-1.4").toString("base64") } },
      { type: "resource", resource: { uri: "file:///data.zip", mimeType: "application/zip", blob: Buffer.alloc(2048).toString("base64") } },
    ],
  }))
  const { registry } = await started({ servers: { docs: s } })
  const result = await runTool(registry.get("docs_report")!, {}, toolContext())
  expect(result.output).toContain("# Notes")
  expect(result.output).toContain("[Binary MCP resource omitted: file:///data.zip (application/zip, 2 KB) is not a supported attachment type]")
  expect(result.attachments).toEqual([{ mime: "application/pdf", url: `data:application/pdf;base64,${Buffer.from("%PDF-1.4").toString("base64")}`, filename: "file:///report.pdf" }])
})

test("mcp - long output goes through the shared truncation, with the full text saved", async () => {
  const s = server()
  s.registerTool("dump", { description: "Dump" }, async () => ({ content: [{ type: "text", text: Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n") }] }))
  const { registry } = await started({ servers: { big: s } })
  const result = await runTool(registry.get("big_dump")!, {}, toolContext({ maxLines: 10 }))
  expect(result.metadata.truncated).toBe(true)
  expect(result.output).toContain("line 9")
  expect(result.output).not.toContain("line 40")
  expect(typeof result.metadata.outputPath).toBe("string")
})

test("mcp - tools/list_changed replaces the server's tools in the registry and reports the server", async () => {
  const s = server()
  const old = s.registerTool("v1", { description: "Old" }, async () => ({ content: [{ type: "text", text: "old" }] }))
  const t = await started({ servers: { live: s } })
  expect(t.registry.all().map((x) => x.id)).toEqual(["live_v1"])

  const changed = t.nextChange("live")
  s.registerTool("v2", { description: "New" }, async () => ({ content: [{ type: "text", text: "new" }] }))
  old.remove()
  await changed
  // Both edits may land in one refresh or two; wait until the list settles.
  while (t.registry.get("live_v1")) await t.nextChange("live")
  expect(t.registry.all().map((x) => x.id)).toEqual(["live_v2"])
  expect(t.mcp.tools().map((x) => x.id)).toEqual(["live_v2"])
  expect((await runTool(t.registry.get("live_v2")!, {}, toolContext())).output).toBe("new")
})

test("mcp - an MCP tool never replaces a built-in tool of the same name", async () => {
  const s = server()
  s.registerTool("patch", { description: "Not the built-in" }, async () => ({ content: [{ type: "text", text: "mcp" }] }))
  const t = testMcp({ servers: { apply: s } })
  open.push(t.mcp)
  const builtin = { id: "apply_patch", description: "built-in", parameters: z.object({}), jsonSchema: {}, execute: async () => ({ title: "", output: "builtin", metadata: {} }) }
  t.registry.add(builtin)
  await t.mcp.start()
  expect(t.registry.get("apply_patch")).toBe(builtin)
})

test("mcp - server instructions are offered in an <mcp_instructions> block, one <server> each", async () => {
  const plain = server("plain")
  plain.registerTool("noop", { description: "noop" }, async () => ({ content: [] }))
  const { mcp } = await started({ servers: { demo: demo().server, plain } })
  expect(mcp.instructions()).toBe('<mcp_instructions>\n<server name="demo">\nPrefer demo tools for greetings.\n</server>\n</mcp_instructions>')
})

test("mcp - a call that outlives the timeout fails with a message naming the server and the setting", async () => {
  const s = server()
  s.registerTool("slow", { description: "Slow" }, () => new Promise(() => {}))
  const { registry } = await started({ servers: { lazy: s }, timeout: 300 })
  await expect(runTool(registry.get("lazy_slow")!, {}, toolContext())).rejects.toThrow('MCP server "lazy" did not answer slow within 300 ms. Try again later, or raise mcp.lazy.timeout.')
})

test("mcp - aborting the turn cancels a running call", async () => {
  const s = server()
  s.registerTool("slow", { description: "Slow" }, () => new Promise(() => {}))
  const { registry } = await started({ servers: { lazy: s } })
  const ctx = toolContext()
  const call = runTool(registry.get("lazy_slow")!, {}, ctx)
  setTimeout(() => ctx.controller.abort(), 50)
  await expect(call).rejects.toThrow(/aborted/)
})

test("mcp - disabled servers are listed as disabled and never started; a bare {enabled: true} is a clear failure", async () => {
  const { mcp, registry } = await started({
    servers: { demo: demo().server },
    mcp: { off: { type: "local", command: ["definitely-not-a-command"], enabled: false }, ghost: { enabled: true } },
  })
  expect(mcp.status()).toEqual({
    demo: { status: "connected" },
    off: { status: "disabled" },
    ghost: { status: "failed", error: 'mcp.ghost has no type: use {"type": "local", "command": [...]} or {"type": "remote", "url": "..."}' },
  })
  expect(registry.all().every((t) => t.id.startsWith("demo_"))).toBe(true)
})
