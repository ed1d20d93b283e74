// PUT /auth/:providerID and DELETE /auth/:providerID through our SDK: the key is stored in the
// user's auth.json, every open project uses it without a reload, it never comes back out, and
// the route is guarded like any other. A provider only an untrusted project defines gets no
// stored key, even one stored under its own id.
import { mkdirSync, readFileSync, statSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { writeKey } from "../../src/llm"
import { createClient } from "../../src/sdk"
import { createServer } from "../../src/server"
import { createApp } from "../../src/session"
import { openStore } from "../../src/storage"
import { sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { raw, startServer, type Harness } from "./harness"

let llm: LLMServer
let attacker: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
  attacker = await startLLMServer({ strict: false })
})
afterEach(() => {
  llm.reset()
  attacker.reset()
})
afterAll(async () => {
  await llm.close()
  await attacker.close()
})

const KEY = "sk-ant-route-0123456789-abcdef"
const limit = { context: 200_000, output: 8_000 }
const anthropicAtLLM = () => ({
  model: "anthropic/claude-test",
  provider: { anthropic: { options: { baseURL: `${llm.url}/v1` }, models: { "claude-test": { limit } } } },
})
const authFile = (h: Harness) => path.join(h.box.env.XDG_DATA_HOME!, "wright", "auth.json")
const connected = async (c: Harness["client"]) => (await c.provider.list()).connected

test("auth route - a stored key is used by every open project at once, and never answered back", async () => {
  const other = path.join(sandbox().home, "other")
  mkdirSync(other)
  const h = await startServer({ config: anthropicAtLLM(), allowDirs: [other] })
  try {
    const second = h.clientFor(other)
    expect(await connected(second)).not.toContain("groq")
    const before = await h.app()

    expect(await h.client.auth.set("anthropic", { type: "api", key: KEY })).toBe(true)
    expect(await h.client.auth.set("groq", { type: "api", key: "gsk-route-99998888" })).toBe(true)
    expect(JSON.parse(readFileSync(authFile(h), "utf8"))).toEqual({ anthropic: { type: "api", key: KEY }, groq: { type: "api", key: "gsk-route-99998888" } })
    expect(statSync(authFile(h)).mode & 0o777).toBe(0o600)
    // The other project, opened before, sees the key too.
    expect(await connected(second)).toContain("groq")
    expect(await connected(h.client)).toContain("groq")

    // No reload: the same App resolves the model with the key now stored.
    llm.script(text("keyed"))
    const session = await h.client.session.create({})
    await h.client.session.prompt(session.id, { parts: [{ type: "text", text: "hi" }] })
    expect(await h.app()).toBe(before)
    expect(llm.requests[0]!.headers["x-api-key"]).toBe(KEY)

    for (const route of ["/config", "/provider", "/config/providers", "/doc", `/session/${session.id}/message`]) {
      expect(await (await raw(h, "GET", route)).text(), route).not.toContain(KEY)
    }

    expect(await h.client.auth.remove("groq")).toBe(true)
    expect(await connected(second)).not.toContain("groq")
    expect(Object.keys(JSON.parse(readFileSync(authFile(h), "utf8")))).toEqual(["anthropic"])
  } finally {
    await h.close()
  }
})

test("auth route - bodies other than {type: \"api\", key} and odd provider ids are refused without echoing the key", async () => {
  const h = await startServer({ config: anthropicAtLLM() })
  try {
    const put = (id: string, body: string, headers?: Record<string, string>) => raw(h, "PUT", `/auth/${id}`, { body, headers })
    const cases: [Response, number][] = [
      [await put("anthropic", JSON.stringify({ type: "oauth", key: KEY })), 400],
      [await put("anthropic", JSON.stringify({ type: "api" })), 400],
      [await put("anthropic", JSON.stringify({ type: "api", key: `${KEY}\nsecond-line` })), 400],
      [await put("..%2F..%2Fetc", JSON.stringify({ type: "api", key: KEY })), 400],
      [await put("anthropic", JSON.stringify({ type: "api", key: KEY }), { "content-type": "text/plain" }), 415],
    ]
    for (const [res, status] of cases) {
      expect(res.status).toBe(status)
      expect(await res.text()).not.toContain(KEY)
    }
    expect(() => statSync(authFile(h))).toThrow()
  } finally {
    await h.close()
  }
})

test("auth route - the guarded listener refuses a cross-origin PUT before it stores anything", async () => {
  const h = await startServer({ config: anthropicAtLLM(), guard: {} })
  try {
    const res = await raw(h, "PUT", "/auth/anthropic", { body: JSON.stringify({ type: "api", key: KEY }), headers: { origin: "http://evil.test" } })
    expect(res.status).toBe(403)
    const form = await raw(h, "PUT", "/auth/anthropic", { body: `type=api&key=${KEY}`, headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(form.status).toBe(415)
    expect(() => statSync(authFile(h))).toThrow()
    // The same request from the user's own client goes through.
    expect(await h.client.auth.set("anthropic", { type: "api", key: KEY })).toBe(true)
  } finally {
    await h.close()
  }
})

test("auth trust - a provider only an untrusted project defines is not reached at all, so its stored key goes nowhere; trusted, it gets the key stored under its id", async () => {
  const box = sandbox()
  delete box.env.WRIGHT_TRUST
  writeConfig(box.project, {
    model: "evil/m",
    provider: { evil: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${attacker.url}/v1` }, models: { m: { limit } } } },
  })
  writeKey(path.join(box.env.XDG_DATA_HOME!, "wright", "auth.json"), "evil", "stored-under-evil-0000")
  const ask = async (env: NodeJS.ProcessEnv) => {
    const store = openStore(":memory:")
    const app = await createApp({ directory: box.project, store, env, home: box.home, version: "test" })
    const server = createServer({ directory: box.project, getApp: async () => app, version: "test" })
    const client = createClient({ baseUrl: "http://wright.test", fetch: server.fetch })
    try {
      attacker.script(text("ok"))
      const before = attacker.requests.length
      const s = await client.session.create({})
      // Untrusted, the project's model is ignored and no model of the user's is set: the prompt fails before any request.
      await client.session.prompt(s.id, { parts: [{ type: "text", text: "hi" }] }).catch(() => undefined)
      const req = attacker.requests[before]
      return req && String(req.headers.authorization ?? "")
    } finally {
      await app.dispose()
      store.close()
    }
  }
  expect(await ask(box.env)).toBeUndefined()
  expect(await ask({ ...box.env, WRIGHT_TRUST: "1" })).toBe("Bearer stored-under-evil-0000")
})
