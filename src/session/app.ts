// One App per project directory: it loads that directory's config and builds every service
// the core needs (providers, permissions, agents, tools, history, the loop), wired with
// explicit dependencies. The server keeps one App per directory; nothing here is global.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createAgents } from "../agent"
import { createBus, type Bus } from "../bus"
import { loadConfig, type Config } from "../config"
import { CATALOG, createProviders, type ModelInfo } from "../llm"
import { createMcp } from "../mcp"
import { createPermissions, disabledTools, merge } from "../permission"
import { emptyTokens, NamedError, StructuredOutputError, toErrorObject, type MessageError } from "../protocol"
import type { Store } from "../storage"
import { createSkillTool, createToolRegistry, discoverSkills, fileTools, shellTools, type ToolContext, type ToolServices } from "../tool"
import { createKeyedLock, xdg } from "../util"
import { createHistory, versionOf } from "./history"
import { loadInstructions, type Instruction } from "./instruction"
import { createCommandRunner, loadCommands } from "./command"
import { createCompactionView, processCompaction, prune, requestCompaction } from "./compaction"
import { runLoop, type LoopDeps } from "./loop"
import { createQuestions } from "./question"
import { createRunner, createStatus } from "./runner"
import { createSessionService } from "./service"
import { createStructuredOutputTool } from "./structured"
import { createModelMessageCache } from "./to-model"
import { addTokens } from "./usage"
import { runSubtask } from "./subtask"
import { buildSystem, environment, skillsPrompt } from "./system"
import { createTaskTool } from "./task"
import { generateTitle } from "./title"

export interface AppOptions {
  directory: string
  store: Store
  env?: NodeJS.ProcessEnv
  home?: string
  /** Highest-precedence config (CLI flags). */
  overrides?: Partial<Config>
  /** `--trust`: apply the project's own config in full this time (see config/trust.ts). */
  trust?: boolean
  version?: string
  fetch?: typeof fetch
}

