// Command hooks in Claude Code's format and contract, so existing hook scripts run unchanged:
// `"hooks": { "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command",
// "command": "…", "timeout": 60 }] }] }`. Each matching command runs through the spawner
// with bash, in the project directory, the event's JSON on stdin and CLAUDE_PROJECT_DIR set;
// the matching commands of one event run side by side. Exit 0: stdout may be JSON (a decision,
// a reason, updatedInput, additionalContext); exit 2: a block, stderr is the reason; any other
// exit: a non-blocking error, reported. A command past its timeout is killed and reported;
// for PreToolUse that also blocks the call (fail closed), for the other events it does not.
// Timeouts are the hook's own (`timeout`): a project's hooks run only when it is trusted, and
// a project's copy of one of the user's commands never replaces the user's (first one wins).
import type { Exec, Sandbox } from "../process"
import { claudeToolName, fromClaudeInput, toClaudeInput } from "./claude-names"

export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact", "Notification"] as const
export type HookEvent = (typeof HOOK_EVENTS)[number]

export interface CommandHook {
  type: "command"
  command: string
  /** Seconds; default 60, as in Claude Code. */
  timeout?: number
}
export type HooksConfig = Partial<Record<string, { matcher?: string; hooks: CommandHook[] }[]>>

export interface HookRun {
  command: string
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** stdout parsed as a JSON object, when it is one. */
  json?: Record<string, any>
}

export interface CommandHooksDeps {
  hooks: HooksConfig
  exec: Exec
  /** The App's sandbox: hooks run inside it when it is on (a hook is a command like any other); undefined: outside. */
  sandbox?: Sandbox
  directory: string
  /** A hook that failed without blocking (exit other than 0/2, a timeout); must not throw. */
  report(message: string): void
}

export type CommandHooks = ReturnType<typeof createCommandHooks>

