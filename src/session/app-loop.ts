// How the App (app.ts) wires what the loop is handed: the processor's dependencies, the system
// prompt, and the loop's hooks (steering prompts from the inbox, plugins' system/params/stop,
// MCP tools deferred behind mcp_tool_search, structured output, titles, subtasks, compaction,
// background subagents' notes). Apart from createApp because it is one closed group: every
// service it needs exists before it, and only the runner (loopDeps) and the session service
// (systemPrompt.forget) use what it returns.
import type { Agents } from "../agent"
import type { Bus } from "../bus"
import { DEFAULT_MAX_TOOL_SHARE, type Config } from "../config"
import type { Providers } from "../llm"
import { deferMcpTools, loadedTools, type Mcp } from "../mcp"
import type { Extensions } from "../plugin"
import type { MessageError } from "../protocol"
import { worktreeGit, type Exec } from "../process"
import type { Store } from "../storage"
import type { SkillInfo, ToolRegistry } from "../tool"
import type { Logger } from "../util"
import { paramsWithPlugins, pluginSmallModel, systemWithPlugins } from "./app-plugins"
import { compactionHooks } from "./compaction"
import { versionOf, type History } from "./history"
import type { Inbox } from "./inbox"
import type { InstructionClaims } from "./instruction"
import type { LoopDeps } from "./loop"
import type { ProcessorDeps } from "./processor"
import type { SessionRecords } from "./records"
import type { Status } from "./runner"
import type { SessionMcp } from "./session-mcp"
import type { StepSnapshots } from "./snapshot"
import { structuredOutputHooks } from "./structured"
import { runSubtask } from "./subtask"
import { createSystemPrompt, skillsPrompt } from "./system"
import { titleOnFirstStep } from "./title"
import { createModelMessageCache } from "./to-model"
import { sessionUsage } from "./usage"

export interface LoopWiringDeps {
  config: Config
  directory: string
  worktree: string
  home: string
  /** The user's config directory, where global instructions are looked up. */
  globalConfigDir: string
  fetch?: typeof fetch
  /** Whether the worktree is a git repository (the system prompt then carries its status). */
  isGit: boolean
  /** The bare spawner: the status runs outside the sandbox, hardened (see below). */
  spawner: Exec
  skills: SkillInfo[]
  bus: Bus
  store: Store
  history: History
  status: Status
  records: SessionRecords
  snapshots: StepSnapshots
  agents: Agents
  providers: Providers
  registry: ToolRegistry
  mcp: Mcp
  sessionMcp: SessionMcp
  claims: InstructionClaims
  toolCalls: ProcessorDeps["toolCalls"]
  inbox: Inbox
  extensions: Extensions | undefined
  log: Logger
  /** The loop's `notes` hook: what background subagents left for the session (background.ts). */
  notes: (sessionID: string) => string[]
}

export function wireLoop(deps: LoopWiringDeps) {
  const { config, directory, worktree, bus, history, status, records, snapshots, agents, providers, registry, mcp, sessionMcp, toolCalls, extensions, spawner } = deps
  const processor: ProcessorDeps = {
    history,
    toolCalls,
    compaction: { auto: config.compaction?.auto, reserved: config.compaction?.reserved },
    setStatus: (sessionID, s) => status.set(sessionID, s),
    publishError: (sessionID, error: MessageError) => bus.publish("session.error", { sessionID, error }),
    onUsage: sessionUsage(records),
    snapshots,
    ...(extensions ? { textComplete: extensions.textComplete } : {}),
  }
  const systemPrompt = createSystemPrompt({
    instructions: { directory, worktree, globalConfigDir: deps.globalConfigDir, home: deps.home, extra: config.instructions, fetch: deps.fetch },
    // Every session's first request waits for this status: it runs outside the sandbox (bwrap
    // cost a run ~25 ms here), hardened as worktreeGit does without one (no fsmonitor, hooks or
    // pager, the repository's filter drivers blanked), and without looking into submodules,
    // whose own filter drivers that blanking does not see.
    gitStatus: deps.isGit ? (cwd) => worktreeGit(spawner, undefined, ["status", "--short", "--branch", "--ignore-submodules=all"], { cwd, timeout: 2000 }) : undefined,
    skills: skillsPrompt(deps.skills),
    mcpInstructions: () => mcp.instructions(),
    claims: deps.claims,
  })
  const loopDeps: LoopDeps = {
    ...processor,
    modelMessages: createModelMessageCache({ versionOf, version: history.version, changedSince: history.changedSince }),
    sessionTools: (sessionID) => sessionMcp.tools(sessionID),
    store: deps.store,
    agents,
    providers,
    registry,
    config,
    directory,
    worktree,
    hooks: {
      steer: (sessionID) => deps.inbox.steer(sessionID),
      system: extensions ? systemWithPlugins(systemPrompt.system, extensions) : systemPrompt.system,
      ...(extensions ? { params: paramsWithPlugins(extensions), messages: (history) => extensions!.messages(history), beforeStop: ({ session, again }) => extensions!.stop({ sessionID: session.id, parentID: session.parentID, active: again }), toolDefinitions: (tools) => extensions!.toolDefinitions(tools) } : {}),
      // MCP tools beyond mcp.max_tool_share of the context wait behind mcp_tool_search.
      selectTools: ({ model, tools, history: msgs }) =>
        void deferMcpTools({
          tools,
          serverOf: (t) => mcp.serverOf(t) ?? sessionMcp.serverOf(t),
          context: model.info.limit.context,
          share: typeof config.mcp?.max_tool_share === "number" ? config.mcp.max_tool_share : DEFAULT_MAX_TOOL_SHARE,
          loaded: () => loadedTools(msgs),
        }),
      ...structuredOutputHooks({ history, bus }),
      firstStep: titleOnFirstStep({
        providers,
        agents,
        smallModel: config.small_model,
        ...(extensions ? { pluginSmallModel: pluginSmallModel(providers, extensions) } : {}),
        setTitle: (id, title) => void records.update(id, (s) => ({ ...s, title })),
        log: deps.log.child({ service: "title" }),
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
        beforeCompact: extensions?.compacting,
        autoContinue: extensions?.autoContinue,
      }),
      notes: deps.notes,
    },
  }
  return { systemPrompt, loopDeps }
}
