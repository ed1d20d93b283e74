// One App per project directory: it loads that directory's config and builds every service
// the core needs (providers, permissions, agents, tools, history, the loop), wired with
// explicit dependencies. The server keeps one App per directory; nothing here is global.
import { existsSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createAgents } from "../agent"
import { createBus, type Bus } from "../bus"
import { findWorktree, loadConfig, xdgPaths, type Config } from "../config"
import { catalogProviderIDs, createProviders, loadCatalog, readAuthFile, userCredentials, type Credentials } from "../llm"
import { createMcp, mcpAuthFile, resourceContent } from "../mcp"
import { createPermissions, merge } from "../permission"
import { NamedError, toErrorObject, toMessageError } from "../protocol"
import type { Extensions } from "../plugin"
import { createInboxStore, createLeases, type Store } from "../storage"
import { createExec, readRestriction, resolveSandbox, runGit, warmSandbox, worktreeGit, type Exec, type Sandbox } from "../process"
import { createSnapshotStore, snapshotSettings } from "../snapshot"
import { createSkillTool, createToolRegistry, configureWebsearch, fileTools, loadSkills, shellTools } from "../tool"
import { silentLogger, xdg, type Logger } from "../util"
import { createHistory } from "./history"
import { wrightWorktreeOf } from "./worktree"
import { createLiveRegistry } from "./live"
import { createSessionLeases } from "./lease"
import { createInbox } from "./inbox"
import { createCommandRunner, loadCommands, mcpPromptCommands, shadowedBuiltins } from "./command"
import { createSessionMcp } from "./session-mcp"
import { runLoop } from "./loop"
import { createQuestions } from "./question"
import { createSessionRecords } from "./records"
import { createRunner, createStatus } from "./runner"
import { createResume, type Resume } from "./resume"
import { createSessionService } from "./service"
import { createStepSnapshots } from "./snapshot"
import { requestSummary } from "./summarize"
import { hasExtensions, isPure, loadExtensions } from "./extensions"
import { pluginTimeout, projectTimeoutNotice } from "./app-plugins"
import { wireLoop } from "./app-loop"
import { wireToolCalls } from "./app-tools"
import { createTaskTool } from "./task"
import { createTaskStatusTool } from "./task-status"
import { createBackground } from "./background"
import { createPlanTools } from "./plan"

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
  /** The OS sandbox commands run in (tests pass one); default: resolved from the `sandbox` config. */
  sandbox?: Sandbox
  /** Lease timings (tests and the heartbeat benchmark); default: see session/lease.ts. */
  lease?: { heartbeatMs?: number; retryMs?: number; followMs?: number; staleMs?: number }
  /** The in-process server's fetch once it exists: plugins get an SDK client over it. */
  serverFetch?: () => ((req: Request) => Response | Promise<Response>) | undefined
  /** Where plugin install progress ("Installing plugin x with npm…") goes; default: the log. */
  progress?: (line: string) => void
}

