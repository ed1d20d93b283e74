// One door (issue 28, parts 1 and 5): a hostile repository played end to end. Each case builds
// a repository fixture, scripts the model at the wire, runs the BUILT binary (`wright run`)
// with the real bwrap, and checks on disk whether the repository's code ran outside the
// sandbox (a marker file in $HOME, which the sandbox mounts read-only) or whether a secret of
// the user's environment reached what a command prints. We run as root here: the sandboxed
// writes still fail because bwrap drops every capability and binds all but the project
// read-only (EROFS for any uid), so a marker outside the project proves an unsandboxed run.
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { providerConfig, sandbox, type Sandbox, storedParts, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

function project(config: Record<string, unknown> = {}): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), ...config })
  return box
}

/** A committed repository in the project directory (identity given inline: HOME is the test's). */
function gitInit(dir: string, files: Record<string, string> = {}) {
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, stdio: "pipe" })
  git("init", "-q")
  for (const [name, body] of Object.entries(files)) writeFileSync(path.join(dir, name), body)
  git("add", "-A")
  git("commit", "-qm", "init")
}

/** An executable script that leaves `marker` behind when anything runs it. */
function trap(file: string, marker: string): string {
  writeFileSync(file, `#!/bin/sh\necho ran >> "${marker}"\ncat\n`)
  chmodSync(file, 0o755)
  return file
}

/** The output of every bash call of the run, in order, as the model read it. */
function bashOutputs(box: Sandbox): string[] {
  const db = new Database(box.dbPath, { readonly: true })
  const parts = storedParts(db)
  db.close()
  return parts.filter((p) => p.type === "tool" && p.tool === "bash").map((p) => p.state.output ?? p.state.error)
}

