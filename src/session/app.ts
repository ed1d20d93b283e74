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
import { createProviders, type ModelInfo } from "../llm"
import { createPermissions } from "../permission"
import { NamedError, toErrorObject, type MessageError } from "../protocol"
import type { Store } from "../storage"
import { createSkillTool, createToolRegistry, discoverSkills, fileTools, shellTools, type Tool, type ToolContext, type ToolServices } from "../tool"
import { createKeyedLock, xdg } from "../util"
import { createHistory } from "./history"
import { loadInstructions, type Instruction } from "./instruction"
import { runLoop, type LoopDeps } from "./loop"
import { createQuestions } from "./question"
import { createRunner, createStatus } from "./runner"
import { createSessionService } from "./service"
import { buildSystem, environment } from "./system"

export interface AppOptions {
  directory: string
  store: Store
  env?: NodeJS.ProcessEnv
  home?: string
  /** Highest-precedence config (CLI flags). */
  overrides?: Partial<Config>
  version?: string
  fetch?: typeof fetch
}

export async function createApp(opts: AppOptions) {
  const env = opts.env ?? process.env
  const home = opts.home ?? os.homedir()
  const directory = path.resolve(opts.directory)
  const loaded = await loadConfig({ directory, env, home, overrides: opts.overrides })
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
  const agents = createAgents({ config, dirs: configDirs, toolOutputDir: outputDir, home })
  const skills = discoverSkills(configDirs)
  const registry = createToolRegistry([...fileTools(), ...shellTools(), createSkillTool(skills)])
  const history = createHistory({ store, bus })
  const status = createStatus(bus)

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

  const loopDeps: LoopDeps = {
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
    hooks: {
      async system({ agent, model, user, session }) {
        const pieces = await runPieces(session.id, model.info)
        return buildSystem({ agent, environment: pieces.env, instructions: pieces.instructions, userSystem: user.system })
      },
    },
  }

  const runner = createRunner({
    status,
    loop: (sessionID, abort) => runLoop(loopDeps, sessionID, abort),
    onError(sessionID, e) {
      const error = e instanceof NamedError ? e.toObject() : toErrorObject(e)
      bus.publish("session.error", { sessionID, error: error as never })
    },
  })

  const readTool = registry.get("read")
  const readContext = (sessionID: string, messageID: string): ToolContext => ({
    sessionID,
    messageID,
    callID: "user-attachment",
    agent: "user",
    directory,
    worktree,
    abort: new AbortController().signal,
    // Files the user attached are theirs to share: no permission asks.
    ask: async () => {},
    metadata: () => {},
    services,
    outputDir,
    limits,
    canDelegate: false,
  })

  const sessions = createSessionService({
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
  })

  return {
    directory,
    worktree,
    projectID,
    isGit,
    version,
    config,
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
    extraTools: [] as Tool[],
    async dispose() {
      await runner.shutdown()
      history.flush()
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