export function createCommandHooks(deps: CommandHooksDeps) {
  const unknown = Object.keys(deps.hooks).filter((e) => !(HOOK_EVENTS as readonly string[]).includes(e))
  if (unknown.length) deps.report(`hooks: ${unknown.join(", ")} ${unknown.length === 1 ? "is" : "are"} not supported by wright and will not run (supported: ${HOOK_EVENTS.join(", ")})`)

  function matching(event: HookEvent, tool?: string): CommandHook[] {
    const out: CommandHook[] = []
    for (const group of deps.hooks[event] ?? []) {
      if (tool !== undefined && !matches(group.matcher, tool)) continue
      for (const h of group.hooks) if (h.type === "command" && !out.some((o) => o.command === h.command)) out.push(h)
    }
    return out
  }

  async function run(event: HookEvent, payload: Record<string, unknown>, tool?: string): Promise<HookRun[]> {
    const hooks = matching(event, tool)
    if (hooks.length === 0) return []
    const body = JSON.stringify({ session_id: "", transcript_path: "", cwd: deps.directory, permission_mode: "default", hook_event_name: event, ...payload })
    const runs = await Promise.all(hooks.map((h) => runOne(deps, h, body)))
    for (const r of runs) {
      if (r.timedOut) deps.report(`${event} hook ${JSON.stringify(r.command)} timed out and was killed`)
      else if (r.code !== 0 && r.code !== 2) deps.report(`${event} hook ${JSON.stringify(r.command)} failed with exit code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ""}`)
    }
    return runs
  }

  return {
    has: (event: HookEvent) => (deps.hooks[event]?.length ?? 0) > 0,
    run,

    /** PreToolUse: a block (exit 2, a deny decision, or a timeout) with its reason, or rewritten arguments. */
    async preToolUse(call: { tool: string; sessionID: string; callID: string; args: Record<string, unknown> }): Promise<{ block?: boolean; reason?: string; args?: Record<string, unknown> } | undefined> {
      const name = claudeToolName(call.tool)
      const runs = await run("PreToolUse", { session_id: call.sessionID, tool_name: name, tool_input: toClaudeInput(call.args), tool_use_id: call.callID }, name)
      let args: Record<string, unknown> | undefined
      for (const r of runs) {
        if (r.code === 2) return { block: true, reason: r.stderr.trim() || `A PreToolUse hook blocked this ${name} call.` }
        // Fail closed: a guard that could not decide in time has not allowed the call.
        if (r.timedOut) {
          const seconds = matching("PreToolUse", name).find((h) => h.command === r.command)?.timeout ?? 60
          return { block: true, reason: `A PreToolUse hook (${JSON.stringify(r.command)}) did not finish within ${seconds} s, so this ${name} call was blocked.` }
        }
        if (r.code !== 0 || !r.json) continue
        const specific = r.json.hookSpecificOutput ?? {}
        const decision = specific.permissionDecision ?? (r.json.decision === "block" ? "deny" : undefined)
        if (decision === "deny") return { block: true, reason: specific.permissionDecisionReason ?? r.json.reason ?? `A PreToolUse hook denied this ${name} call.` }
        if (r.json.continue === false) return { block: true, reason: r.json.stopReason ?? `A PreToolUse hook stopped this ${name} call.` }
        if (specific.updatedInput && typeof specific.updatedInput === "object") args = { ...(args ?? call.args), ...fromClaudeInput(specific.updatedInput) }
      }
      return args ? { args } : undefined
    },

    /** PostToolUse: feedback for the model (exit 2's stderr, a block reason, additionalContext), appended to the output. */
    async postToolUse(call: { tool: string; sessionID: string; callID: string; args: Record<string, unknown> }, result: { status: string; output: string; metadata: Record<string, unknown> }): Promise<string[]> {
      const name = claudeToolName(call.tool)
      const response = result.status === "completed" ? { output: result.output, metadata: result.metadata } : { error: result.output }
      const runs = await run("PostToolUse", { session_id: call.sessionID, tool_name: name, tool_input: toClaudeInput(call.args), tool_response: response, tool_use_id: call.callID }, name)
      const notes: string[] = []
      for (const r of runs) {
        if (r.code === 2 && r.stderr.trim()) notes.push(r.stderr.trim())
        if (r.code !== 0 || !r.json) continue
        if (r.json.decision === "block" && r.json.reason) notes.push(String(r.json.reason))
        if (r.json.hookSpecificOutput?.additionalContext) notes.push(String(r.json.hookSpecificOutput.additionalContext))
      }
      return notes
    },

    /** UserPromptSubmit and SessionStart: context to add for the model, or (UserPromptSubmit) a block with its reason. */
    async context(event: "UserPromptSubmit" | "SessionStart", payload: Record<string, unknown>): Promise<{ block?: string; context: string[] }> {
      const runs = await run(event, payload)
      const context: string[] = []
      for (const r of runs) {
        if (r.code === 2 && event === "UserPromptSubmit") return { block: r.stderr.trim() || "A UserPromptSubmit hook blocked this prompt.", context }
        if (r.code !== 0) continue
        if (!r.json) {
          if (r.stdout.trim()) context.push(r.stdout.trim())
          continue
        }
        if (event === "UserPromptSubmit" && (r.json.decision === "block" || r.json.continue === false)) return { block: String(r.json.reason ?? r.json.stopReason ?? "A UserPromptSubmit hook blocked this prompt."), context }
        if (r.json.hookSpecificOutput?.additionalContext) context.push(String(r.json.hookSpecificOutput.additionalContext))
      }
      return { context }
    },
  }
}

/** Claude Code's matcher: empty or `*` matches every tool, otherwise a regex over the whole name. */
export function matches(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool)
  } catch {
    return matcher === tool
  }
}

async function runOne(deps: CommandHooksDeps, hook: CommandHook, body: string): Promise<HookRun> {
  const base = { command: hook.command, stdout: "", stderr: "", timedOut: false }
  let child
  try {
    child = await deps.exec(["bash", "-c", hook.command], {
      cwd: deps.directory,
      stdin: "pipe",
      timeout: (hook.timeout ?? 60) * 1000,
      env: { CLAUDE_PROJECT_DIR: deps.directory, WRIGHT_PROJECT_DIR: deps.directory },
      sandbox: deps.sandbox,
    })
  } catch (e) {
    return { ...base, code: 127, stderr: (e as Error).message }
  }
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
  child.stdin?.end(body)
  const exit = await child.done
  const run: HookRun = { ...base, code: exit.timedOut ? null : exit.code, stdout, stderr, timedOut: exit.timedOut }
  const text = stdout.trim()
  if (text.startsWith("{")) {
    try {
      const parsed = JSON.parse(text)
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) run.json = parsed
    } catch {
      // Plain output that happens to start with a brace: context, not a decision.
    }
  }
  return run
}
