// `models --refresh` in-process: a local HTTP server plays models.dev. A good catalogue is
// checked, trimmed and cached, and the next lookup uses it over the snapshot; every kind of
// failure leaves the cache exactly as it was and names the URL and the problem.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest"
import { CatalogRefreshError, createProviders, loadCatalog, refreshCatalog } from "../../src/llm"
import { catalogCacheFile, forgetCatalog } from "../../src/llm/catalog"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { tempDir } from "../lib/tool-context"
import { acmeCatalogue } from "./catalogue-fixture"
import { collect, textOf } from "./harness"

let body: { status: number; text: string } = { status: 200, text: "{}" }
let http: Server
let url: string
let llm: LLMServer
beforeAll(async () => {
  http = createServer((_req, res) => res.writeHead(body.status, { "content-type": "application/json" }).end(body.text))
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api.json`
  llm = await startLLMServer()
})
afterAll(async () => {
  await new Promise((resolve) => http.close(resolve))
  await llm.close()
})
beforeEach(() => forgetCatalog())
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})

test("refresh - a good catalogue is cached trimmed, and later lookups use it over the snapshot", async () => {
  const cacheDir = tempDir("wright-cache-")
  expect(loadCatalog(cacheDir).origin).toBe("snapshot")
  body = { status: 200, text: JSON.stringify(acmeCatalogue(`${llm.url}/v1`)) }
  const r = await refreshCatalog({ url, cacheDir })
  expect(r).toEqual({ file: catalogCacheFile(cacheDir), providers: 1, models: 1 })
  const cached = JSON.parse(readFileSync(r.file, "utf8"))
  // models.dev fields wright never reads are not kept.
  expect(cached.acme.models["acme-coder"].knowledge).toBeUndefined()
  expect(cached.acme.models["acme-coder"].limit).toEqual({ context: 256_000, output: 32_000 })

  const loaded = loadCatalog(cacheDir)
  expect(loaded.origin).toBe("cache")
  const providers = createProviders({ config: {}, env: { ACME_API_KEY: "k-acme" }, catalog: () => loaded.providers })
  expect(providers.list().map((p) => p.id)).toEqual(["acme"])
  expect(providers.defaultModel()).toEqual({ providerID: "acme", modelID: "acme-coder" })
  const model = await providers.get("acme", "acme-coder")
  expect(model.info.cost).toEqual({ input: 1, output: 4, cacheRead: 0.1, cacheWrite: 0 })
  llm.script(text("hello from acme"))
  expect(textOf(await collect(model))).toBe("hello from acme")
  expect(llm.requests[0]!.headers.authorization).toBe("Bearer k-acme")
})

const FAILURES = [
  { what: "an HTTP error", reply: { status: 503, text: "busy" }, problem: "HTTP 503 Service Unavailable" },
  { what: "a body that is not JSON", reply: { status: 200, text: "<html>oops" }, problem: "the body is not JSON" },
  { what: "JSON of the wrong shape", reply: { status: 200, text: JSON.stringify({ acme: { id: "acme", models: [] } }) }, problem: "not a models.dev catalogue (acme.name:" },
  { what: "a catalogue with no models", reply: { status: 200, text: "{}" }, problem: "lists no provider with models" },
]

test.each(FAILURES)("refresh - $what keeps the cached catalogue and names the URL and the problem", async ({ reply, problem }) => {
  const cacheDir = tempDir("wright-cache-")
  const file = catalogCacheFile(cacheDir)
  body = { status: 200, text: JSON.stringify(acmeCatalogue("https://acme.example/v1")) }
  await refreshCatalog({ url, cacheDir })
  const before = readFileSync(file, "utf8")

  body = reply
  const e = await refreshCatalog({ url, cacheDir }).catch((err: unknown) => err)
  expect(e).toBeInstanceOf(CatalogRefreshError)
  expect((e as Error).message).toContain(`Could not refresh the model catalogue from ${url}: `)
  expect((e as CatalogRefreshError).problem).toContain(problem)
  expect(readFileSync(file, "utf8")).toBe(before)
  expect(Object.keys(loadCatalog(cacheDir).providers)).toEqual(["acme"])
})

test("refresh - a server that is not there, or too slow, is a network problem; nothing is written", async () => {
  const cacheDir = tempDir("wright-cache-")
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const refused = await refreshCatalog({ url: `http://127.0.0.1:${port}/api.json`, cacheDir }).then(() => undefined, (e: CatalogRefreshError) => e)
  expect(refused?.problem).toMatch(/fetch failed \(ECONNREFUSED\)/)
  const hang = createServer(() => {})
  await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve))
  const slowURL = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/api.json`
  const slow = await refreshCatalog({ url: slowURL, cacheDir, timeoutMs: 200 }).then(() => undefined, (e: CatalogRefreshError) => e)
  hang.closeAllConnections()
  hang.close()
  expect(slow?.problem).toBe("no answer within 0.2 s")
  expect(existsSync(catalogCacheFile(cacheDir))).toBe(false)
  expect(loadCatalog(cacheDir).origin).toBe("snapshot")
})

test("refresh - a cache file that was damaged afterwards falls back to the snapshot and says why", () => {
  const cacheDir = tempDir("wright-cache-")
  writeFileSync(catalogCacheFile(cacheDir), "{ truncated")
  const loaded = loadCatalog(cacheDir)
  expect(loaded.origin).toBe("snapshot")
  expect(loaded.cacheProblem).toContain(path.join(cacheDir, "models.json"))
  expect(Object.keys(loaded.providers)).toContain("anthropic")
})
