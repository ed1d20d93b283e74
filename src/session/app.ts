// One App per project directory: it loads that directory's config and builds every service
// the core needs (providers, permissions, agents, tools, history, the loop), wired with
// explicit dependencies. The server keeps one App per directory; nothing here is global.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createAgents } from "../agent"
import { createBus, type Bus } from "../bus"
import { loadConfig, xdgPaths, type Config } from "../config"
import { catalogProviderIDs, createProviders, loadCatalog, userCredentials } from "../llm"
import { createMcp } from "../mcp"
import { createPermissions, merge } from "../permission"
import { NamedError, toErrorObject, toMessageError, type MessageError } from "../protocol"
import type { Store } from "../storage"
import { createExec, type Exec } from "../process"
import { createSnapshotStore, snapshotSettings } from "../snapshot"
import { createFileService, createSkillTool, createToolRegistry, discoverSkills, fileTools, shellTools, type AfterWrite, type ToolServices } from "../tool"
import { silentLogger, xdg, type Logger } from "../util"
import { createHistory, versionOf } from "./history"
import { createInstructionClaims } from "./instruction"
import { createCommandRunner, loadCommands } from "./command"
import { compactionHooks } from "./compaction"
import { runLoop, type LoopDeps } from "./loop"
import type { ProcessorDeps } from "./processor"
import { createQuestions } from "./question"
import { createSessionRecords } from "./records"
import { createRunner, createStatus } from "./runner"
import { createSessionService } from "./service"
import { createStepSnapshots } from "./snapshot"
import { structuredOutputHooks } from "./structured"
import { requestSummary } from "./summarize"
import { createModelMessageCache } from "./to-model"
import { createToolPipeline, type ToolHooks } from "./tool-call"
import { sessionUsage } from "./usage"
import { runSubtask } from "./subtask"
import { createSystemPrompt, skillsPrompt } from "./system"
import { createTaskTool } from "./task"
import { titleOnFirstStep } from "./title"

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
  /** The spawner every child process starts through (tests pass a recording one); default: one over `env`. */
  exec?: Exec
  /** The process's logger; services get children of it tagged with their name. */
  log?: Logger
}