export async function createApp(opts: AppOptions) {
  const env = opts.env ?? process.env
  const home = opts.home ?? os.homedir()
  const directory = path.resolve(opts.directory)
  const log = opts.log ?? silentLogger
  // The model catalogue is read from here on the first provider lookup (a refreshed copy, else the snapshot).
  const catalogDir = xdgPaths(env, home).cache
  // bwrap's probe runs while the config loads (cached per process; a sandbox off by config just ignores it).
  warmSandbox(env)
  // Sandboxed commands get the environment without secrets, except what the user's own config
  // passes in by name (`sandbox.env`: never a project's, known once the config is loaded).
  let passEnv: readonly string[] = []
  const spawner =
    opts.exec ??
    createExec({ env, passEnv: () => passEnv, secretNames: () => Object.values(loadCatalog(catalogDir).providers).flatMap((p) => p.env) })
  // The project's id is its root commit, asked of git while the config loads (the worktree is
  // the same nearest `.git` the config finds): a synchronous git run here delayed every first
  // request made in a repository.
  const gitRoot = findWorktree(directory)
  const projectIDFromGit = existsSync(path.join(gitRoot, ".git")) ? rootCommit(spawner, gitRoot) : undefined
  const loaded = await loadConfig({ directory, env, home, overrides: opts.overrides, trust: opts.trust, knownProviders: catalogProviderIDs(catalogDir) })
  const config = loaded.config
  passEnv = loaded.userConfig.sandbox?.env ?? []
  const worktree = loaded.worktree
  const isGit = existsSync(path.join(worktree, ".git"))
  const projectID = (isGit ? await (worktree === gitRoot ? projectIDFromGit : rootCommit(spawner, worktree)) : undefined) ?? "global"
  const paths = xdg(env, home)
  const outputDir = path.join(paths.data, "tool-output")
  const version = opts.version ?? (typeof __WRIGHT_VERSION__ !== "undefined" ? __WRIGHT_VERSION__ : "dev")

  const bus = createBus()
  // `wright ps`: this App's sessions and their state, for other processes to read.
  const live = createLiveRegistry({ bus, dataDir: paths.data, directory })
  const store = opts.store
  // Session events go to the replayable event log (storage/event-log.ts); an echo of another
  // process's writes is skipped: that process logged it.
  if (store.events.enabled) bus.subscribeAll((e) => void (bus.isEcho(e) || store.events.append(directory, e)))
  const credentials = userCredentials({ env, home, trusted: loaded.trust.trusted, userProviders: Object.keys(loaded.userConfig.provider ?? {}) })
  const providers = createProviders({
    config,
    env,
    fetch: opts.fetch,
    credentials,
    catalog: () => loadCatalog(catalogDir).providers,
    // An auth plugin's loader (plugins' `auth` hook) may supply a provider's key, endpoint or fetch.
    authOptions: async (id, info) => extensions?.authOptions(id, info, () => storedAuth(credentials, id)),
  })
  // Plugins, custom tools and command hooks (assigned below; src/plugin loads only when one exists).
  let extensions: Extensions | undefined
  const permissions = createPermissions({ bus, decide: (request) => extensions?.permission(request) ?? Promise.resolve("ask") })
  const questions = createQuestions({ bus })
  const configDirs = [...loaded.dirs]
  const agents = createAgents({ config, dirs: configDirs, toolOutputDir: outputDir, home, restricted: loaded.trust.restricted })
  // A project command named like a built-in: held back untrusted, a warning trusted (command.ts).
  const projectCommands = { ...loaded.project, trusted: loaded.trust.trusted }
  const shadowed = shadowedBuiltins(projectCommands, directory)
  const trust = { ...loaded.trust, ignored: [...loaded.trust.ignored, ...agents.held, ...(loaded.trust.trusted ? [] : shadowed)] }
  // Skills of the user's, the project's and other agents' folders (an untrusted project's may not link out of it).
  const { skills, warnings: skillWarnings } = await loadSkills({
    home,
    directory,
    worktree,
    configDirs,
    projectDirs: loaded.project.dirs,
    trusted: loaded.trust.trusted,
    external: !["1", "true"].includes((env.WRIGHT_DISABLE_EXTERNAL_SKILLS || env.OPENCODE_DISABLE_EXTERNAL_SKILLS || "").toLowerCase()),
    paths: config.skills?.paths,
    urls: config.skills?.urls,
    cacheDir: paths.cache,
    fetch: opts.fetch,
  })
  const registry = createToolRegistry([...fileTools(), ...shellTools(), createSkillTool(skills)])
  // websearch is offered only once a backend is configured; the key is looked up on each call.
  const websearch = configureWebsearch(config.websearch, { env, fetch: opts.fetch, storedKey: (id) => credentials.load().get(id)?.key })
  if (websearch.tool) registry.add(websearch.tool)
  // Made once the session service exists (below); the lease follower resumes through it.
  let resume: Resume | undefined
  // Open steps are closed as interrupted only by whoever holds the session's lease (see lease.ts).
  const history = createHistory({
    store,
    bus,
    claim: (id, settle) => leases.claim(id, settle),
    dataVersion: () => store.db.pragma("data_version", { simple: true }) as number,
  })
  const status = createStatus(bus)
  const leases = createSessionLeases({
    db: store.db,
    leases: createLeases(store.db, { staleMs: opts.lease?.staleMs }),
    history,
    status,
    log: log.child({ service: "lease" }),
    onLost: (id) => runner.abort(id),
    // A session shown here whose process died carries on here (one follower wins its lease).
    onDead: (id) => void resume?.background(id),
    heartbeatMs: opts.lease?.heartbeatMs,
    retryMs: opts.lease?.retryMs,
    followMs: opts.lease?.followMs,
    onChange: () => inbox.follow(),
  })
  // Prompts sent while a session is busy (here or from another process) wait here until the
  // process running it delivers them; the session service stores each as a user message.
  const inbox = createInbox({ store: createInboxStore(store.db), bus, log: log.child({ service: "inbox" }), deliver: (entry) => sessions.deliver(entry) })
  // Every child process for the model or the user (bash, `!cmd`, snippets, MCP servers) starts here.
  // The shadow store of this project (its own git calls go straight to the spawner).
  const snapshotStore = createSnapshotStore({ exec: spawner, worktree, dataDir: paths.data, projectID, home, settings: snapshotSettings(config) })
  const snapshots = createStepSnapshots({ store: snapshotStore, history, bus, session: (id) => store.sessions.get(id) })
  // A process may change any file: each start and each exit marks the worktree for the next
  // track, as the doing of the session whose tool started it (undefined: nobody's).
  const execFor =
    (sessionID: string | undefined): Exec =>
    async (argv, execOpts) => {
      if (execOpts.readsOnly) return spawner(argv, execOpts)
      snapshots.touch(undefined, sessionID)
      const child = await spawner(argv, execOpts)
      void child.done.then(() => snapshots.touch(undefined, sessionID))
      return child
    }
  const exec = execFor(undefined)
  // Resolved once: bash, `!cmd`, command snippets and opted-in MCP servers run inside it.
  const reads = readRestriction([config.permission, loaded.trust.restricted?.permission], home)
  const sandbox =
    opts.sandbox ??
    (await resolveSandbox({
      config: config.sandbox,
      worktree,
      directory,
      env,
      home,
      restrictReads: reads.restrict,
      extraReadable: [...reads.allowed, outputDir],
    }))
  const sandboxNotice = sandbox.state === "unavailable" ? [sandbox.notice] : []
  if (!isPure(env) && hasExtensions(config, configDirs)) {
    const pluginLog = log.child({ service: "plugin" })
    extensions = await loadExtensions({
      config: config as never,
      dirs: configDirs,
      untrusted: loaded.trust.trusted ? [] : loaded.trust.restricted?.dirs ?? [],
      directory,
      worktree,
      projectID,
      exec,
      sandbox,
      cacheDir: paths.cache,
      fetch: () => opts.serverFetch?.(),
      timeout: pluginTimeout(loaded.userConfig),
      report(message) {
        pluginLog.warn(message)
        bus.publish("session.error", { error: toMessageError(toErrorObject(new Error(message))) })
      },
      progress: opts.progress ?? ((line) => pluginLog.info(line)),
    })
    // The config layer names the project's plugin and tool files already (trust.ts projectCode).
    trust.ignored.push(...extensions.held.filter((line) => !trust.ignored.includes(line)))
  }
  // Plugins loaded, and their model lists (provider.models) in place: a run waits for this.
  const extensionsReady = extensions?.providerModels(
    (id) => providers.all().find((p) => p.id === id),
    (id) => storedAuth(credentials, id),
    (id, models) => providers.setModels(id, models),
  )
  // MCP servers connect in the background; each one's tools join the registry when it is up.
  const mcp = createMcp({
    config,
    directory,
    exec,
    sandbox,
    userServers: loaded.userConfig.mcp,
    registry,
    clientInfo: { name: "wright", version },
    log: log.child({ service: "mcp" }),
    onToolsChanged: (server) => bus.publish("mcp.tools.changed", { server }),
    authFile: mcpAuthFile(paths.data),
    onNeedsAuth: (server) => bus.publish("mcp.auth.required", { server, message: `Server ${server} requires authentication. Run: wright mcp auth ${server}` }),
  })

  // An editor's MCP servers (ACP session/new) run per session, beside the config's.
  const sessionMcp = createSessionMcp({
    directory,
    exec,
    sandbox,
    clientInfo: { name: "wright", version },
    log: log.child({ service: "mcp" }),
    onToolsChanged: (_sessionID, server) => bus.publish("mcp.tools.changed", { server }),
  })
  bus.subscribe("session.deleted", (e) => void sessionMcp.clear(e.properties.sessionID))

  // What every tool call runs through: the pipeline and its hooks, the file writer, LSP (app-tools.ts).
  const { codeIntel, afterWrite, editorFiles, claims, toolHooks, toolCalls } = wireToolCalls({
    config,
    env,
    directory,
    worktree,
    outputDir,
    cacheDir: paths.cache,
    trusted: loaded.trust.trusted,
    bus,
    store,
    history,
    permissions,
    questions,
    agents,
    registry,
    snapshots,
    snapshotStore,
    spawner,
    execFor,
    sandbox,
    extensions,
    log,
    progress: opts.progress,
  })
  const records = createSessionRecords({ store, bus })
  // What the loop is handed: the processor's services, the system prompt, the hooks (app-loop.ts).
  const { systemPrompt, loopDeps } = wireLoop({
    config,
    directory,
    worktree,
    home,
    globalConfigDir: paths.config,
    fetch: opts.fetch,
    isGit,
    spawner,
    skills,
    bus,
    store,
    history,
    status,
    records,
    snapshots,
    agents,
    providers,
    registry,
    mcp,
    sessionMcp,
    claims,
    toolCalls,
    inbox,
    extensions,
    log,
    // Made below, once the session service it wakes parents through exists.
    notes: (sessionID) => background.take(sessionID),
  })

  const runner = createRunner({
    status,
    // A prompt sent right after startup waits for the MCP servers still connecting (each within its timeout).
    loop: async (sessionID, abort) => {
      await mcp.ready(abort)
      await extensionsReady
      // The user may have edited files since the last run: its first step tracks for real.
      snapshotStore.touch()
      // This run carries the session on itself: a resume still due after a crash is moot. (One
      // read when the session never crashed: no write is added to a run.)
      const crashed = leases.stored.crashes(sessionID)
      if (crashed?.pending) leases.stored.takeResume(sessionID)
      try {
        await runLoop(loopDeps, sessionID, abort)
        // A turn that finished normally: the session's crashes in a row start again from zero.
        if (crashed && !abort.aborted) leases.stored.clearCrashes(sessionID)
      } finally {
        await snapshots.settled(sessionID)
      }
    },
    onError(sessionID, e) {
      const error = e instanceof NamedError ? e.toObject() : toErrorObject(e)
      bus.publish("session.error", { sessionID, error: toMessageError(error) })
    },
    lease: leases,
    inbox: {
      next: (sessionID) => inbox.next(sessionID),
      idle(sessionID, ended) {
        if (ended) sessions.kick(sessionID)
      },
    },
  })

  /** A `server:prompt` command is missing because its server failed to connect: say so. */
  const mcpUnavailable = (status: Record<string, { status: string; error?: string }>, name: string) => {
    const server = name.includes(":") ? status[name.slice(0, name.indexOf(":"))] : undefined
    if (!server || server.status === "connected") return undefined
    return `MCP server "${name.slice(0, name.indexOf(":"))}" is ${server.status}${server.error ? `: ${server.error}` : ""}`
  }
  // Re-read on each use, so commands added while wright runs are found.
  // MCP prompts are `server:prompt`; a name taken by a command of the user's stays theirs.
  const commands = () => {
    const own = loadCommands({ config, dirs: configDirs, project: projectCommands })
    const taken = new Set(own.map((c) => c.name))
    return [...own, ...mcpPromptCommands(mcp.prompts()).filter((c) => !taken.has(c.name))]
  }
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
    worktree: () => wrightWorktreeOf(worktree),
    readTool: registry.get("read"),
    onUserMessage: extensions?.userMessage,
    readResource: async (server, uri) => resourceContent(await mcp.readResource(server, uri)),
    toolCalls,
    inbox,
    elsewhere: (id) => leases.holder(id) !== undefined,
    beforeRun: systemPrompt.forget,
    summarize: (session, input) => requestSummary({ history, providers, agents, defaultModel: config.model }, session, input),
    command: (target) => createCommandRunner({ commands, ready: () => mcp.ready(), unavailable: (name) => mcpUnavailable(mcp.status(), name), mcpPrompt: (server, name, args) => mcp.getPrompt(server, name, args), sessions: target, agents, bus, directory, worktree, shell: config.shell, exec, sandbox, beforeCommand: extensions?.beforeCommand }),
  })
  // Sessions whose process died while they worked are carried on by whoever opens them next.
  // A resumed run takes the oldest prompt left waiting in the inbox first: the interrupted turn
  // and that prompt are answered together, as a prompt that had waited for the lease was.
  const resumeRun = (id: string) => (inbox.pending(id) && inbox.deliverFirst(id), sessions.run(id))
  const resumer = (resume = createResume({ history, leases, runner, bus, run: resumeRun, session: (id) => store.sessions.get(id), log: log.child({ service: "resume" }),
    // As sessions.list scopes them: outside git, a project is its directory.
    mine: (s) => s.projectID === projectID && (projectID !== "global" || s.directory === directory),
  }))
  // Background subagents wake their idle parent when they settle (background.ts).
  const background = createBackground({ run: (id) => sessions.run(id), onError: (id, error) => log.warn("a background task's parent failed to run", { sessionID: id, error }) })
  // Second phase: the task tool runs child sessions, so it joins the registry after the service.
  registry.add(createTaskStatusTool({ sessions, background }))
  registry.add(
    createTaskTool({
      agents,
      sessions,
      depthLimit: config.subagent_depth ?? 1,
      callerRules: (sessionID, agentName) => merge(agents.get(agentName)?.permission ?? [], store.sessions.get(sessionID)?.permission ?? []),
      primaryTools: config.experimental?.primary_tools,
      background,
    }),
  )

  // Plan mode's switches add the hand-off message to the history themselves.
  for (const t of createPlanTools({ history })) registry.add(t)
  void mcp.start()
  // Custom tools join the registry once their plugins loaded (a run waits for that).
  void extensions?.ready().then(() => {
    for (const t of extensions!.tools()) registry.add(t)
  })
  return {
    directory,
    worktree,
    projectID,
    isGit,
    version,
    config,
    /** git in the project's worktree (the file status route): hardened, sandboxed read-only when the sandbox is on. */
    git: (args: string[], cwd: string) => worktreeGit(spawner, sandbox, args, { cwd, timeout: 30_000 }),
    /** The spawner, for processes the server starts itself (ripgrep behind /find). */
    exec: spawner,
    /** The config without the project's layers: where allowed origins and directories come from. */
    userConfig: loaded.userConfig,
    /** Whether this folder's own config applies in full, and what it asked for that was held back. */
    trust,
    /** Config paths whose values are secrets (from `{env:}`/`{file:}`): redacted wherever config leaves. */
    secrets: loaded.secrets,
    configFiles: loaded.files,
    /** Config warnings, and the notice that the OS sandbox is off when it cannot work here. */
    configWarnings: [...loaded.warnings, ...skillWarnings, ...(loaded.trust.trusted ? shadowed : []), ...sandboxNotice, ...projectTimeoutNotice(config, loaded.userConfig), ...websearch.warnings],
    /** The OS sandbox commands run in: on, off by config, or unavailable (with its notice). */
    sandbox,
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
    /** Subagents running in the background, by child session. */
    background,
    commands,
    mcp,
    /** MCP servers of single sessions (an editor's), by session. */
    sessionMcp,
    /** Editors' buffers for the file tools of the sessions that attached them. */
    editorFiles,
    /** The tool-call pipeline every tool call runs through. */
    toolCalls,
    /** Its named points (before execute, after finalize); empty until plugins attach. */
    toolHooks,
    /** Step snapshots over the project's shadow store: patches, undo, session diffs. */
    snapshots,
    /** Subscribers told the files each tool write changed (after they are on disk): formatters and LSP diagnostics, snapshots. */
    afterWrite,
    /** Which process runs each session, and what other processes write. */
    leases,
    /** Prompts sent while a session is busy, until they are delivered. */
    inbox,
    /** Resume after a crash: sessions a dead process left working (session/resume.ts). */
    resume: resumer,
    /** Whether any plugin, custom tool or command hook is configured (without one, src/plugin is never loaded). */
    extended: extensions !== undefined,
    /** Plugins, custom tools and command hooks: what loaded and what failed (empty without any). */
    async plugins() {
      if (!extensions) return []
      await extensions.ready()
      return extensions.list()
    },
    /** Language servers and formatters (GET /lsp, GET /formatter, the lsp tool). */
    codeIntel,
    async dispose() {
      live.dispose()
      await extensions?.dispose()
      await runner.shutdown()
      history.flush()
      store.events.flush()
      leases.dispose()
      await Promise.all([mcp.close(), sessionMcp.close()])
      if (sandbox.state === "on" && !opts.sandbox) sandbox.dispose()
      await codeIntel.shutdown()
    },
  }
}

export type App = Awaited<ReturnType<typeof createApp>>

/** The user's stored entry for a provider (any type: key, OAuth), wright's auth.json first, as OpenCode's Auth.get. */
function storedAuth(credentials: Credentials, providerID: string): unknown {
  if (!credentials.mayUse(providerID)) return undefined
  return readAuthFile(credentials.file)[providerID] ?? readAuthFile(credentials.opencodeFile)[providerID]
}

/**
 * The repository's first commit (the smallest id when it has several roots), or undefined when
 * git cannot say. Outside the sandbox (it is not resolved yet, and this runs beside the config
 * load): rev-list reads refs and commits only, no index or work tree, so no filter, fsmonitor or
 * hook of the repository's config applies, and runGit turns those off besides.
 */
async function rootCommit(exec: Exec, worktree: string): Promise<string | undefined> {
  try {
    const r = await runGit(exec, ["rev-list", "--max-parents=0", "HEAD"], { cwd: worktree, timeout: 3000 })
    return r.code === 0 ? r.stdout.toString().trim().split("\n").sort()[0] || undefined : undefined
  } catch {
    return undefined
  }
}
