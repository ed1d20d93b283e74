import http from "node:http"
import zlib from "node:zlib"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runTool } from "../../src/tool"
import { webfetch } from "../../src/tool/webfetch"
import { toolContext } from "../lib/tool-context"
import { ruledContext } from "./ruled-context"

const PAGE = `<!doctype html><html><head><title>T</title><style>body{color:red}</style></head>
<body><h1>Hello</h1><p>Some <b>bold</b> text &amp; a <a href="https://x.test/">link</a>.</p>
<script>alert("no")</script><pre><code>const x = 1</code></pre></body></html>`

let server: http.Server
let base = ""
const hung: http.ServerResponse[] = []
const hits = new Map<string, number>()

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? "/"
    hits.set(url, (hits.get(url) ?? 0) + 1)
    if (url === "/page") return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE)
    if (url === "/json") return void res.writeHead(200, { "content-type": "application/json" }).end('{"a":1}')
    if (url === "/missing") return void res.writeHead(404, { "content-type": "text/plain" }).end("nope")
    if (url === "/big-declared")
      return void res.writeHead(200, { "content-type": "text/plain", "content-length": String(6 * 1024 * 1024) }).end()
    if (url === "/big-streamed") {
      // No content-length: the cap must hold while streaming.
      res.writeHead(200, { "content-type": "text/plain" })
      const chunk = Buffer.alloc(64 * 1024, "a")
      let sent = 0
      const pump = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once("drain", pump)
        }
        res.end()
      }
      res.on("error", () => {})
      return pump()
    }
    if (url === "/gzip") return void res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(zlib.gzipSync("zipped text"))
    if (url === "/br") return void res.writeHead(200, { "content-type": "text/plain", "content-encoding": "br" }).end(zlib.brotliCompressSync("brotli text"))
    if (url === "/image") return void res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([137, 80, 78, 71]))
    if (url === "/hang") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("partial")
      hung.push(res)
      return
    }
    res.writeHead(500).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const res of hung) res.destroy()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** The test server is on loopback: a rule naming it is what lets webfetch reach it (see webfetch-guard). */
const named = () => ruledContext({ rules: { webfetch: { [`${base}/*`]: "allow" } } })

describe("webfetch", () => {
  it("webfetch - converts HTML to Markdown and drops scripts and styles", async () => {
    const ctx = named()
    const result = await runTool(webfetch, { url: `${base}/page` }, ctx)
    expect(result.output).toContain("# Hello")
    expect(result.output).toContain("**bold**")
    expect(result.output).toContain("[link](https://x.test/)")
    expect(result.output).toContain("```\nconst x = 1\n```")
    expect(result.output).not.toContain("alert")
    expect(result.output).not.toContain("color:red")
    expect(result.title).toBe(`${base}/page (text/html; charset=utf-8)`)
    expect(ctx.asks).toEqual([expect.objectContaining({ permission: "webfetch", patterns: [`${base}/page`], always: [`${base}/*`], named: true })])
  })

  it("webfetch - text format strips tags and decodes entities", async () => {
    const result = await runTool(webfetch, { url: `${base}/page`, format: "text" }, named())
    expect(result.output).toContain("Hello")
    expect(result.output).toContain("Some bold text & a link.")
    expect(result.output).not.toMatch(/<|alert|color:red/)
  })

  it("webfetch - html format and non-HTML bodies come back unchanged", async () => {
    expect((await runTool(webfetch, { url: `${base}/page`, format: "html" }, named())).output).toBe(PAGE)
    expect((await runTool(webfetch, { url: `${base}/json` }, named())).output).toBe('{"a":1}')
  })

  it("webfetch - gzip and brotli bodies are decompressed", async () => {
    expect((await runTool(webfetch, { url: `${base}/gzip` }, named())).output).toBe("zipped text")
    expect((await runTool(webfetch, { url: `${base}/br` }, named())).output).toBe("brotli text")
  })

  it("webfetch - a non-2xx response fails with its status", async () => {
    await expect(runTool(webfetch, { url: `${base}/missing` }, named())).rejects.toThrow("Request failed with status code: 404")
  })

  it("webfetch - refuses bodies over 5 MB, declared or streamed", async () => {
    await expect(runTool(webfetch, { url: `${base}/big-declared` }, named())).rejects.toThrow("Response too large (exceeds 5MB limit)")
    await expect(runTool(webfetch, { url: `${base}/big-streamed` }, named())).rejects.toThrow("Response too large (exceeds 5MB limit)")
  })

  it("webfetch - gives up after its timeout", async () => {
    await expect(runTool(webfetch, { url: `${base}/hang`, timeout: 0.3 }, named())).rejects.toThrow("timed out after 0.3 seconds")
  })

  it("webfetch - stops when the call is aborted", async () => {
    const ctx = named()
    const pending = runTool(webfetch, { url: `${base}/hang` }, ctx)
    setTimeout(() => ctx.controller.abort(), 50)
    await expect(pending).rejects.toThrow("aborted")
  })

  it("webfetch - refuses non-http URLs without asking", async () => {
    const ctx = named()
    await expect(runTool(webfetch, { url: "file:///etc/passwd" }, ctx)).rejects.toThrow("must start with http:// or https://")
    await expect(runTool(webfetch, { url: "ftp://example.com/x" }, ctx)).rejects.toThrow("must start with http:// or https://")
    expect(ctx.asks).toEqual([])
  })

  it("webfetch - a rejected permission means no request is made", async () => {
    const ctx = toolContext({ decide: () => Promise.reject(new Error("rejected by user")) })
    await expect(runTool(webfetch, { url: `${base}/page?private` }, ctx)).rejects.toThrow("rejected by user")
    expect(hits.get("/page?private")).toBeUndefined()
  })

  it("webfetch - images become attachments", async () => {
    const result = await runTool(webfetch, { url: `${base}/image` }, named())
    expect(result.output).toBe("Image fetched successfully")
    expect(result.attachments).toEqual([{ mime: "image/png", url: `data:image/png;base64,${Buffer.from([137, 80, 78, 71]).toString("base64")}` }])
  })
})
