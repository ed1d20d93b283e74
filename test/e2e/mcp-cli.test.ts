// `wright mcp list | add | remove | debug` as a user runs them: the built binary, a sandbox
// home, the real server-everything over stdio.
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { expect, test } from "vitest"
import { sandbox, wright } from "../lib/e2e"

const require = createRequire(import.meta.url)
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

test("mcp cli - add writes the global config, list shows status, tools, prompts and resources, debug and remove", async () => {
  const box = sandbox()
  const globalFile = path.join(box.env.XDG_CONFIG_HOME!, "wright", "wright.json")
  const run = (...args: string[]) => wright(["mcp", ...args], { cwd: box.project, env: box.env, timeoutMs: 90_000 })

  const added = await run("add", "ev", "--env", "TOKEN=s3cret", "--", process.execPath, EVERYTHING, "stdio")
  expect(added.stdout).toContain(`Added MCP server ev (local: ${process.execPath} ${EVERYTHING} stdio) in ${globalFile}`)
  expect(JSON.parse(readFileSync(globalFile, "utf8")).mcp.ev).toEqual({ type: "local", command: [process.execPath, EVERYTHING, "stdio"], environment: { TOKEN: "s3cret" } })
  const remote = await run("add", "docs", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization=Bearer x", "--timeout", "1500")
  expect(remote.code).toBe(0)
  expect(JSON.parse(readFileSync(globalFile, "utf8")).mcp.docs).toEqual({ type: "remote", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" }, timeout: 1500 })

  const list = await run("list")
  expect(list.code).toBe(0)
  expect(list.stdout).toMatch(/● ev {2}connected/)
  expect(list.stdout).toMatch(/tools \(13\): echo, /)
  expect(list.stdout).toContain("/ev:args-prompt <city> [state]")
  expect(list.stdout).toContain("demo://resource/static/document/features.md")
  expect(list.stdout).toMatch(/✗ docs {2}failed: Could not connect to http:\/\/127\.0\.0\.1:9\/mcp/)
  const json = JSON.parse((await run("list", "--format", "json")).stdout)
  expect(json.servers.find((s: { name: string }) => s.name === "ev")).toMatchObject({ status: { status: "connected" }, prompts: expect.arrayContaining([{ name: "ev:args-prompt", arguments: [{ name: "city", required: true }, { name: "state", required: false }] }]) })

  const debug = await run("debug", "docs")
  expect(debug.stdout).toContain('"Authorization": "…"')
  expect(debug.stdout).not.toContain("Bearer x")
  expect(debug.stdout).toMatch(/HTTP\n {2}POST http:\/\/127\.0\.0\.1:9\/mcp failed/)
  const evDebug = await run("debug", "ev")
  expect(evDebug.stdout).toContain('"TOKEN": "…"')
  expect(evDebug.stdout).toMatch(/server mcp-servers\/everything/)
  expect(evDebug.stdout).toContain("13 tools, 4 prompts, 7 resources, 2 resource templates")

  // Comments and other keys of a hand-written file survive the edits.
  writeFileSync(globalFile, readFileSync(globalFile, "utf8").replace("{", '{\n  // my settings\n  "theme": "dark",'))
  const removed = await run("remove", "docs")
  expect(removed.stdout).toContain(`Removed MCP server docs from ${globalFile}`)
  const text = readFileSync(globalFile, "utf8")
  expect(text).toContain("// my settings")
  expect(text).not.toContain("docs")
  expect(text).toContain('"ev"')

  const missing = await run("remove", "docs")
  expect(missing.code).toBe(1)
  expect(missing.stderr).toContain('no MCP server "docs"')
  expect(missing.stderr).toContain("(configured: ev)")
  const bad = await run("add", "x", "--url", "not a url")
  expect(bad.stderr).toContain("--url: not a valid URL: not a url")
  const none = await run("add", "y")
  expect(none.stderr).toContain("give --url URL for a remote server, or the command after --")
}, 240_000)

test("mcp cli - a project's servers are not started until the folder is trusted, and list says so", async () => {
  const box = sandbox()
  delete box.env.WRIGHT_TRUST
  writeFileSync(path.join(box.project, "wright.json"), JSON.stringify({ mcp: { evil: { type: "local", command: ["touch", "/tmp/pwned"] } } }))
  const list = await wright(["mcp", "list"], { cwd: box.project, env: box.env })
  expect(list.stdout).toContain('mcp.evil: starts "touch /tmp/pwned"  not started: this folder is not trusted (wright trust)')
  const debug = await wright(["mcp", "debug", "evil"], { cwd: box.project, env: box.env })
  expect(debug.stderr).toContain("held back, this folder is not trusted")
}, 60_000)