export async function createApp(opts: AppOptions) {
  const env = opts.env ?? process.env
  const home = opts.home ?? os.homedir()
  const directory = path.resolve(opts.directory)
  const loaded = await loadConfig({ directory, env, home, overrides: opts.overrides, trust: opts.trust, knownProviders: new Set(CATALOG.map((p) => p.id)) })
  const config = loaded.config
  const worktree = loaded.worktree
  const isGit = existsSync(path.join(worktree, ".git"))
  const projectID = isGit ? rootCommit(worktree) ?? "global" : "global"
  const paths = xdg(env, home)
  const outputDir = path.join(paths.data, "tool-output")
  const version = opts.version ?? (typeof __WRIGHT_VERSION__ !== "undefined" ? __WRIGHT_VERSION__ : "dev")

  const bus = createBus()
  const store = opts.store
  const providers = createProviders({ config, env, fetch: opts.fetch })
  const permissions = createPermissions({ bus })
  const questions = createQuestions({ bus })
  const configDirs = [...loaded.dirs]
  const agents = createAgents({ config, dirs: configDirs, toolOutputDir: outputDir, home, restricted: loaded.trust.restricted })
  const trust = { ...loaded.trust, ignored: [...loaded.trust.ignored, ...agents.held] }
  const skills = discoverSkills(configDirs)
  const skillsBlock = skillsPrompt(skills)
  const registry = createToolRegistry([...fileTools(), ...shellTools(), createSkillTool(skills)])
  const history = createHistory({ store, bus })
  const status = createStatus(bus)
  // MCP servers connect in the background; each one's tools join the registry when it is up.
  const mcp = createMcp({
    config,
    directory,
    env,
    registry,
    clientInfo: { name: "wright", version },
    onToolsChanged: (server) => bus.publish("mcp.tools.changed", { server }),
  })

  const fileLock = createKeyedLock()
  const systemFiles = new Set<string>()
  const claimed = new Map<string, Set<string>>()
  const services: ToolServices = {
    todos: {
      get: (sessionID) => store.todos.get(sessionID),
      set(sessionID, todos) {
        store.todos.set(sessionID, todos)
        bus.publish("todo.updated", { sessionID, todos })
      },
    },
    question: questions,
    claimInstructions(messageID, files) {
      let seen = claimed.get(messageID)
      if (!seen) claimed.set(messageID, (seen = new Set()))
      const fresh = files.filter((f) => !systemFiles.has(f) && !seen.has(f))
      for (const f of fresh) seen.add(f)
      return fresh
    },
    withFileLock: (file, fn) => fileLock(path.resolve(file), fn),
  }
  const limits = { maxLines: config.tool_output?.max_lines ?? 2000, maxBytes: config.tool_output?.max_bytes ?? 51200 }

  // The environment block and instruction files are read once per run, not per step.
  const runCache = new Map<string, { env: string; instructions: Instruction[] }>()
  async function runPieces(sessionID: string, model: ModelInfo) {
    let cached = runCache.get(sessionID)
    if (!cached) {
      const instructions = await loadInstructions({ directory, worktree, globalConfigDir: paths.config, home, extra: config.instructions, fetch: opts.fetch })
      for (const i of instructions) systemFiles.add(i.path)
      cached = { env: environment({ model, directory, worktree, isGit }), instructions }
      runCache.set(sessionID, cached)
    }
    return cached
  }

  // Filled in once the session service exists (the task tool and subtasks need it).
  let sessions!: ReturnType<typeof createSessionService>
  const userContext = (input: { sessionID: string; messageID: string; callID: string; abort: AbortSignal }): ToolContext => ({
    ...input,
    agent: "user",
    directory,
    worktree,
    // Work the user started explicitly (attached files, @agent subtasks) is not asked about again.
    ask: async () => {},
    metadata: () => {},
    services,
    outputDir,
    limits,
    canDelegate: false,
  })

  const compactionSettings = { ...config.compaction }
  const compactionView = createCompactionView()
  const loopDeps: LoopDeps = {
    modelMessages: createModelMessageCache(versionOf),
    history,
    store,
    agents,
    providers,
    registry,
    config,
    permissions,
    services,
    directory,
    worktree,
    outputDir,
    limits,
    continueOnDeny: config.experimental?.continue_loop_on_deny === true,
    compaction: { auto: config.compaction?.auto, reserved: config.compaction?.reserved },
    setStatus: (sessionID, s) => status.set(sessionID, s),
    publishError: (sessionID, error: MessageError) => bus.publish("session.error", { sessionID, error: error as never }),
    onUsage(sessionID, cost, tokens) {
      const s = store.sessions.get(sessionID)
      if (!s) return
      const next = { ...s, cost: (s.cost ?? 0) + cost, tokens: addTokens(s.tokens ?? emptyTokens(), tokens), time: { ...s.time, updated: Date.now() } }
      store.sessions.put(next)
      bus.publish("session.updated", { sessionID, info: next })
    },
    hooks: {
      async system({ agent, model, user, session }) {
        const pieces = await runPieces(session.id, model.info)
        const skillDenied = disabledTools(["skill"], merge(agent.permission, session.permission ?? [])).has("skill")
        return buildSystem({
          agent,
          environment: pieces.env,
          instructions: pieces.instructions,
          skills: skillDenied ? undefined : skillsBlock,
          userSystem: user.system,
          structuredOutput: user.format?.type === "json_schema",
          mcpInstructions: mcp.instructions(),
        })
      },
      visible: compactionView,
      extraTools({ user, step }) {
        if (user.format?.type !== "json_schema") return []
        return [
          createStructuredOutputTool(
            user.format.schema,
            (value) => (step.structured = value),
            () => step.run.invalidStructured++,
          ),
        ]
      },
      afterStep({ assistant, user, step }) {
        if (user.format?.type !== "json_schema") return undefined
        if (step.structured !== undefined) {
          assistant.structured = step.structured
          // The answer is complete even though the provider ended the step on a tool call.
          assistant.finish = "stop"
          history.putMessage(assistant)
          return "break"
        }
        const retries = user.format.retryCount ?? 2
        const finished = assistant.finish && assistant.finish !== "tool-calls" && assistant.finish !== "unknown"
        if (assistant.error || (!finished && step.run.invalidStructured <= retries)) return undefined
        const message = finished ? "Model did not produce structured output" : `Structured output did not match the schema after ${step.run.invalidStructured} attempts`
        assistant.error = new StructuredOutputError({ message, retries: step.run.invalidStructured }).toObject()
        history.putMessage(assistant)
        bus.publish("session.error", { sessionID: assistant.sessionID, error: assistant.error as never })
        return "break"
      },
      firstStep({ session, user, history: msgs }) {
        void generateTitle(
          { providers, agents, smallModel: config.small_model, setTitle: (id, title) => sessions.update(id, { title }) },
          session,
          user,
          msgs,
        )
      },
      subtask: (input) =>
        runSubtask({ history, taskTool: () => registry.get("task"), context: userContext, directory, worktree }, input),
      compact: ({ session, part, history: msgs, abort }) =>
        processCompaction(
          { history, bus, agents, processor: loopDeps, settings: compactionSettings, resolveModel: (ref) => providers.get(ref.providerID, ref.modelID) },
          { session, part, history: msgs, abort },
        ),
      requestCompaction: ({ session, user, overflow }) => void requestCompaction(history, { session, user, auto: true, overflow }),
      afterRun({ sessionID }) {
        if (compactionSettings.prune !== false) prune(history, sessionID)
      },
    },
  }

  const runner = createRunner({
    status,
    // A prompt sent right after startup waits for the MCP servers still connecting (each within its timeout).
    loop: async (sessionID, abort) => {
      await mcp.ready(abort)
      return runLoop(loopDeps, sessionID, abort)
    },
    onError(sessionID, e) {
      const error = e instanceof NamedError ? e.toObject() : toErrorObject(e)
      bus.publish("session.error", { sessionID, error: error as never })
    },
  })

  const readTool = registry.get("read")
  const readContext = (sessionID: string, messageID: string) =>
    userContext({ sessionID, messageID, callID: "user-attachment", abort: new AbortController().signal })

  sessions = createSessionService({
    store,
    bus,
    history,
    runner,
    status,
    agents,
    providers,
    permissions,
    questions,
    config,
    directory,
    projectID,
    version,
    readTool,
    readContext,
    beforeRun: (sessionID) => runCache.delete(sessionID),
    async summarize(sessionID, input) {
      const session = sessions.get(sessionID)
      runner.assertIdle(sessionID)
      const last = history.messages(sessionID).findLast((m) => m.info.role === "user")?.info
      const model = input.providerID && input.modelID ? { providerID: input.providerID, modelID: input.modelID } : last?.role === "user" ? last.model : providers.defaultModel(config.model)
      const agent = last?.role === "user" ? last.agent : agents.defaultAgent().name
      const user = { id: "", sessionID, role: "user" as const, time: { created: Date.now() }, agent, model }
      requestCompaction(history, { session, user, auto: input.auto ?? false })
      await sessions.run(sessionID)
    },
    command: (sessionID, input) => runCommand(sessionID, input),
  })
  // Re-read on each use, so commands added while wright runs are found.
  const commands = () => loadCommands({ config, dirs: configDirs })
  const runCommand = createCommandRunner({ commands, sessions, agents, bus, directory, worktree, shell: config.shell })
  registry.add(
    createTaskTool({
      agents,
      sessions,
      depthLimit: config.subagent_depth ?? 1,
      callerRules: (sessionID, agentName) => merge(agents.get(agentName)?.permission ?? [], store.sessions.get(sessionID)?.permission ?? []),
    }),
  )

  void mcp.start()
  return {
    directory,
    worktree,
    projectID,
    isGit,
    version,
    config,
    /** The config without the project's layers: where allowed origins and directories come from. */
    userConfig: loaded.userConfig,
    /** Whether this folder's own config applies in full, and what it asked for that was held back. */
    trust,
    /** Config paths whose values are secrets (from `{env:}`/`{file:}`): redacted wherever config leaves. */
    secrets: loaded.secrets,
    configFiles: loaded.files,
    configWarnings: loaded.warnings,
    paths,
    bus: bus as Bus,
    store,
    history,
    status,
    runner,
    providers,
    permissions,
    questions,
    agents,
    registry,
    skills,
    sessions,
    commands,
    mcp,
    async dispose() {
      await runner.shutdown()
      history.flush()
      await mcp.close()
    },
  }
}

export type App = Awaited<ReturnType<typeof createApp>>

function rootCommit(worktree: string): string | undefined {
  try {
    const out = execFileSync("git", ["rev-list", "--max-parents=0", "HEAD"], { cwd: worktree, encoding: "utf8", timeout: 3000, stdio: ["ignore", "pipe", "ignore"] })
    return out.trim().split("\n").sort()[0] || undefined
  } catch {
    return undefined
  }
}
