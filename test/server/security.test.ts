import { afterEach, expect, test } from "vitest"
import { createClient, type ApiError } from "../../src/sdk"
import { BASE, startServer, type Harness } from "./harness"

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`
const get = (path: string, headers: Record<string, string> = {}, method = "GET") => h!.fetch(new Request(BASE + path, { method, headers }))

test("auth - without a password every request is served", async () => {
  h = await startServer({ security: {} })
  expect((await get("/global/health")).status).toBe(200)
  expect((await get("/session")).status).toBe(200)
})

test("auth - with a password, requests need basic auth: 401 with a realm otherwise", async () => {
  h = await startServer({ security: { password: "s3cret" } })
  const none = await get("/session")
  expect(none.status).toBe(401)
  expect(none.headers.get("www-authenticate")).toBe('Basic realm="wright"')
  expect((await none.json()).name).toBe("UnauthorizedError")
  expect((await get("/session", { authorization: basic("wright", "wrong") })).status).toBe(401)
  expect((await get("/session", { authorization: basic("mallory", "s3cret") })).status).toBe(401)
  expect((await get("/session", { authorization: basic("wright", "s3cret") })).status).toBe(200)
  // OpenCode's default username works too, and so does ?auth_token=.
  expect((await get("/session", { authorization: basic("opencode", "s3cret") })).status).toBe(200)
  expect((await get(`/session?auth_token=${Buffer.from("wright:s3cret").toString("base64")}`)).status).toBe(200)
  expect((await get(`/session?auth_token=${Buffer.from("wright:nope").toString("base64")}`)).status).toBe(401)

  const client = createClient({ baseUrl: BASE, fetch: h.fetch, auth: { password: "s3cret" } })
  expect(await client.session.list()).toEqual([])
  const denied = createClient({ baseUrl: BASE, fetch: h.fetch, auth: { password: "bad" } })
  const e = (await denied.session.list().catch((e) => e)) as ApiError
  expect([e.status, e.name]).toEqual([401, "UnauthorizedError"])
  // The event stream refuses too, and the SDK stops instead of retrying forever.
  const events = (async () => {
    for await (const _ of denied.event.subscribe()) void _
  })()
  expect(((await events.catch((e) => e)) as ApiError).status).toBe(401)
})

test("auth - a configured username replaces the defaults", async () => {
  h = await startServer({ security: { password: "pw", username: "alice" } })
  expect((await get("/session", { authorization: basic("alice", "pw") })).status).toBe(200)
  expect((await get("/session", { authorization: basic("wright", "pw") })).status).toBe(401)
  expect((await get("/session", { authorization: basic("opencode", "pw") })).status).toBe(401)
})

test("cors - a preflight from a local origin is allowed without auth", async () => {
  h = await startServer({ security: { password: "pw" } })
  for (const origin of ["http://localhost:3000", "http://127.0.0.1:5173", "tauri://localhost", "https://tauri.localhost"]) {
    const res = await get("/session", { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,authorization" }, "OPTIONS")
    expect(res.status).toBe(204)
    expect(res.headers.get("access-control-allow-origin")).toBe(origin)
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, HEAD, PUT, PATCH, POST, DELETE")
    expect(res.headers.get("access-control-max-age")).toBe("86400")
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type,authorization")
  }
  // The real request from that origin gets the header, on errors too.
  const denied = await get("/session", { origin: "http://localhost:3000" })
  expect(denied.status).toBe(401)
  expect(denied.headers.get("access-control-allow-origin")).toBe("http://localhost:3000")
  const ok = await get("/session", { origin: "http://localhost:3000", authorization: basic("wright", "pw") })
  expect(ok.headers.get("access-control-allow-origin")).toBe("http://localhost:3000")
})

test("cors - other origins are refused: 403 preflight, no CORS headers; --cors entries are allowed", async () => {
  h = await startServer({ security: { cors: ["https://app.example.com"] } })
  const refused = await get("/session", { origin: "https://evil.example", "access-control-request-method": "DELETE" }, "OPTIONS")
  expect(refused.status).toBe(403)
  expect(refused.headers.get("access-control-allow-origin")).toBeNull()
  const plain = await get("/session", { origin: "https://evil.example" })
  expect(plain.status).toBe(200)
  expect(plain.headers.get("access-control-allow-origin")).toBeNull()
  const lookalike = await get("/session", { origin: "http://localhost.evil.example" })
  expect(lookalike.headers.get("access-control-allow-origin")).toBeNull()

  const listed = await get("/session", { origin: "https://app.example.com", "access-control-request-method": "GET" }, "OPTIONS")
  expect(listed.status).toBe(204)
  expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
  expect((await get("/session")).headers.get("access-control-allow-origin")).toBeNull()
})
