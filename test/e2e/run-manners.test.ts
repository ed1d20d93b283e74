// `wright run` keeps the user informed, through the built binary against the scripted model:
// each retry says why on stderr; notices start on their own line.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { LAUNCHER, providerConfig, sandbox, type Sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"

const server = useLLMServer()

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  return box
}

test("run - each retry of the provider is shown on stderr with its reason and attempt", async () => {
  const box = project()
  const busy = { error: { status: 503, headers: { "retry-after-ms": "10" }, body: { error: { message: "the model is overloaded" } } } }
  server.script(busy, busy, text("answered at last"))
  const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toBe("answered at last\n")
  const retries = r.stderr.split("\n").filter((l) => l.includes("Retrying"))
  expect(retries).toHaveLength(2)
  expect(retries[0]).toMatch(/attempt 1\b/)
  expect(retries[0]).toContain("overloaded")
  expect(retries[1]).toMatch(/attempt 2\b/)
})

/** `wright <args> 2>&1`: stdout and stderr in one stream, as on a terminal. */
function merged(box: Sandbox, args: string[]): Promise<string> {
  const child = spawn("bash", ["-c", `"$@" 2>&1 </dev/null`, "bash", LAUNCHER, ...args], { cwd: box.project, env: { ...box.env, WRIGHT_NODE: process.execPath } })
  let out = ""
  child.stdout.on("data", (d) => (out += d))
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
  return new Promise((resolve) => child.on("close", () => (clearTimeout(timer), resolve(out))))
}

test("run - a notice starts on its own line, never glued onto the answer's text", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), permission: { bash: "ask" } })
  server.script(toolCall("bash", { command: "uname -a", description: "Look at the host" }, { text: "First I look at the host." }), text("Done."))
  const out = await merged(box, ["run", "hi"])
  expect(out).toMatch(/^permission requested: bash/m)
  expect(out).toContain("First I look at the host.\n")
})

test("run - a command that exits non-zero is shown with ✗ and its exit code, one that succeeds with ✓", async () => {
  const box = project()
  server.script(
    toolCall("bash", { command: "echo fine", description: "Succeed" }),
    toolCall("bash", { command: "echo 'tests failed' && exit 3", description: "Fail" }),
    text("Done."),
  )
  const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  const lines = r.stderr.split("\n")
  expect(lines).toContain("✓ $ echo fine")
  const failed = lines.indexOf("✗ $ echo 'tests failed' && exit 3")
  expect(failed, r.stderr).toBeGreaterThan(-1)
  expect(lines[failed + 1]).toBe("  exit 3")
})

test("run - a run that sent nothing (no model) leaves no session behind, and names wright auth login", async () => {
  const box = sandbox()
  const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain("wright auth login")
  const list = await wright(["session", "list", "--format", "json"], { cwd: box.project, env: box.env })
  expect(JSON.parse(list.stdout)).toEqual([])
})

test("run - a progress line of the core (a language server installing) starts on its own line too", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  // An npm that fails after a moment: the install's progress line is written, nothing is fetched.
  const bin = path.join(box.home, "fake-bin")
  mkdirSync(bin)
  const called = path.join(box.home, "npm-called")
  writeFileSync(path.join(bin, "npm"), `#!/bin/sh\ntouch '${called}'\nsleep 0.2\nexit 1\n`, { mode: 0o755 })
  // Not this repository's node_modules/.bin (npx puts it on PATH): it holds a language server.
  const system = (box.env.PATH ?? "").split(path.delimiter).filter((d) => !d.includes("node_modules"))
  box.env = { ...box.env, PATH: [bin, ...system].join(path.delimiter) }
  delete box.env.WRIGHT_DISABLE_LSP_DOWNLOAD
  // The model takes a moment over its answer: the install starts once no tool has run for a
  // second. It holds after a word until npm has started (or 30 s passed): a fixed 2 s stream
  // raced the idle timer on a loaded machine.
  const started = (async () => {
    for (const end = Date.now() + 30_000; !existsSync(called) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50))
  })()
  server.script(toolCall("write", { filePath: "a.js", content: "export const a = 1\n" }, { text: "Writing the file now." }), { text: ["Let me", " look", " again.", " Done."], delayMs: 400, gate: { after: 2, open: started } })
  const out = await merged(box, ["run", "hi"])
  expect(out).toMatch(/^Installing /m)
  expect(out).not.toMatch(/[^\n]Installing /)
})
