// The guarded listener of `wright serve`, attacked over real TCP on 127.0.0.1 as a web page,
// a DNS-rebinding page or a careless request would: forged Host and Origin, simple
// cross-origin posts, oversize bodies, directories outside the project, passwords.
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { basicAuth, createClient } from "../../src/sdk"
import { providerConfig, sandbox, spawnWright, waitForOutput, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { tempDir } from "../lib/tool-context"
import { attacks, GUARDED, memoryOf, send, startServe, stopServe, type Served } from "./serve-helpers"

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

async function serve(box: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const served = await startServe(box, args, env)
  running.push(served)
  return served
}

function globalConfig(box: Sandbox, config: unknown) {
  const dir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(dir, { recursive: true })
  writeConfig(dir, config)
}

const portOf = (url: string) => new URL(url).port
const basic = (password: string) => ({ authorization: basicAuth({ password }) })

test("guard - serve refuses forged Host, foreign Origin, cross-site no-cors, simple posts and outside directories; nothing they asked for happens", async () => {
  const box = sandbox()
  const served = await serve(box)
  expect(await attacks(served.url, { home: box.home })).toEqual(GUARDED)
  expect(await createClient({ baseUrl: served.url, directory: box.project }).session.list()).toEqual([])
})

test("guard - each refusal is a named error whose one-line message says how to allow it", async () => {
  const box = sandbox()
  const served = await serve(box)
  const port = portOf(served.url)
  const body = async (headers: Record<string, string>, pathname = "/session", method = "GET", sent?: string) => {
    const r = await send(served.url, method, pathname, { headers, body: sent })
    return { status: r.status, ...r.json() }
  }
  expect(await body({ host: `evil.test:${port}` })).toEqual({
    status: 403,
    name: "ForbiddenError",
    data: { message: `Host "evil.test:${port}" is not this server's address; start wright with --allow-host evil.test to accept it` },
  })
  expect(await body({ origin: "https://evil.example" })).toEqual({
    status: 403,
    name: "ForbiddenError",
    data: { message: `Origin "https://evil.example" is not allowed; start wright with --cors https://evil.example, or add it to "server.cors" in the global config` },
  })
  expect(await body({ "sec-fetch-site": "cross-site" })).toEqual({
    status: 403,
    name: "ForbiddenError",
    data: { message: `A cross-site request without an allowed Origin is refused; allow the page's origin with --cors or "server.cors" in the global config` },
  })
  expect(await body({ "content-type": "text/plain" }, "/session", "POST", "{}")).toEqual({
    status: 415,
    name: "UnsupportedMediaTypeError",
    data: { message: `Content-Type "text/plain" is refused: send the body of POST /session as application/json` },
  })
  expect(await body({}, `/path?directory=${encodeURIComponent("/etc")}`)).toEqual({
    status: 403,
    name: "ForbiddenError",
    data: { message: `Directory "/etc" is not a project of this server; start wright with --allow-dir /etc, or add it to "server.directories" in the global config` },
  })
})

test("guard - loopback names with the bound port are this server's address; --allow-host adds a name", async () => {
  const box = sandbox()
  const plain = await serve(box)
  const port = portOf(plain.url)
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.2:${port}`, `[::1]:${port}`])
    expect([host, (await send(plain.url, "GET", "/session", { headers: { host } })).status]).toEqual([host, 200])
  for (const host of ["localhost", `localhost.evil.test:${port}`, `127.0.0.1.evil.test:${port}`, `wright.example:${port}`])
    expect([host, (await send(plain.url, "GET", "/session", { headers: { host } })).status]).toEqual([host, 403])

  const named = await serve(box, ["--allow-host", "wright.example", "--allow-host", "other.example:8443"])
  const p = portOf(named.url)
  const status = async (host: string) => (await send(named.url, "GET", "/session", { headers: { host } })).status
  // A name without a port is accepted on any port (a reverse proxy sends none); one with a port only there.
  expect([await status(`wright.example:${p}`), await status("wright.example"), await status("WRIGHT.example:443")]).toEqual([200, 200, 200])
  expect([await status("other.example:8443"), await status(`other.example:${p}`), await status(`evil.test:${p}`)]).toEqual([200, 403, 403])
})

test("guard - allowed origins come from --cors and the global config, never from the project's config", async () => {
  const box = sandbox()
  globalConfig(box, { server: { cors: ["https://global.example"] } })
  writeConfig(box.project, { server: { cors: ["https://repo.example"] } })
  const served = await serve(box, ["--cors", "https://ide.example"])
  for (const origin of ["https://ide.example", "https://global.example"]) {
    const pre = await send(served.url, "OPTIONS", "/session", { headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" } })
    expect([origin, pre.status, pre.headers["access-control-allow-origin"]]).toEqual([origin, 204, origin])
    const post = await send(served.url, "POST", "/session", { headers: { origin, "content-type": "application/json", "sec-fetch-site": "cross-site" }, body: JSON.stringify({ title: origin }) })
    expect([origin, post.status, post.headers["access-control-allow-origin"]]).toEqual([origin, 200, origin])
  }
  const repo = await send(served.url, "POST", "/session", { headers: { origin: "https://repo.example", "content-type": "application/json" }, body: "{}" })
  expect(repo.status).toBe(403)
  const titles = (await createClient({ baseUrl: served.url, directory: box.project }).session.list()).map((s) => s.title).sort()
  expect(titles).toEqual(["https://global.example", "https://ide.example"])
})

test("guard - JSON bodies need application/json (415 creates nothing); bodiless and JSON posts work", async () => {
  const box = sandbox()
  const served = await serve(box)
  for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
    const r = await send(served.url, "POST", "/session", { headers: { "content-type": type }, body: '{"title":"forged"}' })
    expect([type, r.status]).toEqual([type, 415])
  }
  const bodiless = await send(served.url, "POST", "/session")
  expect(bodiless.status).toBe(200)
  const json = await send(served.url, "POST", "/session", { headers: { "content-type": "application/json; charset=utf-8" }, body: '{"title":"json"}' })
  expect(json.status).toBe(200)
  const titles = (await createClient({ baseUrl: served.url, directory: box.project }).session.list()).map((s) => s.title)
  expect(titles).toHaveLength(2)
  expect(titles).toContain("json")
  expect(titles.join()).not.toContain("forged")
  // A bodiless POST on a route without a body keeps working too.
  expect((await send(served.url, "POST", `/session/${json.json().id}/abort`)).status).toBe(200)
})

test("guard - an oversize body is refused with 413 while it arrives: the server's memory stays flat", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const served = await serve(box)
  const client = createClient({ baseUrl: served.url, directory: box.project })
  const session = await client.session.create()
  const before = memoryOf(served.pid!)
  const json = { "content-type": "application/json" }
  const MB = 1 << 20
  // Declared too large: refused before a byte is read.
  const declared = await send(served.url, "POST", "/session", { headers: { ...json, "content-length": String(300 * MB) }, body: 300 * MB })
  expect(declared.status).toBe(413)
  // Chunked, with no length: refused once the count passes the limit (10 MiB here, 64 MiB for prompts).
  const chunked = await send(served.url, "POST", "/session", { headers: json, body: 300 * MB })
  expect(chunked.status).toBe(413)
  expect(chunked.json().data.message).toBe("Body of POST /session is larger than 10 MiB: refused")
  const prompt = await send(served.url, "POST", `/session/${session.id}/prompt_async`, { headers: json, body: 300 * MB })
  expect(prompt.status).toBe(413)
  expect(prompt.json().data.message).toBe(`Body of POST /session/${session.id}/prompt_async is larger than 64 MiB: refused`)
  const after = memoryOf(served.pid!)
  // Buffering any one of these bodies would cost at least 300 MiB.
  expect(after.peak - before.rss).toBeLessThan(150)

  // Between the two limits: too large for a session, fine for a prompt with a file part.
  const big = "x".repeat(12 * MB)
  expect((await send(served.url, "POST", "/session", { headers: json, body: JSON.stringify({ title: big }) })).status).toBe(413)
  const part = { type: "file", mime: "text/plain", filename: "big.txt", url: `data:text/plain;base64,${Buffer.from(big).toString("base64")}` }
  const accepted = await send(served.url, "POST", `/session/${session.id}/prompt_async`, { headers: json, body: JSON.stringify({ noReply: true, parts: [part] }) })
  expect([accepted.status, accepted.text]).toEqual([204, ""])
  expect(await client.session.list()).toHaveLength(1)
})

test("guard - a request may name the start directory, one inside it, --allow-dir, server.directories or a known project; anything else is 403 before an App (or its MCP servers) starts", async () => {
  const box = sandbox()
  const victim = tempDir("wright-victim-")
  const flagged = tempDir("wright-flagged-")
  const configured = tempDir("wright-configured-")
  const known = tempDir("wright-known-")
  // Every App starts the global config's MCP servers in its own directory: the marker shows which Apps were built.
  globalConfig(box, { server: { directories: [configured] }, mcp: { marker: { type: "local", command: ["sh", "-c", "touch mcp-started"] } } })
  writeConfig(victim, { mcp: { own: { type: "local", command: ["sh", "-c", "touch own-mcp-started"] } } })
  mkdirSync(path.join(box.project, "sub"))
  symlinkSync(victim, path.join(box.project, "escape"))

  // A session made in `known` (while it was allowed) makes it a known project for later servers.
  const first = await serve(box, ["--allow-dir", known])
  await createClient({ baseUrl: first.url, directory: known }).session.create({ title: "known" })
  await stopServe(first)

  const served = await serve(box, ["--allow-dir", flagged])
  const status = async (dir: string, how: "query" | "header" = "query") =>
    (how === "query"
      ? await send(served.url, "GET", `/session?directory=${encodeURIComponent(dir)}`)
      : await send(served.url, "GET", "/session", { headers: { "x-opencode-directory": encodeURIComponent(dir) } })
    ).status
  for (const dir of [box.project, path.join(box.project, "sub"), "sub", flagged, path.join(flagged), configured, known]) expect([dir, await status(dir)]).toEqual([dir, 200])
  for (const dir of [victim, "/", "/etc", box.home, "..", path.join(box.project, "escape"), path.join(box.project, "missing", "..", "..")]) {
    expect([dir, await status(dir)]).toEqual([dir, 403])
    expect([dir, await status(dir, "header")]).toEqual([dir, 403])
  }
  // A POST (which would create a session there) is refused the same way.
  const post = await send(served.url, "POST", `/session?directory=${encodeURIComponent(victim)}`, { headers: { "content-type": "application/json" }, body: "{}" })
  expect(post.status).toBe(403)

  // The start directory's App did start the MCP server; the refused directory's never existed.
  for (const end = Date.now() + 30_000; !existsSync(path.join(box.project, "mcp-started")) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50))
  expect(existsSync(path.join(box.project, "mcp-started"))).toBe(true)
  await new Promise((r) => setTimeout(r, 500))
  expect(existsSync(path.join(victim, "mcp-started"))).toBe(false)
  expect(existsSync(path.join(victim, "own-mcp-started"))).toBe(false)
})

test("guard - the password comes from WRIGHT_SERVER_PASSWORD, a file, a prompt or --password (which warns that ps shows it)", async () => {
  const box = sandbox()
  const file = path.join(box.home, "server-password")
  writeFileSync(file, "from a file\n")
  chmodSync(file, 0o600)
  const cases: { name: string; args: string[]; env: NodeJS.ProcessEnv; password: string }[] = [
    { name: "env", args: [], env: { WRIGHT_SERVER_PASSWORD: "from env" }, password: "from env" },
    { name: "opencode env", args: [], env: { OPENCODE_SERVER_PASSWORD: "from opencode" }, password: "from opencode" },
    { name: "--password-file", args: ["--password-file", file], env: {}, password: "from a file" },
    { name: "WRIGHT_SERVER_PASSWORD_FILE", args: [], env: { WRIGHT_SERVER_PASSWORD_FILE: file }, password: "from a file" },
    { name: "--password", args: ["--password", "on the line"], env: {}, password: "on the line" },
  ]
  for (const c of cases) {
    const served = await serve(box, c.args, c.env)
    expect([c.name, (await send(served.url, "GET", "/session")).status]).toEqual([c.name, 401])
    expect([c.name, (await send(served.url, "GET", "/session", { headers: basic("wrong") })).status]).toEqual([c.name, 401])
    expect([c.name, (await send(served.url, "GET", "/session", { headers: basic(c.password) })).status]).toEqual([c.name, 200])
    const warned = served.output.stderr.includes("visible to other users of this machine")
    expect([c.name, warned]).toEqual([c.name, c.name === "--password"])
    expect(served.output.stderr).not.toContain("is not set")
    await stopServe(running.pop()!)
  }

  // --password-prompt reads one line (hidden on a terminal; here, piped).
  const prompted = spawnWright(["serve", "--port", "0", "--password-prompt"], { cwd: box.project, env: box.env, input: "typed in\n" })
  await waitForOutput(prompted, (o) => /listening on http:\/\/\S+\n/.test(o.stdout))
  const served = Object.assign(prompted, { url: /listening on (http:\/\/\S+)\n/.exec(prompted.output.stdout)![1]! })
  running.push(served)
  expect((await send(served.url, "GET", "/session")).status).toBe(401)
  expect((await send(served.url, "GET", "/session", { headers: basic("typed in") })).status).toBe(200)

  // A readable-by-others file and an empty file are reported.
  chmodSync(file, 0o644)
  const loose = await serve(box, ["--password-file", file])
  expect(loose.output.stderr).toContain(`${file} is readable by other users`)
  writeFileSync(file, "\n")
  const empty = await wright(["serve", "--port", "0", "--password-file", file], { cwd: box.project, env: box.env })
  expect(empty.code).toBe(1)
  expect(empty.stderr).toContain(`--password-file: ${file} is empty`)
})

test("guard - a non-loopback bind needs a password (env or file) or --insecure, and the refusal names the flags", async () => {
  const box = sandbox()
  const refused = await wright(["serve", "--port", "0", "--hostname", "0.0.0.0"], { cwd: box.project, env: box.env })
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain("--insecure")
  expect(refused.stderr).toContain("--password-file")
  const file = path.join(box.home, "pw")
  writeFileSync(file, "pw\n", { mode: 0o600 })
  const secured = await serve(box, ["--hostname", "0.0.0.0", "--password-file", file])
  const port = portOf(secured.url)
  expect((await send(`http://127.0.0.1:${port}`, "GET", "/session")).status).toBe(401)
  expect((await send(`http://127.0.0.1:${port}`, "GET", "/session", { headers: basic("pw") })).status).toBe(200)
  // Bound to every address: a forged name is still refused.
  expect((await send(`http://127.0.0.1:${port}`, "GET", "/session", { headers: { ...basic("pw"), host: `evil.test:${port}` } })).status).toBe(403)
})

test("guard - run --attach -p works and warns that the password is visible to other users; the env variable does not warn", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const served = await serve(box, [], { WRIGHT_SERVER_PASSWORD: "pw" })
  llm.script(text("one"), text("two"))
  const flag = await wright(["run", "--attach", served.url, "-p", "pw", "hi"], { cwd: box.project, env: box.env })
  expect(flag.code).toBe(0)
  expect(flag.stderr).toContain("visible to other users of this machine")
  const env = await wright(["run", "--attach", served.url, "hi"], { cwd: box.project, env: { ...box.env, WRIGHT_SERVER_PASSWORD: "pw" } })
  expect(env.code).toBe(0)
  expect(env.stderr).not.toContain("visible to other users")
})