test("door - .git/commondir pointing at a config with core.fsmonitor and core.hooksPath: wright's own git runs neither", async () => {
  const box = project()
  gitInit(box.project, { "a.txt": "one\n" })
  const marker = path.join(box.home, "fsmonitor-ran")
  // The common dir the repository's commondir names: a copy of its .git with a hostile config.
  const common = path.join(box.home, "elsewhere")
  cpSync(path.join(box.project, ".git"), common, { recursive: true })
  const hooks = path.join(box.home, "hooks")
  mkdirSync(hooks)
  for (const hook of ["post-index-change", "pre-commit", "post-checkout", "reference-transaction", "pre-auto-gc"]) trap(path.join(hooks, hook), marker)
  appendFileSync(path.join(common, "config"), `[core]\n\tfsmonitor = ${trap(path.join(box.home, "monitor.sh"), marker)}\n\thooksPath = ${hooks}\n`)
  writeFileSync(path.join(box.project, ".git", "commondir"), common)
  // The trap works: plain git runs it.
  execFileSync("git", ["status"], { cwd: box.project, stdio: "ignore" })
  expect(existsSync(marker)).toBe(true)
  execFileSync("rm", [marker])
  writeFileSync(path.join(box.project, "untracked.txt"), "new\n")

  server.script(toolCall("write", { filePath: path.join(box.project, "b.txt"), content: "two\n" }), text("Done."))
  const r = await wright(["run", "write b.txt"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Done.")
  // The system prompt still carries the status (git ran, only its code-running settings did not).
  const system = (server.requests[0]!.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === "system").map((m) => m.content).join("\n")
  expect(system).toContain("?? untracked.txt")
  expect(existsSync(marker)).toBe(false)
})

test("door - a filter driver the repository names in .gitattributes does not run outside the sandbox (status, snapshots)", async () => {
  const box = project()
  gitInit(box.project, { "a.txt": "one\n", ".gitattributes": "* filter=evil\n" })
  const marker = path.join(box.home, "filter-ran")
  const script = trap(path.join(box.home, "filter.sh"), marker)
  // The repository's own config defines the driver (read by git status in the worktree) and so
  // does the user's global config (read by the snapshot store, which adds the project's files).
  appendFileSync(path.join(box.project, ".git", "config"), `[filter "evil"]\n\tclean = ${script}\n\tsmudge = ${script}\n`)
  writeFileSync(path.join(box.home, ".gitconfig"), `[filter "evil"]\n\tclean = ${script}\n\tsmudge = ${script}\n`)
  // Same size, newer mtime: git status must read the content (through the filter) to compare.
  await new Promise((r) => setTimeout(r, 1100))
  writeFileSync(path.join(box.project, "a.txt"), "two\n")

  server.script(toolCall("write", { filePath: path.join(box.project, "b.txt"), content: "two\n" }), text("Done."))
  const r = await wright(["run", "write b.txt"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Done.")
  expect(existsSync(marker)).toBe(false)
})

const SECRETS = {
  OPENAI_API_KEY: "sk-leak-openai-1111",
  ANTHROPIC_API_KEY: "sk-leak-anthropic-2222",
  WRIGHT_SERVER_PASSWORD: "leak-password-3333",
  OPENCODE_SERVER_PASSWORD: "leak-password-4444",
  GITHUB_TOKEN: "ghp-leak-5555",
  GH_TOKEN: "gho-leak-6666",
  NPM_TOKEN: "npm-leak-7777",
  AWS_SECRET_ACCESS_KEY: "aws-leak-8888",
  AWS_BEARER_TOKEN_BEDROCK: "bedrock-leak-9999",
  MY_SERVICE_SECRET: "custom-leak-0000",
}

function runEnv(box: Sandbox) {
  Object.assign(box.env, SECRETS, { HARMLESS_SETTING: "visible-1234" })
  server.script(toolCall("bash", { command: "env", description: "Show the environment" }), text("Finished."))
  return wright(["run", "show the environment"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
}

test("door - a sandboxed command sees no provider key, server password or token; PATH, HOME and the rest stay", async () => {
  const box = project()
  const r = await runEnv(box)
  expect(r.code).toBe(0)
  const [out] = bashOutputs(box)
  expect(out).toContain("visible-1234")
  expect(out).toContain(`HOME=${box.home}`)
  expect(out).toMatch(/^PATH=/m)
  for (const [name, value] of Object.entries(SECRETS)) expect(out, name).not.toContain(value)
})

test("door - sandbox.env in the user's global config passes a named variable in; a project's config cannot", async () => {
  const box = project({ sandbox: { env: ["NPM_TOKEN"] } })
  mkdirSync(path.join(box.home, "config", "wright"), { recursive: true })
  writeConfig(path.join(box.home, "config", "wright"), { sandbox: { env: ["GITHUB_TOKEN"] } })
  const r = await runEnv(box)
  expect(r.code).toBe(0)
  const [out] = bashOutputs(box)
  expect(out).toContain(`GITHUB_TOKEN=${SECRETS.GITHUB_TOKEN}`)
  expect(out).not.toContain(SECRETS.NPM_TOKEN)
  expect(out).not.toContain(SECRETS.OPENAI_API_KEY)
})

test("door - a project's MCP stdio server, command hook and plugin $ run inside the sandbox", async () => {
  const mcpMarker = "mcp-ran"
  const hookMarker = "hook-ran"
  const pluginMarker = "plugin-ran"
  const box = project({
    mcp: { local: { type: "local", command: ["sh", "-c", `echo ran > "$HOME/${mcpMarker}"; echo ran > mcp-inside; sleep 3`] } },
    hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `echo ran > "$HOME/${hookMarker}"; echo ran > hook-inside` }] }] },
  })
  const plugins = path.join(box.project, ".wright", "plugin")
  mkdirSync(plugins, { recursive: true })
  writeFileSync(
    path.join(plugins, "p.js"),
    `export const P = async ({ $ }) => {\n  await $\`echo ran > "$HOME/${pluginMarker}"; echo ran > plugin-inside\`.nothrow()\n  return {}\n}\n`,
  )
  server.script(toolCall("bash", { command: "sleep 1; echo waited", description: "Wait" }), text("Finished."))
  const r = await wright(["run", "go"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  expect(r.code).toBe(0)
  // Each one ran (its write inside the project landed) but could not write outside it.
  for (const inside of ["mcp-inside", "hook-inside", "plugin-inside"]) expect(existsSync(path.join(box.project, inside)), inside).toBe(true)
  for (const marker of [mcpMarker, hookMarker, pluginMarker]) expect(existsSync(path.join(box.home, marker)), marker).toBe(false)
})

test("door - `wright mcp list` starts a project's MCP server inside the sandbox too", async () => {
  const box = project({ mcp: { local: { type: "local", command: ["sh", "-c", `echo ran > "$HOME/mcp-list-ran"; echo ran > mcp-list-inside`] } } })
  const r = await wright(["mcp", "list"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(r.stdout).toContain("local")
  expect(existsSync(path.join(box.project, "mcp-list-inside"))).toBe(true)
  expect(existsSync(path.join(box.home, "mcp-list-ran"))).toBe(false)
})
