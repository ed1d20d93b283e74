// Guards fail closed (issue 28, part 6), played as an attacker would, through the built binary,
// a scripted model and the real bwrap. The user's guards (a plugin's `tool.execute.before`, a
// command hook's PreToolUse) sit in the user's own global config; each case is a way the
// model or a cloned repository got a call past them on the old code: a guard that threw
// (OpenCode's way to block) was disabled and the call ran; a guard that ran out of time, the
// same; a project's `experimental.plugin_timeout: 1` timed the user's guards out; a blanket
// `allow` (or `--auto`) let a command the sandbox had stopped run again outside it.
// We run as root: the escape cases still prove their point because bwrap mounts $HOME
// read-only and drops every capability, so the write lands only if wright re-runs the
// command outside the sandbox.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { providerConfig, sandbox, type Sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

function globalDir(box: Sandbox): string {
  const dir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(dir, { recursive: true })
  return dir
}

/** A plugin in the user's global plugin folder, where a cloned repository cannot reach. */
function userPlugin(box: Sandbox, name: string, source: string) {
  const dir = path.join(globalDir(box), "plugin")
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, name), source)
}

/** What the model read as the result of each tool call, in order. */
function toolResults(): string[] {
  const last = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[]
  return last.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
}

const RM_GUARD = `export const Guard = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash" && /\\brm\\b/.test(output.args.command)) throw new Error("rm is not allowed here: " + output.args.command)
  },
})
`

test("hostile guards - a plugin's tool.execute.before that throws blocks that call, the model reads why, and the next call is checked again", async () => {
  const box = sandbox()
  writeFileSync(path.join(box.project, "keep.txt"), "precious\n")
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  userPlugin(box, "guard.js", RM_GUARD)
  server.script(
    toolCall("bash", { command: "rm keep.txt", description: "Delete it" }),
    toolCall("bash", { command: "rm -f keep.txt", description: "Delete it again" }),
    toolCall("bash", { command: "echo still-runs", description: "Echo" }),
    text("Done."),
  )
  const r = await wright(["run", "clean up"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(readFileSync(path.join(box.project, "keep.txt"), "utf8")).toBe("precious\n")
  const [first, second, third] = toolResults()
  expect(first).toContain("rm is not allowed here: rm keep.txt")
  expect(second).toContain("rm is not allowed here: rm -f keep.txt")
  expect(third).toContain("still-runs")
  expect(r.stderr).not.toMatch(/disabled/)
}, 180_000)

test("hostile guards - a tool.execute.before that runs out of time blocks the call instead of letting it run", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeConfig(globalDir(box), { experimental: { plugin_timeout: 1500 } })
  userPlugin(box, "slow.js", `export const Slow = async () => ({ "tool.execute.before": (input) => input.tool === "bash" ? new Promise(() => {}) : undefined })\n`)
  server.script(
    toolCall("bash", { command: "echo one > ran1.txt", description: "Write" }),
    toolCall("bash", { command: "echo two > ran2.txt", description: "Write again" }),
    text("Done."),
  )
  const r = await wright(["run", "write"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(path.join(box.project, "ran1.txt"))).toBe(false)
  expect(existsSync(path.join(box.project, "ran2.txt"))).toBe(false)
  const [first, second] = toolResults()
  expect(first).toMatch(/slow.*did not finish within 1500 ms/)
  expect(second).toMatch(/slow.*did not finish within 1500 ms/)
}, 180_000)

test("hostile guards - a project's experimental.plugin_timeout does not apply to the user's guards", async () => {
  const box = sandbox()
  writeFileSync(path.join(box.project, "keep.txt"), "precious\n")
  // The project (trusted, even) sets a 1 ms timeout; the user's guard takes ~300 ms to decide.
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), experimental: { plugin_timeout: 1 } })
  userPlugin(
    box,
    "careful.js",
    `export const Careful = async () => ({
  "tool.execute.before": async (input, output) => {
    await new Promise((r) => setTimeout(r, 300))
    if (input.tool === "bash" && /\\brm\\b/.test(output.args.command)) throw new Error("careful says no: " + output.args.command)
  },
})
`,
  )
  server.script(
    toolCall("bash", { command: "rm keep.txt", description: "Delete it" }),
    toolCall("bash", { command: "echo allowed-by-guard", description: "Echo" }),
    text("Done."),
  )
  const r = await wright(["run", "clean up"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(readFileSync(path.join(box.project, "keep.txt"), "utf8")).toBe("precious\n")
  const [first, second] = toolResults()
  // The guard itself decided each call: its reason, and the call it let through ran.
  expect(first).toContain("careful says no: rm keep.txt")
  expect(second).toContain("allowed-by-guard")
  expect(r.stderr).toContain("experimental.plugin_timeout in the project's config is ignored")
}, 180_000)

test("hostile guards - a PreToolUse command hook that runs out of time blocks the call", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeConfig(globalDir(box), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; sleep 20", timeout: 1 }] }] } })
  server.script(toolCall("bash", { command: "echo ran > ran.txt", description: "Write" }), text("Done."))
  const r = await wright(["run", "write"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(path.join(box.project, "ran.txt"))).toBe(false)
  expect(toolResults()[0]).toMatch(/PreToolUse hook .* did not finish within 1 s/)
}, 180_000)

// The sandbox stops a write to $HOME; the escape ask decides whether it runs again outside.
function escapeTask(box: Sandbox, args: string[]) {
  writeFileSync(path.join(box.project, "task.sh"), `echo escaped > "$HOME/outside.txt"\n`)
  server.script(toolCall("bash", { command: "bash task.sh", description: "Run the task" }), text("Finished."))
  return wright(["run", ...args, "run the task"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
}

test("hostile guards - '*': 'allow' with --auto does not let a command the sandbox stopped run outside", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeConfig(globalDir(box), { permission: { "*": "allow" } })
  const r = await escapeTask(box, ["--auto"])
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(path.join(box.home, "outside.txt"))).toBe(false)
  expect(r.stderr).toMatch(/sandbox_escape \(bash task\.sh\).*--auto does not approve/)
}, 120_000)

test("hostile guards - 'permission': 'allow' does not let a command the sandbox stopped run outside", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeConfig(globalDir(box), { permission: "allow" })
  const r = await escapeTask(box, [])
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(path.join(box.home, "outside.txt"))).toBe(false)
  expect(r.stderr).toMatch(/permission requested: sandbox_escape \(bash task\.sh\); auto-rejecting/)
}, 120_000)

test("hostile guards - an untrusted project's sandbox_escape: allow, with --auto, does not run the command outside", async () => {
  const box = sandbox()
  delete box.env.WRIGHT_TRUST
  writeConfig(globalDir(box), providerConfig(server, "openai-chat"))
  writeConfig(box.project, { permission: { sandbox_escape: "allow" } })
  const r = await escapeTask(box, ["--auto"])
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(path.join(box.home, "outside.txt"))).toBe(false)
  // The project's rule settled nothing (an untrusted folder's allow rules are dropped): it was asked, and --auto said no.
  expect(r.stderr).toMatch(/permission requested: sandbox_escape \(bash task\.sh\); auto-rejecting: --auto does not approve it/)
}, 120_000)
