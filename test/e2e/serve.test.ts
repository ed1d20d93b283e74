import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { createClient } from "../../src/sdk"
import { providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { startServe, stopServe, type Served } from "./serve-helpers"

let llm: LLMServer
const running: Served[] = []
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  for (const child of running.splice(0)) await stopServe(child)
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("serve - prints its URL, warns without a password, answers over TCP, stops cleanly on SIGTERM", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const served = await startServe(box)
  running.push(served)
  expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(served.output.stderr).toContain("WRIGHT_SERVER_PASSWORD is not set")
  const health = await fetch(`${served.url}/global/health`)
  expect(await health.json()).toEqual({ healthy: true, version: expect.any(String) })
  const client = createClient({ baseUrl: served.url, directory: box.project })
  const s = await client.session.create({ title: "over tcp" })
  expect((await client.session.list()).map((x) => x.id)).toEqual([s.id])

  const result = await stopServe(served)
  expect(result.code).toBe(0)
  const db = new Database(box.dbPath, { readonly: true })
  expect((db.prepare("SELECT title FROM session").all() as { title: string }[]).map((r) => r.title)).toEqual(["over tcp"])
  db.close()
})

test("serve - SIGTERM aborts a running session and closes its event streams before exiting", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const served = await startServe(box)
  running.push(served)
  const client = createClient({ baseUrl: served.url, directory: box.project })
  const controller = new AbortController()
  const events = (async () => {
    let n = 0
    for await (const _ of client.event.subscribe({ signal: controller.signal, maxBackoffMs: 100 })) if (++n > 1000) break
  })()
  const s = await client.session.create()
  llm.script({ text: ["working"], hang: "after-headers" })
  await client.session.promptAsync(s.id, { parts: [{ type: "text", text: "go" }] })
  for (const end = Date.now() + 30_000; llm.inFlight() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  expect(llm.inFlight()).toBe(1)

  const result = await stopServe(served)
  controller.abort()
  await events
  expect(result.code).toBe(0)
  for (const end = Date.now() + 10_000; llm.inFlight() > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10))
  expect(llm.inFlight()).toBe(0)
  const db = new Database(box.dbPath, { readonly: true })
  const messages = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data))
  expect(messages.at(-1).role).toBe("assistant")
  expect(messages.at(-1).error?.name).toBe("MessageAbortedError")
  db.close()
})

test("serve - refuses a non-loopback hostname without a password, naming the way out", async () => {
  const box = sandbox()
  const r = await wright(["serve", "--port", "0", "--hostname", "0.0.0.0"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain("WRIGHT_SERVER_PASSWORD")
  expect(r.stderr).toContain("--insecure")
  expect(r.stderr).toContain("--hostname 127.0.0.1")
  expect(r.stdout).toBe("")
})

test("serve - a non-loopback hostname is allowed with --insecure, or with a password (then auth is required)", async () => {
  const box = sandbox()
  const insecure = await startServe(box, ["--hostname", "0.0.0.0", "--insecure"])
  running.push(insecure)
  expect(insecure.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/)
  await stopServe(insecure)

  const secured = await startServe(box, ["--hostname", "0.0.0.0"], { WRIGHT_SERVER_PASSWORD: "hunter2" })
  running.push(secured)
  expect(secured.output.stderr).not.toContain("not set")
  const port = new URL(secured.url).port
  const denied = await fetch(`http://127.0.0.1:${port}/session`)
  expect(denied.status).toBe(401)
  expect(denied.headers.get("www-authenticate")).toBe('Basic realm="wright"')
  expect(await createClient({ baseUrl: `http://127.0.0.1:${port}`, auth: { password: "hunter2" } }).session.list()).toEqual([])
})

test("serve - --cors allows that origin's preflight; others are refused", async () => {
  const box = sandbox()
  const served = await startServe(box, ["--cors", "https://ide.example.com"])
  running.push(served)
  const preflight = (origin: string) =>
    fetch(`${served.url}/session`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } })
  const ok = await preflight("https://ide.example.com")
  expect(ok.status).toBe(204)
  expect(ok.headers.get("access-control-allow-origin")).toBe("https://ide.example.com")
  expect((await preflight("https://other.example.com")).status).toBe(403)
  // A page on another loopback port is another origin: refused too.
  expect((await preflight("http://localhost:8080")).status).toBe(403)
})

test("serve - a bad --port is a clear error", async () => {
  const box = sandbox()
  const r = await wright(["serve", "--port", "70000"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain("--port")
})
