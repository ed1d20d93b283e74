// How the App (app.ts) wires what a tool call runs through: the one tool-call pipeline and its
// named hooks, the services a tool is handed (files through the one writer, the spawner, the
// sandbox, todos, questions, LSP queries), and the subscribers told of every write (LSP
// diagnostics, snapshots, the bash gate's written files). Apart from createApp because it is
// one closed group: it takes services built before it and hands back the pipeline and the
// few pieces the loop, the server and dispose reach for.
import type { Agents } from "../agent"
import type { Bus } from "../bus"
import type { Config } from "../config"
import { createCodeIntel } from "../lsp"
import type { Permissions } from "../permission"
import type { Extensions } from "../plugin"
import { worktreeGit, type Exec, type Sandbox } from "../process"
import type { SnapshotStore } from "../snapshot"
import type { Store } from "../storage"
import { createFileService, createWrittenFiles, lspTool, type AfterWrite, type ToolRegistry, type ToolServices } from "../tool"
import { createIdleGate, type Logger } from "../util"
import { withShellEnv } from "./app-plugins"
import { createCommandChanges } from "./command-changes"
import { createDiscardGuard } from "./discard-guard"
import { createEditorBridge } from "./editor-files"
import type { History } from "./history"
import { createInstructionClaims } from "./instruction"
import type { Questions } from "./question"
import type { StepSnapshots } from "./snapshot"
import { callerCeilings } from "./task"
import { createToolPipeline, type ToolHooks } from "./tool-call"

/** How long no tool call may have run before a language server's npm install starts (ms). */
const INSTALL_QUIET_MS = 1000

export interface ToolWiringDeps {
  config: Config
  env: NodeJS.ProcessEnv
  directory: string
  worktree: string
  /** Where tool output too long for the model is kept. */
  outputDir: string
  cacheDir: string
  /** Whether the project's own config applies in full (untrusted: language servers run sandboxed). */
  trusted: boolean
  bus: Bus
  store: Store
  history: History
  permissions: Permissions
  questions: Questions
  agents: Agents
  registry: ToolRegistry
  snapshots: StepSnapshots
  snapshotStore: SnapshotStore
  /** The bare spawner: language servers, formatters and the discard guard's git do not mark the worktree. */
  spawner: Exec
  /** The spawner that marks the worktree for the next track, as the doing of `sessionID`. */
  execFor: (sessionID: string | undefined) => Exec
  sandbox: Sandbox
  extensions: Extensions | undefined
  log: Logger
  progress?: (line: string) => void
}

