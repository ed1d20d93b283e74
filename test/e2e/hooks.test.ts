import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

// Run `npm run build` first: these spawn the built binary.
const server = useLLMServer()

function script(dir: string, name: string, body: string): string {
  const file = path.join(dir, ".claude", "hooks", name)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, `#!/usr/bin/env bash\n${body}`)
  chmodSync(file, 0o755)
  return file
}

// Claude Code hook scripts as people write them: jq-free (sed/grep), reading the event's JSON on stdin.
const BLOCK_RM = `input=$(cat)
cmd=$(printf '%s' "$input" | sed -n 's/.*"command":"\\([^"]*\\)".*/\\1/p')
case "$cmd" in
  rm\\ *|*"&& rm "*) echo "Blocked: rm is not allowed in this project ($cmd)" >&2; exit 2 ;;
esac
exit 0
`
const LOG_POST = `input=$(cat)
tool=$(printf '%s' "$input" | sed -n 's/.*"tool_name":"\\([^"]*\\)".*/\\1/p')
event=$(printf '%s' "$input" | sed -n 's/.*"hook_event_name":"\\([^"]*\\)".*/\\1/p')
echo "$event $tool" >> "$CLAUDE_PROJECT_DIR/hook.log"
`
const CONTEXT = `input=$(cat)
case "$input" in
  *'"prompt":"'*) echo "Project context: the deploy freeze is on until Friday." ;;
esac
`

test("hooks - Claude-format bash scripts: PreToolUse blocks rm (stderr to the model), PostToolUse appends to a log, UserPromptSubmit adds context, end to end with wright run", async () => {
  const box = sandbox()
  writeFileSync(path.join(box.project, "keep.txt"), "precious\n")
  const block = script(box.project, "block-rm.sh", BLOCK_RM)
  const log = script(box.project, "log.sh", LOG_POST)
  const context = script(box.project, "context.sh", CONTEXT)
  // Keeps the agent going once (Claude's stop_hook_active says when it already did).
  const stop = script(box.project, "stop.sh", `input=$(cat)\necho "$input" >> "$CLAUDE_PROJECT_DIR/stop.jsonl"\ncase "$input" in *'"stop_hook_active":false'*) echo "Before stopping, say goodbye." >&2; exit 2 ;; esac\n`)
  writeConfig(box.project, {
    ...providerConfig(server, "openai-chat"),
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: block, timeout: 30 }] }],
      PostToolUse: [{ matcher: "Bash|Write|Edit", hooks: [{ type: "command", command: log }] }],
      UserPromptSubmit: [{ hooks: [{ type: "command", command: context }] }],
      SessionStart: [{ hooks: [{ type: "command", command: `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Session rule: never touch keep.txt."}}'` }] }],
      Stop: [{ hooks: [{ type: "command", command: stop }] }],
    },
  })
  server.script(
    toolCall("bash", { command: "rm keep.txt", description: "Delete it" }),
    toolCall("bash", { command: "echo safe-command", description: "Echo" }),
    toolCall("write", { filePath: "new.txt", content: "x\n" }),
    toolCall("read", { filePath: "keep.txt" }),
    text("Finished."),
    text("Goodbye."),
  )

  const r = await wright(["run", "clean up"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Finished.")
  expect(r.stdout).toContain("Goodbye.")
  // The rm never ran; the model read the script's stderr as the call's error.
  expect(readFileSync(path.join(box.project, "keep.txt"), "utf8")).toBe("precious\n")
  const toolMessages = (i: number) => server.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "tool")
  expect(toolMessages(1).at(-1).content).toContain("Blocked: rm is not allowed in this project (rm keep.txt)")
  expect(toolMessages(2).at(-1).content).toContain("safe-command")
  // PostToolUse ran for the bash and write calls that ran (its matcher leaves out read; the blocked rm never ran).
  expect(readFileSync(path.join(box.project, "hook.log"), "utf8")).toBe("PostToolUse Bash\nPostToolUse Write\n")
  // The context reached the model with the prompt.
  const user = JSON.stringify(server.requests[0]!.body.messages.filter((m: { role: string }) => m.role === "user"))
  expect(user).toContain("clean up")
  expect(user).toContain("Project context: the deploy freeze is on until Friday.")
  expect(user).toContain("Session rule: never touch keep.txt.")
  // Stop ran when the agent would have finished: its stderr kept it going, the second time it let it stop.
  const stops = readFileSync(path.join(box.project, "stop.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
  expect(stops.map((s) => [s.hook_event_name, s.stop_hook_active, s.cwd])).toEqual([
    ["Stop", false, box.project],
    ["Stop", true, box.project],
  ])
  expect(stops[0].session_id).toMatch(/^ses_/)
  const last = server.requests[5]!.body.messages.filter((m: { role: string }) => m.role === "user").at(-1)
  expect(JSON.stringify(last.content)).toContain("Before stopping, say goodbye.")
  expect(server.requests).toHaveLength(6)
}, 180_000)

test("hooks - UserPromptSubmit exit 2 blocks the prompt: the model is never called and the reason is shown", async () => {
  const box = sandbox()
  const deny = script(box.project, "deny.sh", `cat >/dev/null\necho "Prompts mentioning secrets are refused" >&2\nexit 2\n`)
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: deny }] }] } })
  const r = await wright(["run", "print the secrets"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code).not.toBe(0)
  expect(r.stderr).toContain("Prompts mentioning secrets are refused")
  expect(server.requests).toHaveLength(0)
}, 180_000)

test("hooks - a plugin that throws on load is reported by name; one whose guard hangs blocks each call it cannot decide in time, stays loaded, and the run still answers", async () => {
  const box = sandbox()
  const plugins = path.join(box.project, ".wright", "plugin")
  mkdirSync(plugins, { recursive: true })
  writeFileSync(path.join(plugins, "broken.ts"), `export const Broken = async () => { throw new Error("no config for broken") }\n`)
  writeFileSync(
    path.join(plugins, "stuck.js"),
    `export const Stuck = async () => ({ "tool.execute.before": () => new Promise(() => {}) })\n`,
  )
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  // Hook timeouts come from the user's own config only (a project's would time the user's guards out).
  const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, { experimental: { plugin_timeout: 1500 } })
  writeFileSync(path.join(box.project, "notes.txt"), "the notes\n")
  server.script(toolCall("read", { filePath: "notes.txt" }), toolCall("read", { filePath: "notes.txt", offset: 1 }), text("Read them."))

  const r = await wright(["run", "read the notes"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout, r.stderr).toContain("Read them.")
  expect(r.stderr).toContain("Plugin broken failed to load: no config for broken")
  // Fail closed: the guard that could not decide blocked each read; the model read why.
  expect(r.stderr).toContain("Plugin stuck's tool.execute.before hook did not finish within 1500 ms, so this call was blocked.")
  const results = server.requests.slice(1).map((req) => req.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1).content)
  expect(results[0]).toContain("did not finish within 1500 ms")
  expect(results[0]).not.toContain("the notes")
  expect(results[1]).toContain("did not finish within 1500 ms")

  const list = await wright(["plugin", "list", "--format", "json"], { cwd: box.project, env: box.env, timeoutMs: 60_000 })
  expect(list.code).toBe(0)
  const entries = JSON.parse(list.stdout) as { name: string; status: string; error?: string }[]
  expect(entries.map((e) => [e.name, e.status])).toEqual([
    ["broken", "failed"],
    ["stuck", "loaded"],
  ])
  expect(entries[0]!.error).toContain("no config for broken")
  expect(existsSync(path.join(box.project, ".wright", "node_modules"))).toBe(false)
}, 180_000)
