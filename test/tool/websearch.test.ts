// The websearch tool against fakes of Exa's, Tavily's and SearXNG's APIs on loopback: each
// fake records the request (method, path, auth header, body or query) and answers as the real
// service documents it, so the tests check what wright sends and what the model reads.
import http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { runTool } from "../../src/tool"
import { createWebsearch, type WebsearchSettings } from "../../src/tool/websearch"
import { toolContext } from "../lib/tool-context"
import { ruledContext } from "./ruled-context"

interface Seen {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
}

let server: http.Server
let base = ""
const seen: Seen[] = []
let reply: (req: Seen, res: http.ServerResponse) => void = () => {}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const s = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body }
      seen.push(s)
      reply(s, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(() => {
  seen.length = 0
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const json = (res: http.ServerResponse, status: number, data: unknown) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data))

const EXA = {
  requestId: "r1",
  results: [
    { id: "a", title: "Node 20 release notes", url: "https://nodejs.org/en/blog/release/v20.0.0", publishedDate: "2023-04-18", highlights: ["Node.js 20 ships a permission model.", "V8 11.3."] },
    { id: "b", title: "", url: "https://example.test/untitled", text: "Only text here" },
  ],
}
const TAVILY = {
  query: "q",
  results: [{ title: "Tavily page", url: "https://tavily.test/page", content: "What Tavily found", score: 0.9 }],
}
const SEARXNG = {
  query: "q",
  number_of_results: 3,
  results: [
    { title: "First", url: "https://one.test/", content: "first snippet", engine: "duckduckgo" },
    { title: "Second", url: "https://two.test/", content: "second snippet", engine: "brave" },
    { title: "Third", url: "https://three.test/", content: "third snippet", engine: "brave" },
  ],
}

function tool(settings: WebsearchSettings, opts: { stored?: Record<string, string>; env?: NodeJS.ProcessEnv } = {}) {
  return createWebsearch(settings, { env: opts.env ?? {}, storedKey: (id) => opts.stored?.[id] })
}

test("websearch - exa: POSTs /search with x-api-key and the documented body; the model reads titles, URLs, snippets and is told to cite", async () => {
  reply = (_req, res) => json(res, 200, EXA)
  const r = await runTool(tool({ provider: "exa", url: base }, { stored: { exa: "exa-stored-key" } }), { query: "node 20 permission model", numResults: 5 }, toolContext())
  expect(seen).toHaveLength(1)
  expect(seen[0]!.method).toBe("POST")
  expect(seen[0]!.path).toBe("/search")
  expect(seen[0]!.headers["x-api-key"]).toBe("exa-stored-key")
  expect(seen[0]!.headers["content-type"]).toBe("application/json")
  expect(JSON.parse(seen[0]!.body)).toEqual({ query: "node 20 permission model", numResults: 5, type: "auto", contents: { highlights: { maxCharacters: 1000 } } })
  expect(r.output).toContain("1. Node 20 release notes\n   URL: https://nodejs.org/en/blog/release/v20.0.0\n   Published: 2023-04-18\n   Node.js 20 ships a permission model. … V8 11.3.")
  // A result without a title is listed by its URL; its text stands in for highlights.
  expect(r.output).toContain("2. https://example.test/untitled\n   URL: https://example.test/untitled\n   Only text here")
  expect(r.output).toMatch(/Cite the URLs/)
  expect(r.metadata.urls).toEqual(["https://nodejs.org/en/blog/release/v20.0.0", "https://example.test/untitled"])
})

test("websearch - tavily: POSTs /search with Authorization: Bearer and max_results; content becomes the snippet", async () => {
  reply = (_req, res) => json(res, 200, TAVILY)
  const r = await runTool(tool({ provider: "tavily", url: `${base}/` }, { env: { TAVILY_API_KEY: "tvly-env-key" } }), { query: "what is tavily" }, toolContext())
  expect(seen[0]!.method).toBe("POST")
  expect(seen[0]!.path).toBe("/search")
  expect(seen[0]!.headers.authorization).toBe("Bearer tvly-env-key")
  expect(JSON.parse(seen[0]!.body)).toMatchObject({ query: "what is tavily", max_results: 8, search_depth: "basic" })
  expect(r.output).toContain("1. Tavily page\n   URL: https://tavily.test/page\n   What Tavily found")
})

test("websearch - searxng: GETs <url>/search?q=…&format=json under the instance's path, no key; numResults cuts the list", async () => {
  reply = (_req, res) => json(res, 200, SEARXNG)
  const r = await runTool(tool({ provider: "searxng", url: `${base}/searx` }), { query: "a & b", numResults: 2 }, toolContext())
  expect(seen[0]!.method).toBe("GET")
  const url = new URL(seen[0]!.path, base)
  expect(url.pathname).toBe("/searx/search")
  expect(url.searchParams.get("q")).toBe("a & b")
  expect(url.searchParams.get("format")).toBe("json")
  expect(seen[0]!.headers.authorization).toBeUndefined()
  expect(r.output).toContain("2. Second\n   URL: https://two.test/")
  expect(r.output).not.toContain("three.test")
})

test("websearch - the key comes from config first, then the store, then the environment", async () => {
  reply = (_req, res) => json(res, 200, EXA)
  const env = { EXA_API_KEY: "from-env" }
  await runTool(tool({ provider: "exa", url: base, apiKey: "from-config" }, { stored: { exa: "from-store" }, env }), { query: "q" }, toolContext())
  await runTool(tool({ provider: "exa", url: base }, { stored: { exa: "from-store" }, env }), { query: "q" }, toolContext())
  await runTool(tool({ provider: "exa", url: base }, { env }), { query: "q" }, toolContext())
  expect(seen.map((s) => s.headers["x-api-key"])).toEqual(["from-config", "from-store", "from-env"])
})

test("websearch - a refused key says which and how to set it, without the key; no key at all sends nothing", async () => {
  reply = (req, res) => json(res, 401, { error: req.headers["x-api-key"] === "bad-exa-key-123456" ? "Invalid API key bad-exa-key-123456" : "Invalid API key" })
  const exa = runTool(tool({ provider: "exa", url: base }, { stored: { exa: "bad-exa-key-123456" } }), { query: "q" }, toolContext())
  await expect(exa).rejects.toThrow("The Exa key was refused (HTTP 401: Invalid API key …); set it with `wright auth login exa`.")
  await expect(exa).rejects.not.toThrow("bad-exa-key")
  const tavily = runTool(tool({ provider: "tavily", url: base }, { stored: { tavily: "tvly-bad" } }), { query: "q" }, toolContext())
  await expect(tavily).rejects.toThrow("The Tavily key was refused (HTTP 401")
  expect(seen).toHaveLength(2)
  await expect(runTool(tool({ provider: "exa", url: base }), { query: "q" }, toolContext())).rejects.toThrow(
    "No Exa API key: set it with `wright auth login exa`, or in EXA_API_KEY",
  )
  await expect(runTool(tool({ provider: "searxng" }), { query: "q" }, toolContext())).rejects.toThrow("websearch.url is not set")
  expect(seen).toHaveLength(2)
})

test("websearch - server errors, non-JSON answers and rate limits are clear errors", async () => {
  reply = (_req, res) => void res.writeHead(403, { "content-type": "text/html" }).end("<h1>Forbidden</h1>")
  await expect(runTool(tool({ provider: "searxng", url: base }), { query: "q" }, toolContext())).rejects.toThrow("does not serve JSON")
  reply = (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<html>search page</html>")
  await expect(runTool(tool({ provider: "searxng", url: base }), { query: "q" }, toolContext())).rejects.toThrow("answered with something other than JSON")
  reply = (_req, res) => json(res, 429, { detail: "slow down" })
  await expect(runTool(tool({ provider: "tavily", url: base }, { stored: { tavily: "k" } }), { query: "q" }, toolContext())).rejects.toThrow("rate-limiting")
  reply = (_req, res) => json(res, 500, { message: "boom" })
  await expect(runTool(tool({ provider: "exa", url: base }, { stored: { exa: "k" } }), { query: "q" }, toolContext())).rejects.toThrow("The Exa search failed with HTTP 500: boom")
  reply = (_req, res) => json(res, 200, { results: [] })
  const r = await runTool(tool({ provider: "searxng", url: base }), { query: "nothing" }, toolContext())
  expect(r.output).toBe('No results for "nothing" (SearXNG). Try other words.')
})

test("websearch - a redirect is not followed, so the key never goes where it points", async () => {
  reply = (req, res) => (req.path === "/search" ? void res.writeHead(302, { location: `${base}/elsewhere` }).end() : json(res, 200, EXA))
  await expect(runTool(tool({ provider: "exa", url: base }, { stored: { exa: "k" } }), { query: "q" }, toolContext())).rejects.toThrow(
    `answered with a redirect to ${base}/elsewhere, which websearch does not follow`,
  )
  expect(seen.map((s) => s.path)).toEqual(["/search"])
})

test("websearch - the websearch permission is asked with the query; a rejection sends nothing", async () => {
  reply = (_req, res) => json(res, 200, SEARXNG)
  const ctx = ruledContext({ rules: { websearch: "ask" } })
  await expect(runTool(tool({ provider: "searxng", url: base }), { query: "secret plans" }, ctx)).rejects.toThrow()
  expect(ctx.asked).toHaveLength(1)
  expect(ctx.asked[0]).toMatchObject({ permission: "websearch", patterns: ["secret plans"], always: ["*"], metadata: { query: "secret plans", provider: "searxng" } })
  expect(seen).toHaveLength(0)
  // By default (OpenCode's too) websearch is allowed without asking.
  const open = ruledContext()
  await runTool(tool({ provider: "searxng", url: base }), { query: "q" }, open)
  expect(open.asked).toHaveLength(0)
  expect(seen).toHaveLength(1)
})

test("websearch - aborting the call stops the request at once; the error says it was aborted", async () => {
  reply = () => {} // never answers
  const ctx = toolContext()
  const call = runTool(tool({ provider: "searxng", url: base }), { query: "slow" }, ctx)
  await new Promise((r) => setTimeout(r, 100))
  ctx.controller.abort()
  await expect(call).rejects.toThrow("The SearXNG search was aborted")
})

test("websearch - long result lists are cut by the tool-output limits like any tool's output", async () => {
  const many = { results: Array.from({ length: 20 }, (_, i) => ({ title: `T${i}`, url: `https://r${i}.test/`, content: "x".repeat(900) })) }
  reply = (_req, res) => json(res, 200, many)
  const r = await runTool(tool({ provider: "searxng", url: base }), { query: "q", numResults: 20 }, toolContext({ maxBytes: 4000 }))
  expect(r.metadata.truncated).toBe(true)
  expect(Buffer.byteLength(r.output)).toBeLessThan(4000 + 1000)
})
