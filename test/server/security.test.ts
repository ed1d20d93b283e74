import { mkdirSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { basicAuth, createClient, type ApiError } from "../../src/sdk"
import { listenRefusal } from "../../src/server"
import { tempDir } from "../lib/tool-context"
import { BASE, startServer, type Harness } from "./harness"

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const basic = (username: string, password: string) => basicAuth({ username, password })
const get = (path: string, headers: Record<string, string> = {}, method = "GET") => h!.fetch(new Request(BASE + path, { method, headers }))
const preflight = (origin: string) => get("/session", { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,authorization" }, "OPTIONS")

test("auth - without a password every request is served", async () => {
  h = await startServer({ guard: {} })
  expect((await get("/global/health")).status).toBe(200)
  expect((await get("/session")).status).toBe(200)
})

test("auth - with a password, requests need basic auth: 401 with a realm otherwise", async () => {
  h = await startServer({ guard: { password: "s3cret" } })
  const none = await get("/session")
  expect(none.status).toBe(401)
  expect(none.headers.get("www-authenticate")).toBe('Basic realm="wright"')
  expect((await none.json()).name).toBe("UnauthorizedError")
  expect((await get("/session", { authorization: basic("wright", "wrong") })).status).toBe(401)
  expect((await get("/session", { authorization: basic("mallory", "s3cret") })).status).toBe(401)
  expect((await get("/session", { authorization: basic("wright", "s3cret") })).status).toBe(200)
  // OpenCode's default username works too.
  expect((await get("/session", { authorization: basic("opencode", "s3cret") })).status).toBe(200)

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

test("auth - ?auth_token= is taken only on the event streams, where a browser's EventSource cannot send a header", async () => {
  h = await startServer({ guard: { password: "s3cret" } })
  const token = (pass: string) => Buffer.from(`wright:${pass}`).toString("base64")
  // Anywhere else a token in the URL (logs, history, Referer) is no credential.
  expect((await get(`/session?auth_token=${token("s3cret")}`)).status).toBe(401)
  expect((await get(`/config?auth_token=${token("s3cret")}`)).status).toBe(401)
  expect((await get(`/global/health?auth_token=${token("s3cret")}`)).status).toBe(401)
  const s = await createClient({ baseUrl: BASE, fetch: h.fetch, directory: h.box.project, auth: { password: "s3cret" } }).session.create()
  expect((await get(`/session/${s.id}?auth_token=${token("s3cret")}`)).status).toBe(401)
  expect((await get(`/session/${s.id}/message?auth_token=${token("s3cret")}`)).status).toBe(401)
  expect((await get(`/session/${s.id}/event/x?auth_token=${token("s3cret")}`)).status).toBe(401)
  for (const route of ["/event", "/global/event", `/session/${s.id}/event`]) {
    expect((await get(`${route}?auth_token=${token("nope")}`)).status).toBe(401)
    const abort = new AbortController()
    const ok = await h.fetch(new Request(`${BASE}${route}?auth_token=${token("s3cret")}`, { signal: abort.signal }))
    expect(ok.status).toBe(200)
    abort.abort()
    await ok.body?.cancel().catch(() => {})
  }
})

test("auth - a configured username replaces the defaults", async () => {
  h = await startServer({ guard: { password: "pw", username: "alice" } })
  expect((await get("/session", { authorization: basic("alice", "pw") })).status).toBe(200)
  expect((await get("/session", { authorization: basic("wright", "pw") })).status).toBe(401)
  expect((await get("/session", { authorization: basic("opencode", "pw") })).status).toBe(401)
})

test("host - only the bound address and port, loopback names and --allow-host names pass, before auth", async () => {
  h = await startServer({ guard: { password: "pw", allowHosts: ["proxy.example", "ide.example:9000"] } })
  const status = async (host: string) => (await get("/session", { host, authorization: basic("wright", "pw") })).status
  for (const host of ["127.0.0.1:4096", "localhost:4096", "[::1]:4096", "proxy.example", "proxy.example:8080", "ide.example:9000"]) expect([host, await status(host)]).toEqual([host, 200])
  for (const host of ["evil.test:4096", "127.0.0.1:4097", "localhost", "ide.example:9001", "ide.example", "127.0.0.1:4096@evil", "a b"]) expect([host, await status(host)]).toEqual([host, 403])
  // A rebinding page has no password, but is told nothing about auth either.
  const forged = await get("/session", { host: "evil.test:4096" })
  expect(forged.status).toBe(403)
  expect(forged.headers.get("www-authenticate")).toBeNull()
})

test("host - a wildcard bind answers to loopback and this machine's addresses; a named bind to its name", async () => {
  h = await startServer({ guard: { hostname: "0.0.0.0" } })
  expect((await get("/session", { host: "127.0.0.1:4096" })).status).toBe(200)
  expect((await get("/session", { host: "evil.test:4096" })).status).toBe(403)
  await h.close()
  h = await startServer({ guard: { hostname: "wright.lan" } })
  expect((await get("/session", { host: "wright.lan:4096" })).status).toBe(200)
  expect((await get("/session", { host: "localhost:4096" })).status).toBe(403)
})

test("cors - only --cors origins pass: their preflight is answered without auth and their requests carry the header", async () => {
  h = await startServer({ guard: { password: "pw", cors: ["https://app.example.com", "tauri://localhost"] } })
  for (const origin of ["https://app.example.com", "tauri://localhost"]) {
    const res = await preflight(origin)
    expect(res.status).toBe(204)
    expect(res.headers.get("access-control-allow-origin")).toBe(origin)
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, HEAD, PUT, PATCH, POST, DELETE")
    expect(res.headers.get("access-control-max-age")).toBe("86400")
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type,authorization")
  }
  // The real request from that origin gets the header, on errors too.
  const denied = await get("/session", { origin: "https://app.example.com" })
  expect(denied.status).toBe(401)
  expect(denied.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
  const ok = await get("/session", { origin: "https://app.example.com", authorization: basic("wright", "pw") })
  expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
  expect((await get("/session", { authorization: basic("wright", "pw") })).headers.get("access-control-allow-origin")).toBeNull()
})

test("cors - every other origin is refused with 403, local ones and the server's own included", async () => {
  h = await startServer({ guard: { cors: ["https://app.example.com"] } })
  // Before this guard, any http://localhost:* origin and an Origin equal to Host were trusted.
  for (const origin of ["https://evil.example", "http://localhost:3000", "http://127.0.0.1:5173", "http://127.0.0.1:4096", "https://tauri.localhost", "http://localhost.evil.example", "null", "https://app.example.com.evil"]) {
    expect([origin, (await preflight(origin)).status]).toEqual([origin, 403])
    const plain = await get("/session", { origin })
    expect([origin, plain.status, plain.headers.get("access-control-allow-origin")]).toEqual([origin, 403, null])
  }
  const e = await (await get("/session", { origin: "http://localhost:3000" })).json()
  expect(e).toEqual({ name: "ForbiddenError", data: { message: 'Origin "http://localhost:3000" is not allowed; start wright with --cors http://localhost:3000, or add it to "server.cors" in the global config' } })
})

test("cors - a browser request without Origin is refused when Sec-Fetch-Site says it crossed sites", async () => {
  h = await startServer({ guard: {} })
  for (const site of ["cross-site", "same-site"]) expect([site, (await get("/session", { "sec-fetch-site": site })).status]).toEqual([site, 403])
  for (const site of ["same-origin", "none"]) expect([site, (await get("/session", { "sec-fetch-site": site })).status]).toEqual([site, 200])
  await h.close()
  h = await startServer({ guard: { cors: ["https://app.example.com"] } })
  expect((await get("/session", { "sec-fetch-site": "cross-site", origin: "https://app.example.com" })).status).toBe(200)
})

test("body - JSON routes take application/json only (415), bodiless posts read as {} (every caller, in-process too)", async () => {
  h = await startServer()
  const post = (headers: Record<string, string>, body?: string) => h!.fetch(new Request(`${BASE}/session`, { method: "POST", headers, body }))
  // `new Request` with a string body and no type says text/plain, as a form or a no-cors fetch would.
  expect((await post({}, '{"title":"x"}')).status).toBe(415)
  expect((await post({ "content-type": "text/plain" }, '{"title":"x"}')).status).toBe(415)
  expect((await post({ "content-type": "application/x-www-form-urlencoded" }, "")).status).toBe(415)
  expect((await post({ "content-type": "application/json" }, '{"title":"json"}')).status).toBe(200)
  expect((await post({})).status).toBe(200)
  const e = await (await post({ "content-type": "text/plain" }, "{}")).json()
  expect(e).toEqual({ name: "UnsupportedMediaTypeError", data: { message: 'Content-Type "text/plain" is refused: send the body of POST /session as application/json' } })
  // A route without a body refuses a form too.
  const [s] = await h.client.session.list()
  expect((await h.fetch(new Request(`${BASE}/session/${s!.id}/abort`, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }))).status).toBe(415)
  expect((await h.fetch(new Request(`${BASE}/session/${s!.id}/abort`, { method: "POST" }))).status).toBe(200)
  expect((await h.client.session.list()).map((x) => x.title).sort()).toEqual(expect.arrayContaining(["json"]))
  expect(await h.client.session.list()).toHaveLength(2)
})

test("body - past 10 MiB (64 MiB for prompts) is 413, counted as it streams in", async () => {
  h = await startServer()
  const s = await h.client.session.create()
  const stream = (bytes: number) =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (bytes <= 0) return c.close()
        const n = Math.min(bytes, 1 << 20)
        bytes -= n
        c.enqueue(new Uint8Array(n).fill(32))
      },
    })
  const send = (path: string, body: ReadableStream<Uint8Array>) =>
    h!.fetch(new Request(BASE + path, { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit))
  const big = await send("/session", stream(11 << 20))
  expect(big.status).toBe(413)
  expect((await big.json()).data.message).toBe("Body of POST /session is larger than 10 MiB: refused")
  // 11 MiB of spaces is too much for a session, but not for a prompt (it is then invalid: 400).
  expect((await send(`/session/${s.id}/prompt_async`, stream(11 << 20))).status).toBe(400)
  expect((await send(`/session/${s.id}/prompt_async`, stream(65 << 20))).status).toBe(413)
})

test("directory - requests may name the project and what is inside it, --allow-dir trees and known projects; others are 403", async () => {
  const allowed = tempDir("wright-allowed-")
  const known = tempDir("wright-known-")
  const stranger = tempDir("wright-stranger-")
  h = await startServer({ allowDirs: [allowed] })
  mkdirSync(path.join(h.box.project, "sub"))
  // A project with a session in the store is known (as if made by an earlier run there).
  const mine = await h.client.session.create()
  ;(await h.app()).store.sessions.put({ ...mine, id: "ses_known", directory: known })
  const status = async (dir: string) => (await get(`/session?directory=${encodeURIComponent(dir)}`)).status
  for (const dir of [h.box.project, path.join(h.box.project, "sub"), allowed, path.join(allowed, "deeper", ".."), known]) expect([dir, await status(dir)]).toEqual([dir, 200])
  for (const dir of ["/", "/etc", h.box.home, stranger, path.join(known, "..")]) expect([dir, await status(dir)]).toEqual([dir, 403])
  const e = (await h.clientFor("/etc").session.list().catch((e) => e)) as ApiError
  expect([e.status, e.name, e.message]).toEqual([403, "ForbiddenError", 'Directory "/etc" is not a project of this server; start wright with --allow-dir /etc, or add it to "server.directories" in the global config'])
})

test("listen - a non-loopback bind needs a password or --insecure", () => {
  expect(listenRefusal("127.0.0.1", {})).toBeUndefined()
  expect(listenRefusal("localhost", {})).toBeUndefined()
  expect(listenRefusal("::1", {})).toBeUndefined()
  expect(listenRefusal("0.0.0.0", { password: "pw" })).toBeUndefined()
  expect(listenRefusal("0.0.0.0", { insecure: true })).toBeUndefined()
  for (const host of ["0.0.0.0", "::", "192.168.1.5", "wright.lan"]) expect(listenRefusal(host, {})).toContain("--insecure")
})
