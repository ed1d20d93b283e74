// The websearch tool end to end: `wright run` (the built binary) with the scripted model and a
// fake Exa on loopback. The key is stored the way a user stores it (`wright auth login exa`
// from stdin); the backend's base URL comes from the user's global config (`websearch.url`,
// which an untrusted project cannot set).
import http from "node:http"
import type { AddressInfo } from "node:net"
import { mkdirSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { providerConfig, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"

let server: LLMServer
let exa: http.Server
let exaURL = ""
const searches: { path: string; key: string | undefined; body: any }[] = []

beforeAll(async () => {
  server = await startLLMServer()
  exa = http.createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      searches.push({ path: req.url ?? "", key: req.headers["x-api-key"] as string | undefined, body: JSON.parse(body || "null") })
      if (req.headers["x-api-key"] !== "exa-test-key-0001") return void res.writeHead(401, { "content-type": "application/json" }).end('{"error":"Invalid API key"}')
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({ results: [{ title: "Wright docs", url: "https://wright.test/docs", highlights: ["wright is a terminal coding agent"] }] }),
      )
    })
  })
  await new Promise<void>((r) => exa.listen(0, "127.0.0.1", r))
  exaURL = `http://127.0.0.1:${(exa.address() as AddressInfo).port}`
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
  searches.length = 0
})
afterAll(async () => {
  exa.closeAllConnections()
  exa.close()
  await server.close()
})

function project(globalConfig?: Record<string, unknown>): Sandbox {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  if (globalConfig) {
    const dir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
    mkdirSync(dir, { recursive: true })
    writeConfig(dir, globalConfig)
  }
  return box
}

const toolNames = (i: number): string[] => (server.requests[i]!.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name)
const toolResult = (i: number): string => server.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1)?.content

test("websearch e2e - without a websearch config the model is not offered the tool", async () => {
  const box = project()
  server.script(text("Nothing to search."))
  const r = await wright(["run", "hello"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(r.code).toBe(0)
  expect(toolNames(0)).toContain("webfetch")
  expect(toolNames(0)).not.toContain("websearch")
})

test("websearch e2e - OpenCode's keyless backends load with a warning naming the key, and the tool stays off", async () => {
  const box = project({ websearch: { provider: "parallel" } })
  server.script(text("No search here."))
  const r = await wright(["run", "hello"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(r.code).toBe(0)
  expect(r.stderr).toContain(`Warning: websearch.provider "parallel" is OpenCode's keyless search, which wright does not have: the websearch tool is off.`)
  expect(toolNames(0)).not.toContain("websearch")
})

test("websearch e2e - configured for Exa with a key from `wright auth login exa`, the model searches and reads the cited URLs", async () => {
  const box = project({ websearch: { provider: "exa", url: exaURL } })
  const login = await wright(["auth", "login", "exa"], { cwd: box.project, env: box.env, input: "exa-test-key-0001\n" })
  expect(login.code).toBe(0)
  expect(login.stderr).not.toContain("not a known provider")
  expect(login.stdout).toContain('Used by the websearch tool when your config says "websearch": {"provider": "exa"}')
  server.script(toolCall("websearch", { query: "what is wright", numResults: 3 }), text("See https://wright.test/docs."))
  const r = await wright(["run", "search for wright"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(r.code).toBe(0)
  expect(toolNames(0)).toContain("websearch")
  expect(searches).toEqual([{ path: "/search", key: "exa-test-key-0001", body: { query: "what is wright", numResults: 3, type: "auto", contents: { highlights: { maxCharacters: 1000 } } } }])
  expect(toolResult(1)).toContain("1. Wright docs\n   URL: https://wright.test/docs\n   wright is a terminal coding agent")
  expect(r.stdout).toContain("See https://wright.test/docs.")
})

test("websearch e2e - a `websearch: ask` rule asks; run auto-rejects it and nothing reaches the search service", async () => {
  const box = project({ websearch: { provider: "exa", url: exaURL, apiKey: "exa-test-key-0001" }, permission: { websearch: "ask" } })
  server.script(toolCall("websearch", { query: "private project name" }))
  const r = await wright(["run", "search"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  // A refused permission stops an unattended run with exit 1 (cli/run/execute.ts).
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(/permission requested: websearch \(private project name\); auto-rejecting/)
  expect(searches).toEqual([])
})

test("websearch e2e - a refused key tells the model how the user sets it", async () => {
  const box = project({ websearch: { provider: "exa", url: exaURL } })
  box.env.EXA_API_KEY = "wrong-key"
  server.script(toolCall("websearch", { query: "q" }), text("The key is wrong."))
  const r = await wright(["run", "search"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(r.code).toBe(0)
  expect(searches).toHaveLength(1)
  expect(toolResult(1)).toContain("The Exa key was refused (HTTP 401: Invalid API key); set it with `wright auth login exa`.")
})

test("websearch e2e - an untrusted project cannot point the search at its own server", async () => {
  const box = project({ websearch: { provider: "exa", apiKey: "exa-test-key-0001", url: "http://127.0.0.1:9/unused" } })
  // The project's own config asks for its URL; untrusted, the user's section stands.
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), websearch: { provider: "exa", url: exaURL } })
  delete box.env.WRIGHT_TRUST
  // The model's provider is the project's own here: make it the user's, so an untrusted run still reaches the fake model.
  writeConfig(path.join(box.env.XDG_CONFIG_HOME!, "wright"), { ...providerConfig(server, "openai-chat"), websearch: { provider: "exa", apiKey: "exa-test-key-0001", url: "http://127.0.0.1:9/unused" } })
  server.script(toolCall("websearch", { query: "q" }), text("Done."))
  const r = await wright(["run", "search"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(r.code).toBe(0)
  expect(searches).toEqual([])
  expect(toolResult(1)).toContain("Could not reach Exa at http://127.0.0.1:9")
})
