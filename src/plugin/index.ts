// Extensions of one App: OpenCode-format plugins, custom tools and Claude-Code-format command
// hooks. This folder is loaded (with `import()`) only when some source exists, so a project
// without any pays nothing. It owns loading, the hook order (plugins in load order, then
// command hooks) and failure isolation; it does not decide where the session calls it: the
// session layer calls each member at its own seam (the tool-call pipeline's points, the
// prompt, the system prompt, compaction, permission asks, the bus).
import { isDeepStrictEqual } from "node:util"
import { z } from "zod"
import { declareError } from "../protocol"
import type { Exec, Sandbox } from "../process"
import type { Tool } from "../tool"
import { Id } from "../util"
import { createCommandHooks, HOOK_EVENTS, type HooksConfig } from "./command-hooks"
import { loadPlugins, withTimeout, type Host, type PluginStatus } from "./host"
import { createShell } from "./shell"
import { findSources } from "./sources"

export { CLAUDE_TOOL_NAMES, claudeToolName } from "./claude-names"
export { HOOK_EVENTS, matches, type HooksConfig } from "./command-hooks"
export { createShell, quote, type Shell } from "./shell"
export type { PluginStatus } from "./host"

/** A UserPromptSubmit hook blocked the prompt: nothing was stored, the reason is the message. */
export class PromptBlockedError extends Error {
  static readonly info = declareError("PromptBlockedError", { status: 403, quiet: true })
  constructor(message: string) {
    super(message)
    this.name = "PromptBlockedError"
  }
}

export interface ExtensionDeps {
  /** The merged config: `plugin`, `hooks`, and what the `config` hook is shown. */
  config: { plugin?: (string | [string, Record<string, unknown>])[]; hooks?: HooksConfig } & Record<string, unknown>
  /** Config folders, lowest precedence first. */
  dirs: string[]
  /** Project config folders of an untrusted project: their plugins and tools do not load. */
  untrusted: string[]
  directory: string
  worktree: string
  projectID: string
  exec: Exec
  /** The App's sandbox: command hooks and a plugin's `$` run inside it (plugin installs do not). */
  sandbox?: Sandbox
  cacheDir: string
  /** The in-process server's fetch, for the plugins' SDK client (available once the server exists). */
  fetch(): ((req: Request) => Response | Promise<Response>) | undefined
  /** One hook call (and one plugin function at load) may take this long, milliseconds. */
  timeout: number
  /** A plugin or hook failed (named in the message); must not throw. */
  report(message: string): void
  /** npm install progress; must not throw. */
  progress(line: string): void
}

type AuthHook = { provider?: unknown; loader?: (auth: () => Promise<unknown>, provider: unknown) => unknown }
type Call = { origin: string; tool: string; sessionID: string; messageID: string; callID: string; agent: string; args: Record<string, unknown> }
type Final = { status: "completed" | "error"; output: string; title: string; metadata: Record<string, unknown> }
type TextPart = { id: string; sessionID: string; messageID: string; type: "text"; text: string; synthetic?: boolean }

/** The origins hooks see: the model's calls and subtasks, not the user's own `!cmd` or file mentions. */
const HOOKED = new Set(["model", "subtask"])

