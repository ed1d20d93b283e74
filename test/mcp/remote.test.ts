import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { afterEach, expect, test } from "vitest"
import { runTool } from "../../src/tool"
import { toolContext } from "../lib/tool-context"
import { server, testMcp } from "./harness"

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

function weather() {
  const s = server("weather", "Temperatures are in Celsius.")
  s.registerTool("forecast", { description: "Tomorrow's weather" }, async () => ({ content: [{ type: "text", text: "sunny, 21" }] }))
  return s
}

async function listen(http: Server): Promise<string> {
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  cleanup.push(
    () =>
      new Promise((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`
}

/** A stateless StreamableHTTP server at /mcp that wants `Authorization: Bearer s3cret`. */
async function streamableServer(): Promise<string> {
  const http = createServer(async (req, res) => {
    if (req.headers.authorization !== "Bearer s3cret") return void res.writeHead(401).end()
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    const s = weather()
    res.on("close", () => void s.close())
    await s.connect(transport)
    await transport.handleRequest(req, res)
  })
  return `${await listen(http)}/mcp`
}

/** An old-style server that speaks only HTTP+SSE (GET /sse, POST /messages). */
async function sseServer(): Promise<string> {
  const transports = new Map<string, SSEServerTransport>()
  const http = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://x")
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res)
      transports.set(transport.sessionId, transport)
      await weather().connect(transport)
      return
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "")
    if (req.method === "POST" && url.pathname === "/messages" && transport) return void (await transport.handlePostMessage(req, res))
    res.writeHead(404).end()
  })
  return `${await listen(http)}/sse`
}

async function started(mcp: Parameters<typeof testMcp>[0]["mcp"]) {
  const t = testMcp({ mcp })
  cleanup.push(() => t.mcp.close())
  await t.mcp.start()
  return t
}

test("mcp remote - a StreamableHTTP server is reached with the configured headers and its tools work", async () => {
  const url = await streamableServer()
  const t = await started({ sky: { type: "remote", url, headers: { Authorization: "Bearer s3cret" } } })
  expect(t.mcp.status()).toEqual({ sky: { status: "connected" } })
  expect((await runTool(t.registry.get("sky_forecast")!, {}, toolContext())).output).toBe("sunny, 21")
  expect(t.mcp.instructions()).toContain("Temperatures are in Celsius.")
})

test("mcp remote - a server that speaks only SSE is reached through the fallback", async () => {
  const url = await sseServer()
  const t = await started({ old: { type: "remote", url } })
  expect(t.mcp.status()).toEqual({ old: { status: "connected" } })
  expect((await runTool(t.registry.get("old_forecast")!, {}, toolContext())).output).toBe("sunny, 21")
})

test("mcp remote - a 401 is failed with a hint to put a token in headers; an unreachable or bad URL names the problem", async () => {
  const url = await streamableServer()
  const t = await started({
    locked: { type: "remote", url },
    down: { type: "remote", url: "http://127.0.0.1:9/mcp", timeout: 2000 },
    typo: { type: "remote", url: "not a url" },
  })
  const status = t.mcp.status()
  expect(status.locked).toEqual({
    status: "failed",
    error: 'The server requires authentication (HTTP 401): run wright mcp auth locked, or put a token in mcp.locked.headers, e.g. {"Authorization": "Bearer …"}',
  })
  expect(status.down).toMatchObject({ status: "failed", error: expect.stringMatching(/^Could not connect to http:\/\/127\.0\.0\.1:9\/mcp: StreamableHTTP: .+; SSE: .+/) })
  expect(status.typo).toEqual({ status: "failed", error: "mcp.typo.url is not a valid URL: not a url" })
})
