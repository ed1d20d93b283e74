// MCP OAuth against a local authorization server built from the MCP SDK's server-side helpers
// (fixtures/oauth-server.mjs), one user's story in order: the core finds the server needs a
// login; `wright mcp auth` (the built binary, a stand-in browser) does discovery, dynamic
// registration, PKCE and the loopback callback and stores the tokens 0600; the core connects
// and calls a tool; an expired access token refreshes by itself, at a call and at connect; a
// refresh token that no longer works turns into a re-login prompt; `wright mcp logout` forgets it.
import { spawn, type ChildProcess } from "node:child_process"
import { readFileSync, statSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { afterAll, beforeAll, expect, test } from "vitest"
import { prompt, testCore } from "../lib/core"
import { providerConfig, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"

const FIXTURES = path.join(import.meta.dirname, "fixtures")

let llm: LLMServer
let authServer: ChildProcess
let base = ""
let box: Sandbox
let callbackPort = 0

beforeAll(async () => {
  llm = await startLLMServer()
  authServer = spawn(process.execPath, [path.join(FIXTURES, "oauth-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] })
  base = await new Promise<string>((resolve, reject) => {
    authServer.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()))
    authServer.once("exit", (code) => reject(new Error(`the OAuth server exited (${code})`)))
  })
  callbackPort = await freePort()
  box = sandbox()
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), mcp: { locked: { type: "remote", url: `${base}/mcp`, oauth: { callbackPort } } } })
}, 60_000)
afterAll(async () => {
  authServer?.kill()
  await llm.close()
})

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

const stats = async () => (await fetch(`${base}/test/stats`)).json() as Promise<Record<string, number>>
const control = (what: "expire" | "revoke") => fetch(`${base}/test/${what}`, { method: "POST" })
const authFile = () => path.join(box.env.XDG_DATA_HOME!, "wright", "mcp-auth.json")
const stored = () => JSON.parse(readFileSync(authFile(), "utf8")).locked as { tokens?: { access_token: string; refresh_token?: string }; clientInformation?: { client_id: string } } | undefined
const core = () => testCore({ llm, box, config: { mcp: { locked: { type: "remote", url: `${base}/mcp`, oauth: { callbackPort } } } } })

async function callWhoami(c: Awaited<ReturnType<typeof core>>) {
  llm.reset()
  llm.script(toolCall("locked_whoami", {}), text("done"))
  const session = await c.client.session.create()
  await c.client.session.prompt(session.id, prompt("who am I?"))
  expect(llm.failures).toEqual([])
  return (await c.client.session.messages(session.id)).flatMap((m) => m.parts).find((p) => p.type === "tool") as unknown as {
    state: { status: string; output?: string; error?: string }
  }
}

test("oauth 1 - without a login the server is needs_auth and the front ends are told", async () => {
  const c = await core()
  expect(await c.client.mcp.status()).toEqual({ locked: { status: "needs_auth" } })
  expect(c.events.filter((e) => e.type === "mcp.auth.required").map((e) => e.properties)).toEqual([
    { server: "locked", message: "Server locked requires authentication. Run: wright mcp auth locked" },
  ])
  await c.close()
}, 60_000)