export async function createApp(opts: AppOptions) {
  const env = opts.env ?? process.env
  const home = opts.home ?? os.homedir()
  const directory = path.resolve(opts.directory)
  const log = opts.log ?? silentLogger
  // The model catalogue is read from here on the first provider lookup (a refreshed copy, else the snapshot).
  const catalogDir = xdgPaths(env, home).cache
  const loaded = await loadConfig({ directory, env, home, overrides: opts.overrides, trust: opts.trust, knownProviders: catalogProviderIDs(catalogDir) })
  const config = loaded.config
  const worktree = loaded.worktree
  const isGit = existsSync(path.join(worktree, ".git"))
  const projectID = isGit ? rootCommit(worktree) ?? "global" : "global"
  const paths = xdg(env, home)
  const outputDir = path.join(paths.data, "tool-output")
  const version = opts.version ?? (typeof __WRIGHT_VERSION__ !== "undefined" ? __WRIGHT_VERSION__ : "dev")

  const bus = createBus()
  const store = opts.store
  const credentials = userCredentials({ env, home, trusted: loaded.trust.trusted, userProviders: Object.keys(loaded.userConfig.provider ?? {}) })
  const providers = createProviders({ config, env, fetch: opts.fetch, credentials, catalog: () => loadCatalog(catalogDir).providers })
  const permissions = createPermissions({ bus })
  const questions = createQuestions({ bus })
  const configDirs = [...loaded.dirs]
  const agents = createAgents({ config, dirs: configDirs, toolOutputDir: outputDir, home, restricted: loaded.trust.restricted })
  const trust = { ...loaded.trust, ignored: [...loaded.trust.ignored, ...agents.held] }
  const skills = discoverSkills(configDirs)
  const registry = createToolRegistry([...fileTools(), ...shellTools(), createSkillTool(skills)])
  const history = createHistory({ store, bus })
  const status = createStatus(bus)
  // Every child process for the model or the user (bash, `!cmd`, snippets, MCP servers) starts here.
  const spawner = opts.exec ?? createExec({ env })
  // The shadow store of this project (its own git calls go straight to the spawner).
  const snapshotStore = createSnapshotStore({ exec: spawner, worktree, dataDir: paths.data, projectID, home, settings: snapshotSettings(config) })
  // A process may change any file: each start and each exit marks the worktree for the next track.
  const exec: Exec = async (argv, execOpts) => {
    snapshotStore.touch()
    const child = await spawner(argv, execOpts)
    void child.done.then(() => snapshotStore.touch())
    return child
  }
  // MCP servers connect in the background; each one's tools join the registry when it is up.
  const mcp = createMcp({
    config,
    directory,
    exec,
    registry,
    clientInfo: { name: "wright", version },
    log: log.child({ service: "mcp" }),
    onToolsChanged: (server) => bus.publish("mcp.tools.changed", { server }),
  })

  // Snapshots and LSP diagnostics subscribe here; every file a tool writes is announced to them.
  const afterWrite: AfterWrite[] = [(files) => snapshotStore.touch(files)]
  const files = createFileService({ edited: (file) => bus.publish("file.edited", { file }), afterWrite })
  const claims = createInstructionClaims()
  const services: ToolServices = {
    todos: {
      get: (sessionID) => store.todos.get(sessionID),
      set(sessionID, todos) {
        store.todos.set(sessionID, todos)
        bus.publish("todo.updated", { sessionID, todos })
      },
    },
    question: questions,
    claimInstructions: (messageID, files) => claims.claim(messageID, files),
    exec,
    files,
  }
  const limits = { maxLines: config.tool_output?.max_lines ?? 2000, maxBytes: config.tool_output?.max_bytes ?? 51200 }
  const records = createSessionRecords({ store, bus })
  const snapshots = createStepSnapshots({ store: snapshotStore, history, bus, session: (id) => store.sessions.get(id) })

  // Every tool call (the model's, `!cmd`, subtasks, file mentions) runs through this one pipeline.
  const toolHooks: ToolHooks = { beforeExecute: [], afterFinalize: [] }
  const toolCalls = createToolPipeline({
    history,
    permissions,
    services,
    directory,
    worktree,
    outputDir,
    limits,
    continueOnDeny: config.experimental?.continue_loop_on_deny === true,
    hooks: toolHooks,
  })
  const processor: ProcessorDeps = {
    history,
    toolCalls,
    compaction: { auto: config.compaction?.auto, reserved: config.compaction?.reserved },
    setStatus: (sessionID, s) => status.set(sessionID, s),
    publishError: (sessionID, error: MessageError) => bus.publish("session.error", { sessionID, error }),
    onUsage: sessionUsage(records),
    snapshots,
  }
  const systemPrompt = createSystemPrompt({
    instructions: { directory, worktree, globalConfigDir: paths.config, home, extra: config.instructions, fetch: opts.fetch },
    isGit,
    skills: skillsPrompt(skills),
    mcpInstructions: () => mcp.instructions(),
    claims,
  })
  const loopDeps: LoopDeps = {
    ...processor,
    modelMessages: createModelMessageCache(versionOf),
    store,
    agents,
    providers,
    registry,
    config,
    directory,
    worktree,
    hooks: {
      system: systemPrompt.system,
      ...structuredOutputHooks({ history, bus }),
      firstStep: titleOnFirstStep({
        providers,
        agents,
        smallModel: config.small_model,
        setTitle: (id, title) => void records.update(id, (s) => ({ ...s, title })),
        log: log.child({ service: "title" }),
      }),
      // The task tool is looked up when a subtask runs: it joins the registry once the session service exists.
      subtask: (input) => runSubtask({ history, toolCalls, taskTool: () => registry.get("task"), directory, worktree }, input),
      ...compactionHooks({
        history,
        bus,
        agents,
        processor,
        directory,
        worktree,
        settings: { ...config.compaction },
        resolveModel: (ref) => providers.get(ref.providerID, ref.modelID),
      }),
    },
  }

  const runner = createRunner({
    status,
    // A prompt sent right after startup waits for the MCP servers still connecting (each within its timeout).
    loop: async (sessionID, abort) => {
      await mcp.ready(abort)
      // The user may have edited files since the last run: its first step tracks for real.
      snapshotStore.touch()
      try {
        return await runLoop(loopDeps, sessionID, abort)
      } finally {
        await snapshots.settled(sessionID)
      }
    },
    onError(sessionID, e) {
      const error = e instanceof NamedError ? e.toObject() : toErrorObject(e)
      bus.publish("session.error", { sessionID, error: toMessageError(error) })
    },
  })

  // Re-read on each use, so commands added while wright runs are found.
  const commands = () => loadCommands({ config, dirs: configDirs })
  const sessions = createSessionService({
    store,
    bus,
    records,
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
    readTool: registry.get("read"),
    toolCalls,
    beforeRun: systemPrompt.forget,
    summarize: (session, input) => requestSummary({ history, providers, agents, defaultModel: config.model }, session, input),
    command: (target) => createCommandRunner({ commands, sessions: target, agents, bus, directory, worktree, shell: config.shell, exec }),
  })
  // Second phase: the task tool runs child sessions, so it joins the registry after the service.
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
    log,
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
    /** The tool-call pipeline every tool call runs through. */
    toolCalls,
    /** Its named points (before execute, after finalize); empty until plugins attach. */
    toolHooks,
    /** Step snapshots over the project's shadow store: patches, undo, session diffs. */
    snapshots,
    /** Subscribers told the files each tool write changed (after they are on disk); empty until snapshots and LSP attach. */
    afterWrite,
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
