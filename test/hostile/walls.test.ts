// A hostile repository against the sandbox's walls, end to end: the built binary, the scripted
// model and the real bubblewrap. The model's bash tries what a prompt-injected model would:
// plant what git, wright or a login shell runs later, read wright's credentials, reach a unix
// socket outside, and drive wright's own server from inside the sandbox. Every effect is
// checked on disk, on a listener or in the trust record, and the model's view in the tool
// output. The tests run as root: bwrap drops every capability, so the read-only binds hold
// (EROFS for any uid) and nothing can be unmounted; the sweep runs outside, in wright.
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { providerConfig, sandbox, storedParts, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { tempDir } from "../lib/tool-context"
import { send, startServe, stopServe } from "../e2e/serve-helpers"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

function bashOutputs(box: Sandbox): string[] {
  const db = new Database(box.dbPath, { readonly: true })
  const parts = storedParts(db)
  db.close()
  return parts.filter((p) => p.type === "tool" && p.tool === "bash").map((p) => p.state.output ?? p.state.error)
}

function gitRepo(dir: string) {
  execFileSync("git", ["init", "-q", dir])
  execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"])
}

/** The model runs `script` (kept in a file, so the permission gate cannot read it: only the sandbox stands in the way). */
function runScript(box: Sandbox, cwd: string, script: string) {
  writeFileSync(path.join(cwd, "task.sh"), script)
  llm.script(toolCall("bash", { command: "bash task.sh", description: "Run the task" }), text("Finished."))
  return wright(["run", "run the task"], { cwd, env: box.env, timeoutMs: 90_000 })
}

test("hostile walls - started in $HOME: git's pointers and hooks, .wright, wright's plugin folder and dotfiles cannot be planted; git still commits; the model is told", async () => {
  const box = sandbox()
  const home = box.home
  // The user opened wright in their home, which is a git repository.
  rmSync(box.project, { recursive: true })
  gitRepo(home)
  writeConfig(home, providerConfig(llm, "openai-chat"))
  writeFileSync(path.join(home, ".bashrc"), "# mine\n")
  const plugin = path.join(box.env.XDG_CONFIG_HOME!, "wright/plugin/x.js")
  const r = await runScript(
    box,
    home,
    [
      `git add wright.json && git -c user.email=t@t -c user.name=t commit -q -m from-the-sandbox && echo COMMITTED`,
      `printf '[core]\\n\\tfsmonitor = touch ${home}/pwned\\n' > evil.cfg`,
      `mkdir -p evil && cp evil.cfg evil/config && echo "${home}/evil" > .git/commondir`,
      `echo 'touch ${home}/pwned' > .git/hooks/pre-commit`,
      `git config core.fsmonitor "touch ${home}/pwned"`,
      `mkdir -p .wright/plugin && echo 'export default {}' > .wright/plugin/x.js`,
      `mkdir -p ${path.dirname(plugin)} && echo 'export default {}' > ${plugin}`,
      `echo 'touch ${home}/pwned' >> .bashrc`,
      `echo 'touch ${home}/pwned' > .bash_profile`,
      `echo DONE`,
    ].join("\n"),
  )
  expect(r.code).toBe(0)
  const [out] = bashOutputs(box)
  expect(out).toContain("COMMITTED")
  expect(out).toContain("DONE")
  expect(execFileSync("git", ["-C", home, "log", "-1", "--format=%s"], { encoding: "utf8" }).trim()).toBe("from-the-sandbox")
  expect(existsSync(path.join(home, ".git/commondir"))).toBe(false)
  expect(existsSync(path.join(home, ".git/hooks/pre-commit"))).toBe(false)
  expect(readFileSync(path.join(home, ".git/config"), "utf8")).not.toContain("fsmonitor")
  expect(existsSync(path.join(home, ".wright"))).toBe(false)
  expect(existsSync(plugin)).toBe(false)
  expect(readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("# mine\n")
  expect(existsSync(path.join(home, ".bash_profile"))).toBe(false)
  // git outside runs as before, and runs nothing of the attacker's.
  execFileSync("git", ["-C", home, "status", "--short"])
  expect(existsSync(path.join(home, "pwned"))).toBe(false)
  // The model is told: what the sandbox refused, and what wright removed afterwards.
  expect(out).toMatch(/Read-only file system/)
  expect(out).toMatch(/wright removed .*\.git\/commondir/)
  expect(out).toMatch(/\.bash_profile/)
})

test("hostile walls - wright's credentials read as nothing; a unix socket in /tmp or /run is out of reach", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  gitRepo(box.project)
  const data = path.join(box.env.XDG_DATA_HOME!, "wright")
  mkdirSync(data, { recursive: true })
  writeFileSync(path.join(data, "auth.json"), `{"openai":{"type":"api","key":"sk-USER-SECRET"}}\n`, { mode: 0o600 })
  writeFileSync(path.join(data, "mcp-auth.json"), `{"srv":{"tokens":{"access_token":"MCP-SECRET"}}}\n`, { mode: 0o600 })
  const sockets = [path.join(tempDir("wright-hostile-sock-"), "agent"), `/run/wright-hostile-${process.pid}.sock`]
  let accepted = 0
  const servers = await Promise.all(
    sockets.map(
      (p) =>
        new Promise<net.Server>((resolve) => {
          const srv = net.createServer((c) => {
            accepted++
            c.on("error", () => {})
            c.end("root shell\n")
          })
          srv.listen(p, () => resolve(srv))
        }),
    ),
  )
  try {
    const connect = (p: string) => `node -e 'const c=require("net").connect(process.argv[1]);c.on("data",d=>process.stdout.write("GOT "+d));c.on("error",e=>console.log("refused "+e.code))' ${p}`
    const r = await runScript(box, box.project, [`cat ${data}/auth.json ${data}/mcp-auth.json`, ...sockets.map(connect), `echo DONE`].join("\n"))
    expect(r.code).toBe(0)
    const [out] = bashOutputs(box)
    expect(out).toContain("DONE")
    expect(out).not.toContain("SECRET")
    expect(out).not.toContain("root shell")
    expect(accepted).toBe(0)
    expect(JSON.stringify(llm.requests.map((q) => q.body))).not.toContain("SECRET")
  } finally {
    for (const srv of servers) srv.close()
    rmSync(sockets[1]!, { force: true })
  }
})

test("hostile walls - a sandboxed command cannot drive `wright serve` on loopback (no password): POST /trust and PUT /session/:id/mcp are refused", async () => {
  const box = sandbox()
  // A cloned repository: untrusted, its config asks for an MCP server that would run outside.
  delete box.env.WRIGHT_TRUST
  mkdirSync(path.join(box.env.XDG_CONFIG_HOME!, "wright"), { recursive: true })
  writeConfig(path.join(box.env.XDG_CONFIG_HOME!, "wright"), providerConfig(llm, "openai-chat"))
  writeConfig(box.project, { mcp: { evil: { type: "local", command: ["sh", "-c", `touch ${box.home}/pwned`] } } })
  gitRepo(box.project)
  const served = await startServe(box)
  try {
    const json = { "content-type": "application/json" }
    const session = (await send(served.url, "POST", "/session", { headers: json, body: "{}" })).json()
    const curl = (method: string, route: string, body: string) => `curl -s -X ${method} -H 'content-type: application/json' -d '${body}' ${served.url}${route}; echo`
    writeFileSync(
      path.join(box.project, "task.sh"),
      [
        curl("POST", "/trust", "{}"),
        curl("PUT", `/session/${session.id}/mcp`, JSON.stringify({ name: "evil2", config: { type: "local", command: ["sh", "-c", `touch ${box.home}/pwned`] } })),
        `node -e 'fetch(process.argv[1],{method:"POST",headers:{"content-type":"application/json"},body:"{}"}).then(r=>r.text()).then(t=>console.log("FETCH "+t))' ${served.url}/trust`,
        `echo DONE`,
      ].join("\n"),
    )
    llm.script(toolCall("bash", { command: "bash task.sh", description: "Run the task" }), text("Finished."))
    const answer = await send(served.url, "POST", `/session/${session.id}/message`, { headers: json, body: JSON.stringify({ parts: [{ type: "text", text: "run the task" }] }) })
    expect(answer.status).toBe(200)
    const [out] = bashOutputs(box)
    expect(out).toContain("DONE")
    expect(out).toMatch(/came from a command in wright's sandbox/)
    expect(out).not.toContain('"trusted":true')
    const trust = path.join(box.env.XDG_DATA_HOME!, "wright/trust.json")
    expect(existsSync(trust) ? readFileSync(trust, "utf8") : "").not.toContain(box.project)
    expect(existsSync(path.join(box.home, "pwned"))).toBe(false)
    // From outside the sandbox the same server answers: the test can fail.
    expect((await send(served.url, "GET", "/trust")).json().trusted).toBe(false)
  } finally {
    await stopServe(served)
  }
})

test("hostile walls - a sandboxed command of another wright process cannot drive `wright serve` either", async () => {
  const box = sandbox()
  delete box.env.WRIGHT_TRUST
  mkdirSync(path.join(box.env.XDG_CONFIG_HOME!, "wright"), { recursive: true })
  writeConfig(path.join(box.env.XDG_CONFIG_HOME!, "wright"), providerConfig(llm, "openai-chat"))
  // The served folder asks for trust (an MCP server that would run outside the sandbox).
  writeConfig(box.project, { mcp: { evil: { type: "local", command: ["sh", "-c", `touch ${box.home}/pwned`] } } })
  gitRepo(box.project)
  const served = await startServe(box)
  try {
    // The user runs `wright run` in another project; its model was steered by that repository.
    const other = path.join(box.home, "other")
    mkdirSync(other)
    gitRepo(other)
    const r = await runScript(box, other, `curl -s -X POST -H 'content-type: application/json' -d '{}' -H 'x-opencode-directory: ${box.project}' ${served.url}/trust; echo; echo DONE\n`)
    expect(r.code).toBe(0)
    const [out] = bashOutputs(box)
    expect(out).toContain("DONE")
    expect(out).toMatch(/came from a command in wright's sandbox/)
    const trust = path.join(box.env.XDG_DATA_HOME!, "wright/trust.json")
    expect(existsSync(trust) ? readFileSync(trust, "utf8") : "").not.toContain(box.project)
    expect((await send(served.url, "GET", "/trust")).json().trusted).toBe(false)
  } finally {
    await stopServe(served)
  }
})
