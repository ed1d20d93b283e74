// The OS sandbox end to end: `wright run` (the built binary) against the scripted model, with
// the sandbox on by default and the real bwrap. The commands hide their effect in a script
// file the permission gate cannot read, so only the sandbox stands in the way; every effect is
// checked on disk, on a listener and in the process table. The tests run as root on CI: the
// writes still fail because bwrap mounts all but the project and $TMPDIR read-only (EROFS for
// any uid) and drops every capability.
import Database from "better-sqlite3"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { expect, test as base } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { providerConfig, sandbox, type Sandbox, storedParts, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { requires } from "../lib/requires"

// The sandbox is bubblewrap: without bwrap these tests are skipped, saying so.
const test = base.skipIf(requires("bwrap"))

const server = useLLMServer()

/** The output of every bash call of the run, in order, as the model read it. */
function bashOutputs(box: Sandbox): string[] {
  const db = new Database(box.dbPath, { readonly: true })
  const parts = storedParts(db)
  db.close()
  return parts.filter((p) => p.type === "tool" && p.tool === "bash").map((p) => p.state.output ?? p.state.error)
}

function project(config: Record<string, unknown> = {}, script?: string): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), ...config })
  if (script) writeFileSync(path.join(box.project, "task.sh"), script)
  return box
}

function runTask(box: Sandbox, args: string[] = []) {
  server.script(toolCall("bash", { command: "bash task.sh", description: "Run the task" }), text("Finished."))
  return wright(["run", ...args, "run the task"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
}

test("run sandbox - a write outside the project fails; the model is told it was the sandbox; without --auto the escape is rejected", async () => {
  const box = project({}, `echo pwned > "$HOME/outside.txt"\n`)
  const r = await runTask(box)
  expect(r.code).toBe(0)
  expect(existsSync(path.join(box.home, "outside.txt"))).toBe(false)
  expect(r.stderr).toMatch(/permission requested: sandbox_escape \(bash task\.sh\); auto-rejecting/)
  const [out] = bashOutputs(box)
  expect(out).toMatch(/outside\.txt: Read-only file system/)
  expect(out).toContain("wright's sandbox blocked a write to")
  expect(out).toContain("The user declined to run it outside the sandbox")
  expect(r.stdout).toContain("Finished.")
})

test("run sandbox - --auto does not approve the escape: the command stays inside and the user is told which rule would allow it", async () => {
  const box = project({}, `echo escaped > "$HOME/outside.txt"\n`)
  const r = await runTask(box, ["--auto"])
  expect(r.code).toBe(0)
  expect(existsSync(path.join(box.home, "outside.txt"))).toBe(false)
  expect(r.stderr).toMatch(/permission requested: sandbox_escape \(bash task\.sh\); auto-rejecting: --auto does not approve it/)
  expect(r.stderr).toContain(`"permission": {"sandbox_escape": "allow"}`)
  expect(bashOutputs(box)[0]).toContain("The user declined to run it outside the sandbox")
})

test("run sandbox - sandbox_escape: allow in the user's global config runs the command again outside, no ask", async () => {
  const box = project({}, `echo escaped > "$HOME/outside.txt"\n`)
  const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, { permission: { sandbox_escape: "allow" } })
  const r = await runTask(box)
  expect(r.code).toBe(0)
  expect(r.stderr).not.toContain("sandbox_escape")
  expect(readFileSync(path.join(box.home, "outside.txt"), "utf8")).toBe("escaped\n")
  expect(bashOutputs(box)[0]).toContain("The user allowed running it outside the sandbox")
})

test("run sandbox - sandbox_escape: deny in the config: no ask, no second run", async () => {
  const box = project({ permission: { sandbox_escape: "deny" } }, `echo pwned > "$HOME/outside.txt"\n`)
  const r = await runTask(box, ["--auto"])
  expect(r.code).toBe(0)
  expect(r.stderr).not.toContain("sandbox_escape")
  expect(existsSync(path.join(box.home, "outside.txt"))).toBe(false)
  expect(bashOutputs(box)[0]).toContain("denied by the permission rules (sandbox_escape)")
})

test("run sandbox - with external_directory deny, a script cannot read $HOME", async () => {
  const box = project({ permission: { external_directory: "deny" } }, `cat "$HOME/secret.txt"; echo read-done\n`)
  writeFileSync(path.join(box.home, "secret.txt"), "TOP-SECRET-VALUE\n")
  const r = await runTask(box)
  expect(r.code).toBe(0)
  const [out] = bashOutputs(box)
  expect(out).toContain("read-done")
  expect(out).not.toContain("TOP-SECRET-VALUE")
  expect(JSON.stringify(server.requests.map((q) => q.body))).not.toContain("TOP-SECRET-VALUE")
})

test("run sandbox - network: false: a script cannot reach a listener on 127.0.0.1", async () => {
  let accepted = 0
  const listener = net.createServer((s) => {
    accepted++
    s.end()
  })
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r))
  const port = (listener.address() as net.AddressInfo).port
  try {
    const box = project({ sandbox: { network: false } }, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected\n`)
    const r = await runTask(box)
    expect(r.code).toBe(0)
    expect(accepted).toBe(0)
    const [out] = bashOutputs(box)
    expect(out).not.toContain("connected")
    expect(out).toContain("wright's sandbox has no network")
  } finally {
    listener.close()
  }
})

test("run sandbox - nothing the command started is left running: background, setsid, nohup", async () => {
  const marker = `7${process.pid}${Date.now() % 10000}`
  const box = project({}, `sleep ${marker}1 &\nsetsid sleep ${marker}2 &\nnohup sleep ${marker}3 >/dev/null 2>&1 &\necho started\n`)
  const r = await runTask(box)
  expect(r.code).toBe(0)
  expect(bashOutputs(box)[0]).toContain("started")
  const left = readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`sleep\0${marker}`)
    } catch {
      return false
    }
  })
  expect(left).toEqual([])
})

test("run sandbox - a bwrap that fails here: one warning saying what is off and how to fix it; commands still run", async () => {
  const box = project({}, `echo ran > ran.txt\n`)
  const bin = path.join(box.home, "fake-bin")
  mkdirSync(bin)
  writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
  chmodSync(path.join(bin, "bwrap"), 0o755)
  box.env.PATH = `${bin}:${process.env.PATH}`
  const r = await runTask(box)
  expect(r.code).toBe(0)
  expect(r.stderr.match(/The OS sandbox is off/g)).toHaveLength(1)
  expect(r.stderr).toContain("No permissions to creating new namespace")
  expect(readFileSync(path.join(box.project, "ran.txt"), "utf8")).toBe("ran\n")
})

test("run sandbox - no bwrap on PATH and sandbox.required: the command is refused, nothing runs", async () => {
  const box = project({ sandbox: { required: true } }, `echo ran > ran.txt\n`)
  const bin = path.join(box.home, "bin")
  mkdirSync(bin)
  for (const tool of ["bash", "sh", "cat", "env", "git"]) symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool))
  box.env.PATH = bin
  const r = await runTask(box)
  expect(r.stderr).toMatch(/The OS sandbox is off: bwrap \(bubblewrap\) is not on PATH/)
  expect(r.stderr).toContain("apt install bubblewrap")
  expect(existsSync(path.join(box.project, "ran.txt"))).toBe(false)
  expect(bashOutputs(box)[0]).toMatch(/Nothing was run/)
})