export async function createExtensions(deps: ExtensionDeps) {
  const sources = findSources({ dirs: deps.dirs, untrusted: deps.untrusted, plugin: deps.config.plugin, directory: deps.directory })
  const commands = createCommandHooks({ hooks: deps.config.hooks ?? {}, exec: deps.exec, sandbox: deps.sandbox, directory: deps.directory, report: deps.report })
  const $ = createShell(deps.exec, { cwd: deps.directory, sandbox: deps.sandbox })
  const parents = new Map<string, string | undefined>()
  const sessionStart = new Map<string, Promise<string[]>>()
  // Hooks run on events are not awaited by the publisher; dispose waits for them (each within its timeout).
  const running = new Set<Promise<unknown>>()
  const background = (p: Promise<unknown>) => {
    running.add(p)
    void p.finally(() => running.delete(p))
  }

  let host: Host | undefined
  let disposed = false
  // Events published while the plugins load reach them once they have loaded, in order.
  let early: { type: string; properties: unknown }[] | undefined = []
  const ready = (async () => {
    if (sources.plugins.length === 0 && sources.tools.length === 0) return
    const { createOpencodeClient } = await import("@opencode-ai/sdk")
    const client = createOpencodeClient({
      baseUrl: "http://wright.internal",
      directory: deps.directory,
      fetch: (async (req: Request) => {
        const f = deps.fetch()
        if (disposed) throw new Error("wright has closed this project")
        if (!f) throw new Error("the wright server is not running in this process")
        return f(req)
      }) as typeof fetch,
    })
    host = await loadPlugins({
      sources,
      input: {
        client,
        project: { id: deps.projectID, worktree: deps.worktree, vcs: deps.projectID === "global" ? undefined : "git", time: { created: Date.now() } },
        directory: deps.directory,
        worktree: deps.worktree,
        serverUrl: new URL("http://wright.internal"),
        $,
        experimental_workspace: { register() {} },
      },
      exec: deps.exec,
      cacheDir: deps.cacheDir,
      directory: deps.directory,
      timeout: deps.timeout,
      report: deps.report,
      progress: deps.progress,
    })
    await host.trigger("config", deps.config, undefined)
  })()
    .catch((e) => deps.report(`Plugins failed to load: ${(e as Error).message}`))
    .finally(() => {
      const queued = early ?? []
      early = undefined
      if (host?.has("event")) for (const e of queued) void host.trigger("event", { event: e }, undefined)
    })

  const trigger = async <O>(name: string, input: unknown, output: O): Promise<O> => (host?.has(name) ? host.trigger(name, input, output) : output)

  return {
    /** Resolves once every plugin and tool loaded or failed. Never rejects. */
    ready: () => ready,
    /** Project files an untrusted folder held back, one line each. */
    held: sources.held,
    /** The custom tools (plugins' and tool files'); complete once `ready` resolved. */
    tools: (): Tool[] => host?.tools() ?? [],
    list(): PluginStatus[] {
      const out = host?.list() ?? []
      const events = HOOK_EVENTS.filter((e) => commands.has(e))
      if (events.length) out.push({ name: "hooks", kind: "hooks", source: "the hooks config key", status: "loaded", hooks: [...events], tools: [] })
      return out
    },

    /**
     * The pipeline's before point: plugins' tool.execute.before (may rewrite args), then
     * PreToolUse. Fails closed: a guard that throws, exits 2 or runs out of time blocks this
     * call with its reason, and guards the next one again.
     */
    async beforeExecute(call: Call): Promise<{ block?: boolean; reason?: string; args?: Record<string, unknown> } | undefined> {
      if (!HOOKED.has(call.origin)) return undefined
      await ready
      let args = call.args
      if (host?.has("tool.execute.before")) {
        const { output, block } = await host.guard("tool.execute.before", { tool: call.tool, sessionID: call.sessionID, callID: call.callID }, { args: structuredClone(args) })
        if (block) return { block: true, reason: block }
        args = output.args
      }
      const verdict = commands.has("PreToolUse") ? await commands.preToolUse({ ...call, args }) : undefined
      if (verdict?.block) return verdict
      if (verdict?.args) args = verdict.args
      return args === call.args ? undefined : { args }
    },

    /** The pipeline's after point (completed calls): plugins' tool.execute.after, then PostToolUse feedback. */
    async afterFinalize(call: Call, final: Final): Promise<Partial<Pick<Final, "output" | "title" | "metadata">> | undefined> {
      if (!HOOKED.has(call.origin) || final.status !== "completed") return undefined
      let out = { title: final.title, output: final.output, metadata: final.metadata }
      if (host?.has("tool.execute.after")) out = await host.trigger("tool.execute.after", { tool: call.tool, sessionID: call.sessionID, callID: call.callID, args: call.args }, { ...out })
      if (commands.has("PostToolUse")) {
        const notes = await commands.postToolUse(call, final)
        if (notes.length) out = { ...out, output: `${out.output}\n\n<hook-feedback>\n${notes.join("\n")}\n</hook-feedback>` }
      }
      return out
    },

    /** A new user message, before it is stored: UserPromptSubmit (may block, may add context), then chat.message. */
    async userMessage(input: { sessionID: string; agent: string; model: { providerID: string; modelID: string }; messageID: string }, output: { message: unknown; parts: (TextPart | { type: string; synthetic?: boolean; text?: string })[] }) {
      await ready
      const context = [...((await sessionStart.get(input.sessionID)) ?? [])]
      sessionStart.delete(input.sessionID)
      // A subagent's prompt is the parent agent's, not the user's: Claude Code runs no hook on it.
      if (commands.has("UserPromptSubmit") && !parents.get(input.sessionID)) {
        const prompt = output.parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text ?? "").join("\n")
        const r = await commands.context("UserPromptSubmit", { session_id: input.sessionID, prompt })
        if (r.block) throw new PromptBlockedError(`A UserPromptSubmit hook blocked this prompt: ${r.block}`)
        context.push(...r.context)
      }
      for (const text of context) output.parts.push({ id: Id.ascending("prt"), sessionID: input.sessionID, messageID: input.messageID, type: "text", text, synthetic: true })
      await trigger("chat.message", input, output)
    },

    /** chat.params then chat.headers, over what the loop would send. */
    async chatParams<P extends { temperature?: number; topP?: number; topK?: number; maxOutputTokens?: number; options: Record<string, unknown>; headers: Record<string, string> }>(input: Record<string, unknown>, params: P): Promise<P> {
      const { headers, ...rest } = params
      const p = await trigger("chat.params", input, { ...rest })
      const h = await trigger("chat.headers", input, { headers: { ...headers } })
      return { ...params, ...p, headers: h.headers }
    },

    /** experimental.chat.messages.transform: plugins may edit a copy of the conversation the model sees. */
    async messages<M>(history: M[]): Promise<M[]> {
      if (!host?.has("experimental.chat.messages.transform")) return history
      return (await host.trigger("experimental.chat.messages.transform", {}, { messages: structuredClone(history) })).messages
    },

    /** experimental.chat.system.transform: plugins may edit the system messages. */
    system: async (input: { sessionID?: string; model: unknown }, system: string[]) => (await trigger("experimental.chat.system.transform", input, { system: [...system] })).system,

    /** Before a compaction: PreCompact, then experimental.session.compacting (context to add, or a new prompt). */
    async compacting(input: { sessionID: string; auto: boolean }): Promise<{ context: string[]; prompt?: string }> {
      if (commands.has("PreCompact")) await commands.run("PreCompact", { session_id: input.sessionID, trigger: input.auto ? "auto" : "manual", custom_instructions: "" })
      return trigger("experimental.session.compacting", { sessionID: input.sessionID }, { context: [] as string[], prompt: undefined as string | undefined })
    },

    /**
     * The loop would end: Stop (SubagentStop for a child session). Exit 2's stderr or
     * `decision: "block"`'s reason keeps the agent going with it; `active` is Claude's
     * stop_hook_active (the run was kept going before), so a script can let it stop.
     */
    async stop(input: { sessionID: string; parentID?: string; active: boolean }): Promise<string | undefined> {
      const event = input.parentID ? "SubagentStop" : "Stop"
      if (!commands.has(event)) return undefined
      for (const r of await commands.run(event, { session_id: input.sessionID, stop_hook_active: input.active })) {
        if (r.code === 2 && r.stderr.trim()) return r.stderr.trim()
        if (r.code === 0 && r.json?.decision === "block" && r.json.reason) return String(r.json.reason)
      }
      return undefined
    },

    /**
     * auth.loader: the first plugin whose `auth.provider` is this provider and that has a
     * loader supplies its options (a key, an endpoint, headers, a fetch), as in OpenCode only
     * when the user has stored credentials for it (`auth()` reads them). A loader that throws
     * or hangs is reported with the plugin's name; the provider then goes as configured.
     */
    async authOptions(providerID: string, provider: unknown, auth: () => unknown): Promise<Record<string, unknown> | undefined> {
      await ready
      const hook = host?.values("auth").find((h) => (h.value as AuthHook).provider === providerID && typeof (h.value as AuthHook).loader === "function")
      if (!hook) return undefined
      try {
        if (auth() === undefined) return undefined
        const getAuth = async () => auth()
        const out = await withTimeout(Promise.resolve((hook.value as AuthHook).loader!(getAuth, provider)), deps.timeout, `did not finish within ${deps.timeout} ms`)
        return out && typeof out === "object" ? (out as Record<string, unknown>) : undefined
      } catch (e) {
        deps.report(`Plugin ${hook.plugin} failed in its auth loader for ${providerID}: ${(e as Error).message ?? String(e)}`)
        return undefined
      }
    },

    /**
     * provider.models: each plugin's `provider` hook may replace that provider's models
     * (`models(provider, { auth })` resolves them by id). Called once, after loading; a hook that
     * throws or hangs is reported and the provider keeps its own models.
     */
    async providerModels(lookup: (providerID: string) => unknown, auth: (providerID: string) => unknown, set: (providerID: string, models: Record<string, unknown>) => void): Promise<void> {
      await ready
      for (const { plugin, value } of host?.values("provider") ?? []) {
        const hook = value as { id?: unknown; models?: (provider: unknown, ctx: unknown) => unknown }
        if (typeof hook.id !== "string" || typeof hook.models !== "function") continue
        const provider = lookup(hook.id)
        if (!provider) continue
        try {
          const models = await withTimeout(Promise.resolve(hook.models(provider, { auth: auth(hook.id) })), deps.timeout, `did not finish within ${deps.timeout} ms`)
          if (models && typeof models === "object") set(hook.id, models as Record<string, unknown>)
        } catch (e) {
          deps.report(`Plugin ${plugin} failed in its provider hook for ${hook.id}: ${(e as Error).message ?? String(e)}`)
        }
      }
    },

    /** tool.definition: plugins may edit each tool's description and parameters (JSON Schema, or a zod schema) before a step sends them. */
    async toolDefinitions(tools: Map<string, Tool>): Promise<void> {
      if (!host?.has("tool.definition")) return
      for (const [id, t] of tools) {
        const out = await host.trigger("tool.definition", { toolID: id }, { description: t.description, parameters: structuredClone(t.jsonSchema) as unknown })
        const zod = isZod(out.parameters)
        const jsonSchema = zod ? toJsonSchema(out.parameters as z.ZodType) : out.parameters
        if (out.description === t.description && !zod && isDeepStrictEqual(jsonSchema, t.jsonSchema)) continue
        if (typeof out.description !== "string" || !jsonSchema || typeof jsonSchema !== "object") {
          deps.report(`A plugin's tool.definition hook left tool ${id} without a description or parameters; it is sent as defined`)
          continue
        }
        tools.set(id, { ...t, description: out.description, jsonSchema: jsonSchema as Record<string, unknown>, ...(zod ? { parameters: out.parameters as z.ZodType } : {}) })
      }
    },

    /** experimental.text.complete: plugins may rewrite a text part once it has streamed in full. */
    textComplete: async (input: { sessionID: string; messageID: string; partID: string }, text: string): Promise<string> => {
      const out = await trigger("experimental.text.complete", input, { text })
      return typeof out.text === "string" ? out.text : text
    },

    /** command.execute.before: plugins may edit the parts an expanded command sends. */
    async beforeCommand<P>(input: { command: string; sessionID: string; arguments: string }, parts: P[]): Promise<P[]> {
      if (!host?.has("command.execute.before")) return parts
      const out = await host.trigger("command.execute.before", input, { parts: structuredClone(parts) })
      return Array.isArray(out.parts) ? out.parts : parts
    },

    /** experimental.compaction.autocontinue: false skips the synthetic "continue" turn after an automatic compaction. */
    async autoContinue(input: { sessionID: string; agent: string; model: { providerID: string }; message: unknown; overflow: boolean }): Promise<boolean> {
      if (!host?.has("experimental.compaction.autocontinue")) return true
      const provider = { source: "config", info: { id: input.model.providerID }, options: {} }
      return (await host.trigger("experimental.compaction.autocontinue", { ...input, provider }, { enabled: true })).enabled !== false
    },

    /** experimental.provider.small_model: a plugin's choice of the small model (titles) for a provider. */
    async smallModel(provider: { id: string } & Record<string, unknown>): Promise<{ providerID: string; modelID: string } | undefined> {
      if (!host?.has("experimental.provider.small_model")) return undefined
      const out = await host.trigger("experimental.provider.small_model", { provider }, { model: undefined as { id?: unknown; providerID?: unknown } | undefined })
      const id = out.model?.id
      if (typeof id !== "string" || !id) return undefined
      return { providerID: typeof out.model?.providerID === "string" ? out.model.providerID : provider.id, modelID: id }
    },

    /** permission.ask: a plugin may settle an ask the rules left open. */
    async permission(request: Record<string, unknown>): Promise<"allow" | "deny" | "ask"> {
      if (!host?.has("permission.ask")) return "ask"
      const out = await host.trigger("permission.ask", request, { status: "ask" as "allow" | "deny" | "ask" })
      return out.status === "allow" || out.status === "deny" ? out.status : "ask"
    },

    /** shell.env: variables the plugins add to a shell command's environment. */
    async shellEnv(input: { cwd: string; sessionID?: string; callID?: string }): Promise<Record<string, string>> {
      if (!host?.has("shell.env")) return {}
      return (await host.trigger("shell.env", input, { env: {} as Record<string, string> })).env
    },

    /** Every bus event: plugins' `event` hook, and the session events command hooks run on. Never throws. */
    event(e: { type: string; properties: any }) {
      onEvent(e)
      if (early) {
        if (early.length < 1000) early.push(e)
      } else if (host?.has("event")) void host.trigger("event", { event: e }, undefined)
    },

    async dispose() {
      await Promise.allSettled([...running])
      const roots = [...parents].filter(([, parent]) => !parent).map(([id]) => id)
      if (commands.has("SessionEnd")) await Promise.all(roots.map((id) => commands.run("SessionEnd", { session_id: id, reason: "exit" })))
      await host?.dispose()
      disposed = true
    },
  }

  function onEvent(e: { type: string; properties: any }) {
    const p = e.properties
    if (e.type === "session.created") {
      parents.set(p.info.id, p.info.parentID)
      if (!p.info.parentID && commands.has("SessionStart")) sessionStart.set(p.info.id, commands.context("SessionStart", { session_id: p.info.id, source: "startup" }).then((r) => r.context))
    } else if (e.type === "session.deleted") {
      if (commands.has("SessionEnd")) background(commands.run("SessionEnd", { session_id: p.sessionID, reason: "other" }))
      parents.delete(p.sessionID)
    } else if (e.type === "permission.asked" && commands.has("Notification")) {
      background(commands.run("Notification", { session_id: p.sessionID, message: `wright needs your permission to use ${p.permission}`, notification_type: "permission_prompt" }))
    } else if (e.type === "question.asked" && commands.has("Notification")) {
      background(commands.run("Notification", { session_id: p.sessionID, message: "wright is waiting for your answer", notification_type: "idle_prompt" }))
    }
  }
}

function isZod(v: unknown): boolean {
  return !!v && typeof v === "object" && "_zod" in v
}

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<string, unknown>
  delete out.$schema
  return out
}

export type Extensions = Awaited<ReturnType<typeof createExtensions>>