export function wireToolCalls(deps: ToolWiringDeps) {
  const { config, env, directory, worktree, bus, store, history, snapshots, spawner, execFor, sandbox, extensions } = deps
  const exec = execFor(undefined)
  // A language server's npm install (seconds of CPU) waits until no tool call has run for a
  // second: a model thinking, or the user reading. A run whose loop never pauses starts none.
  const quiet = createIdleGate(INSTALL_QUIET_MS)
  // Formatters and LSP diagnostics: lazy, nothing starts until a tool writes a file of their language.
  // Its processes do not mark the worktree for snapshots: a formatter rewrites only the file just
  // written (which the writer announces after it), and language servers change no sources.
  const codeIntel = createCodeIntel({
    config,
    exec: spawner,
    directory,
    env,
    trusted: deps.trusted,
    // Untrusted: servers and formatters run only inside it, without network.
    sandbox,
    publish: (e) => (e.type === "lsp.updated" ? bus.publish(e.type, e.properties) : bus.publish(e.type, e.properties)),
    // npm-based servers missing from node_modules/.bin and PATH are installed here, with progress like a plugin's.
    cacheDir: deps.cacheDir,
    progress: deps.progress ?? ((line) => deps.log.child({ service: "lsp" }).info(line)),
    installWhen: (start) => quiet.whenIdle(start),
  })
  // Snapshots and LSP diagnostics subscribe here; every file a tool writes is announced to them.
  const afterWrite: AfterWrite[] = [codeIntel.afterWrite, (files, sessionID) => snapshots.touch(files, sessionID)]
  // A session whose editor attached its buffers (ACP) reads and writes through it.
  const editorFiles = createEditorBridge({ bus, parentOf: (id) => store.sessions.get(id)?.parentID })
  bus.subscribe("session.deleted", (e) => editorFiles.forget(e.properties.sessionID))
  const files = createFileService({ edited: (file) => bus.publish("file.edited", { file }), afterWrite, editor: (sessionID) => editorFiles.files(sessionID) })
  // The bash gate asks before running a file a tool wrote.
  const written = createWrittenFiles()
  afterWrite.push((paths) => written.add(paths))
  const claims = createInstructionClaims({ worktree })
  const services: ToolServices = {
    todos: {
      get: (sessionID) => store.todos.get(sessionID),
      set(sessionID, todos) {
        store.todos.set(sessionID, todos)
        bus.publish("todo.updated", { sessionID, todos })
      },
    },
    question: deps.questions,
    claimInstructions: (messageID, files) => claims.claim(messageID, files),
    // Plugins' shell.env reaches every command a tool starts.
    exec: extensions ? withShellEnv(exec, extensions) : exec,
    sandbox,
    files,
    written,
    ...(config.lsp === false ? {} : { lsp: codeIntel.queries, commandChanges: createCommandChanges({ store: deps.snapshotStore, intel: codeIntel }) }),
  }
  // The lsp tool is off unless enabled, as in OpenCode (its experimental flag).
  if (config.lsp !== false && [env.OPENCODE_EXPERIMENTAL_LSP_TOOL, env.WRIGHT_EXPERIMENTAL_LSP_TOOL, env.OPENCODE_EXPERIMENTAL].some((v) => v === "1" || v === "true")) deps.registry.add(lspTool)
  const limits = { maxLines: config.tool_output?.max_lines ?? 2000, maxBytes: config.tool_output?.max_bytes ?? 51200 }

  // Every tool call (the model's, `!cmd`, subtasks, file mentions) runs through this one pipeline.
  const toolHooks: ToolHooks = { beforeExecute: [], afterFinalize: [] }
  // No lost work: commands that discard uncommitted work are snapshotted whole first (discard-guard.ts).
  const discards = createDiscardGuard({ snapshots, directory, git: (args, cwd) => worktreeGit(spawner, undefined, args, { cwd, timeout: 10_000 }) })
  // Diagnostics a language server sent after a write had returned (it was installing, starting
  // or slow) join the session's next tool result, so the model sees them with its next step.
  if (config.lsp !== false) toolHooks.afterFinalize.push((call, final) => {
    const late = codeIntel.takeLate(call.sessionID)
    return late ? { output: final.output + late } : undefined
  })
  if (extensions) {
    const ext = extensions
    toolHooks.beforeExecute.push((call) => ext.beforeExecute(call))
    toolHooks.afterFinalize.push((call, final) => ext.afterFinalize(call, final))
    bus.subscribeAll((e) => ext.event(e))
  }
  // Last before execute: it reads the command as it will run, after plugins' rewrites.
  toolHooks.beforeExecute.push(discards.beforeExecute)
  toolHooks.afterFinalize.push(discards.afterFinalize)
  const pipeline = createToolPipeline({
    history,
    permissions: deps.permissions,
    services,
    // A session's writes and commands are its own (snapshots keep sessions' undo apart).
    servicesFor: (sessionID) => ({ ...services, files: files.forSession(sessionID), exec: extensions ? withShellEnv(execFor(sessionID), extensions) : execFor(sessionID) }),
    directory,
    worktree,
    outputDir: deps.outputDir,
    limits,
    continueOnDeny: config.experimental?.continue_loop_on_deny === true,
    hooks: toolHooks,
    ceilings: (sessionID) => callerCeilings({ history, store, agents: deps.agents }, sessionID),
  })
  const toolCalls = { ...pipeline, run: (call: Parameters<typeof pipeline.run>[0]) => quiet.busy(() => pipeline.run(call)) }
  return { codeIntel, afterWrite, editorFiles, claims, toolHooks, toolCalls }
}