test("oauth 2 - wright mcp auth logs in through the browser and the loopback callback; tokens are stored 0600", async () => {
  const before = await stats()
  const r = await wright(["mcp", "auth", "locked"], { cwd: box.project, env: { ...box.env, BROWSER: `${process.execPath} ${path.join(FIXTURES, "browser.mjs")}` }, timeoutMs: 90_000 })
  expect(r.stderr).toContain(`${base}/authorize?`)
  expect(r.stderr).toMatch(/code_challenge=[\w-]+&code_challenge_method=S256/)
  expect(r.stdout).toContain("Logged in to locked")
  expect(r.stdout).toContain("Connected: 1 tools")
  expect(r.code).toBe(0)
  const after = await stats()
  // Registered dynamically (by the core's first attempt or this login), authorized once, the code exchanged once.
  expect(after.registrations).toBeGreaterThanOrEqual(1)
  expect(after.authorizations - before.authorizations).toBe(1)
  expect(after.codeExchanges - before.codeExchanges).toBe(1)
  expect(statSync(authFile()).mode & 0o777).toBe(0o600)
  expect(stored()).toMatchObject({ tokens: { access_token: expect.any(String), refresh_token: expect.any(String) }, clientInformation: { client_id: expect.any(String) } })
  const list = await wright(["mcp", "auth", "list"], { cwd: box.project, env: box.env })
  expect(list.stdout).toMatch(/locked\s+logged in \(until /)
}, 120_000)

test("oauth 3 - the core connects with the stored token and an expired one refreshes by itself, at a call and at connect", async () => {
  const c = await core()
  expect(await c.client.mcp.status()).toEqual({ locked: { status: "connected" } })
  const clientID = stored()!.clientInformation!.client_id
  expect(await callWhoami(c)).toMatchObject({ state: { status: "completed", output: `client ${clientID}` } })

  const old = stored()!.tokens!.access_token
  const before = await stats()
  await control("expire")
  expect(await callWhoami(c)).toMatchObject({ state: { status: "completed", output: `client ${clientID}` } })
  expect((await stats()).refreshes - before.refreshes).toBe(1)
  expect(stored()!.tokens!.access_token).not.toBe(old)
  await c.close()

  await control("expire")
  const again = await core()
  expect(await again.client.mcp.status()).toEqual({ locked: { status: "connected" } })
  expect((await stats()).refreshes - before.refreshes).toBe(2)
  await again.close()
}, 120_000)

test("oauth 4 - when the refresh token no longer works, the call fails with the re-login prompt and the server is needs_auth", async () => {
  const c = await core()
  expect(await c.client.mcp.status()).toEqual({ locked: { status: "connected" } })
  await control("revoke")
  const part = await callWhoami(c)
  expect(part.state).toMatchObject({ status: "error", error: expect.stringContaining("requires authentication again. Run: wright mcp auth locked") })
  expect(await c.client.mcp.status()).toEqual({ locked: { status: "needs_auth" } })
  expect(c.events.some((e) => e.type === "mcp.auth.required")).toBe(true)
  await c.close()
}, 120_000)

test("oauth 5 - wright mcp logout forgets the login", async () => {
  const r = await wright(["mcp", "logout", "locked"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Logged out of locked")
  expect(stored()).toBeUndefined()
  const again = await wright(["mcp", "logout", "locked"], { cwd: box.project, env: box.env })
  expect(again.code).toBe(1)
  expect(again.stderr).toContain('no OAuth login for "locked" is stored')
  const list = await wright(["mcp", "auth", "list"], { cwd: box.project, env: box.env })
  expect(list.stdout).toMatch(/locked\s+not logged in/)
}, 60_000)

test("oauth - the loopback callback refuses a state other than the login's (CSRF) and reports the server's error", async () => {
  const port = await freePort()
  const redirect = `http://127.0.0.1:${port}/mcp/oauth/callback`
  const { listenForCallback } = await import("../../src/mcp")
  const forged = await listenForCallback(redirect, () => "expected-state", 10_000)
  const res = await fetch(`${redirect}?code=stolen&state=attacker`)
  expect(res.status).toBe(400)
  await expect(forged.code).rejects.toThrow(/state mismatch.*CSRF/)
  const denied = await listenForCallback(redirect, () => "s", 10_000)
  await fetch(`${redirect}?error=access_denied&error_description=user%20said%20no`)
  await expect(denied.code).rejects.toThrow("The authorization server refused the login: access_denied (user said no)")
  await expect(listenForCallback("http://example.com/cb", () => "s", 1000)).rejects.toThrow(/not on this machine's loopback/)
})
