import type { Agents } from "../agent"
import type { Bus } from "../bus"
import type { Config } from "../config"
import type { Providers } from "../llm"
import type { Permissions } from "../permission"
import {
  NotFoundError,
  type Delivery,
  type InboxItem,
  sessionNotFound,
  type MessageWithParts,
  type Part,
  type PromptInput,
  type Ruleset,
  type Session,
  type SessionCommandInput,
  type SessionCreateInput,
} from "../protocol"
import type { InboxEntry, SessionQuery, Store } from "../storage"
import type { Tool } from "../tool"
import { Id, slug } from "../util"
import type { History } from "./history"
import type { Inbox } from "./inbox"
import { sleep } from "./retry"
import type { SessionRecords } from "./records"
import type { Runner, Status } from "./runner"
import type { SummarizeInput } from "./summarize"
import type { ToolPipeline } from "./tool-call"
import { cleanupRevert } from "./revert"
import { buildUserMessage } from "./user-message"
import { resolveVariant } from "./variant"

export interface SessionServiceDeps {
  store: Store
  bus: Bus
  history: History
  runner: Runner
  status: Status
  agents: Agents
  providers: Providers
  permissions: Permissions
  questions: { cancelSession(sessionID: string): void }
  config: Config
  directory: string
  projectID: string
  version: string
  /** The wright worktree (branch) the directory is checked out on, read as each session is created; undefined: none. */
  worktree?: () => { name: string; branch: string } | undefined
  /** Reads attached text files (file mentions) through the tool-call pipeline. */
  readTool?: Tool
  /** Reads an MCP resource the user mentioned with `@`; rejects with a readable message. Undefined: no MCP. */
  readResource?: (server: string, uri: string) => Promise<{ text: string; attachments: { mime: string; url: string; filename?: string }[] }>
  toolCalls: ToolPipeline
  /** Writes session records and publishes their events. */
  records: SessionRecords
  /**
   * Contract: called with each new user message before it is stored (UserPromptSubmit hooks,
   * plugins' chat.message); may add parts to `output.parts` or edit them. May reject (a hook
   * blocked the prompt): nothing is stored and the prompt fails with that error. Undefined: none.
   */
  onUserMessage?: (input: { sessionID: string; agent: string; model: { providerID: string; modelID: string }; messageID: string }, output: { message: MessageWithParts["info"]; parts: Part[] }) => Promise<void>
  /** Contract: called before a run starts (not when a prompt joins one); must not throw. Forgets per-run caches. */
  beforeRun?: (sessionID: string) => void
  /** Contract: queues the compaction /summarize asks for (the service then runs the loop); may throw. Undefined: summarize is unavailable. */
  summarize?: (session: Session, input: SummarizeInput) => void
  /**
   * Builds the command runner once the service exists, handed what it needs of the service
   * (a command is sent as a prompt). Undefined: commands are unavailable.
   */
  command?: (sessions: CommandTarget) => (sessionID: string, input: SessionCommandInput) => Promise<MessageWithParts>
  /** Prompts sent while a session is busy wait here. Undefined: a prompt joins the running loop. */
  inbox?: Inbox
  /** Contract: whether another live process runs the session (holds its lease); must not throw. Undefined: none does. */
  elsewhere?: (sessionID: string) => boolean
}

/** What the command runner needs of the session service. */
export interface CommandTarget {
  prompt(sessionID: string, input: PromptInput): Promise<MessageWithParts>
}

export function createSessionService(deps: SessionServiceDeps) {
  const { store, bus, history, runner } = deps

  function get(id: string): Session {
    const s = store.sessions.get(id)
    if (!s) throw sessionNotFound(id)
    return s
  }

  const save = deps.records.save

  function touch(id: string) {
    const s = get(id)
    return save({ ...s, time: { ...s.time, updated: Date.now() } }, "session.updated")
  }

  const service = {
    get,
    create(input: SessionCreateInput = {}): Session {
      if (input.parentID) get(input.parentID)
      const now = Date.now()
      const iso = new Date(now).toISOString()
      const worktree = deps.worktree?.()
      return save(
        {
          id: Id.descending("ses"),
          slug: slug(),
          projectID: deps.projectID,
          directory: deps.directory,
          ...(input.parentID ? { parentID: input.parentID } : {}),
          title: input.title ?? `${input.parentID ? "Child session" : "New session"} - ${iso}`,
          version: deps.version,
          time: { created: now, updated: now },
          ...(input.permission ? { permission: input.permission } : {}),
          ...(worktree ? { worktree } : {}),
        },
        "session.created",
      )
    },
    list(query: Omit<SessionQuery, "projectID"> = {}): Session[] {
      // Outside git every project is "global" (as in OpenCode): list by directory instead.
      const scope = deps.projectID === "global" ? { projectID: "global", directory: deps.directory } : { projectID: deps.projectID }
      return store.sessions.list({ ...query, ...scope })
    },
    children: (id: string) => (get(id), store.sessions.children(id)),
    update(id: string, patch: { title?: string; permission?: Ruleset; time?: { archived?: number } }): Session {
      const s = get(id)
      return save(
        {
          ...s,
          ...(patch.title !== undefined ? { title: patch.title } : {}),
          ...(patch.permission !== undefined ? { permission: patch.permission } : {}),
          time: { ...s.time, updated: Date.now(), ...(patch.time?.archived !== undefined ? { archived: patch.time.archived } : {}) },
        },
        "session.updated",
      )
    },
    async remove(id: string) {
      const s = get(id)
      for (const child of store.sessions.children(id)) await service.remove(child.id)
      runner.abort(id)
      deps.permissions.cancelSession(id)
      deps.questions.cancelSession(id)
      history.flush()
      store.sessions.remove(id)
      history.forget(id)
      bus.publish("session.deleted", { sessionID: id, info: s })
    },
    /** Messages oldest first; `before` pages backwards from a message id, `limit` keeps the newest. */
    messages(id: string, opts: { limit?: number; before?: string } = {}): MessageWithParts[] {
      get(id)
      if (opts.limit !== undefined) return history.page(id, { limit: opts.limit, before: opts.before })
      let list = history.messages(id)
      if (opts.before) list = list.filter((m) => m.info.id < opts.before!)
      if (opts.limit !== undefined) list = list.slice(Math.max(0, list.length - opts.limit))
      return list
    },
    message(id: string, messageID: string): MessageWithParts {
      const msg = history.message(id, messageID)
      if (!msg) throw new NotFoundError({ message: `Message not found: ${messageID}` })
      return msg
    },
    todo: (id: string) => (get(id), store.todos.get(id)),
    status: (id: string) => deps.status.get(id),
    statuses: () => deps.status.all(),
    busy: (id: string) => runner.busy(id),
    /** Busy here (running, or waiting for the lease) or in another process. */
    held: (id: string) => runner.busy(id) || (deps.elsewhere?.(id) ?? false),

    /**
     * A prompt (or a command) for a busy session goes to its inbox (default delivery "queue") and
     * the item is returned; undefined when the session is idle, for the caller to run it as ever.
     */
    offer(sessionID: string, input: { delivery?: Delivery; noReply?: boolean }, prompt: PromptInput, command?: SessionCommandInput): InboxItem | undefined {
      if (!deps.inbox || input.noReply || !service.held(sessionID)) return undefined
      const item = deps.inbox.put(sessionID, input.delivery ?? "queue", prompt, command)
      // Loaded here, the session is followed while another process runs it: this process's clients see the step that answers.
      history.messages(sessionID)
      // The session may have gone idle meanwhile: then nobody would deliver it, so run it here.
      service.kick(sessionID)
      return item
    },
    /**
     * Runs the session here to deliver its inbox when nobody runs it (its holder ended, or died
     * and its lease went stale); the run delivers the oldest item first. Never throws.
     */
    kick(sessionID: string) {
      if (!deps.inbox || service.held(sessionID) || !deps.inbox.pending(sessionID)) return
      deps.inbox.deliverFirst(sessionID)
      void service.run(sessionID).catch(() => {})
    },
    /**
     * Waits until an inbox item was delivered and the session went idle again; resolves with the
     * answer to it (the last assistant message). Rejects when it was withdrawn or `abort` fired.
     */
    async answerOf(sessionID: string, itemID: string, abort: AbortSignal): Promise<MessageWithParts> {
      const messageID = await deps.inbox!.delivered(sessionID, itemID, abort, () => service.kick(sessionID))
      while (service.held(sessionID)) await sleep(100, abort)
      // Another process answered it: read what it wrote.
      history.sync(sessionID)
      return answerTo(sessionID, messageID)
    },
    /** Stores an inbox entry's prompt as a user message (a command expanded first); resolves with its id. */
    async deliver(entry: InboxEntry): Promise<string> {
      if (entry.command) {
        if (!enqueueCommand) throw new Error("commands are not available")
        return (await enqueueCommand(entry.sessionID, entry.command)).info.id
      }
      // A prompt that names no agent continues with the session's (a steer must not switch plan to build).
      const agent = entry.prompt.agent ?? lastUser(entry.sessionID)?.agent
      return (await service.enqueue(entry.sessionID, { ...entry.prompt, ...(agent && deps.agents.get(agent) ? { agent } : {}) })).info.id
    },

    /** Stores the user's message and runs (or joins) the loop; resolves with the last assistant message. */
    async prompt(sessionID: string, input: PromptInput): Promise<MessageWithParts> {
      const sent = await service.enqueue(sessionID, input)
      if (input.noReply) return lastMessage(sessionID)
      await service.run(sessionID)
      return answerTo(sessionID, sent.info.id)
    },
    /** Stores the user's message without running the loop. */
    async enqueue(sessionID: string, input: PromptInput): Promise<MessageWithParts> {
      const session = get(sessionID)
      // A new prompt after /undo makes the revert final: the hidden messages go for good.
      cleanupRevert(deps, sessionID)
      const agent = input.agent ? deps.agents.require(input.agent) : deps.agents.defaultAgent()
      const chosen = input.model ?? agent.model ?? lastUserModel(sessionID) ?? deps.providers.defaultModel(deps.config.model)
      const ref = { providerID: chosen.providerID, modelID: chosen.modelID }
      const variant = await resolveVariant(deps.providers, agent, ref, input.variant ?? input.model?.variant)
      const { info, parts } = await buildUserMessage({
        sessionID,
        agent,
        model: variant ? { ...ref, variant } : ref,
        prompt: input,
        read: deps.readTool ? { tool: deps.readTool, toolCalls: deps.toolCalls } : undefined,
        readResource: deps.readResource,
        images: deps.config.attachment?.image,
      })
      await deps.onUserMessage?.({ sessionID, agent: agent.name, model: { providerID: info.model.providerID, modelID: info.model.modelID }, messageID: info.id }, { message: info, parts })
      history.putMessage(info)
      for (const p of parts) history.putPart(p)
      touch(session.id)
      return { info, parts }
    },
    run(sessionID: string): Promise<void> {
      if (!runner.busy(sessionID)) deps.beforeRun?.(sessionID)
      return runner.ensure(sessionID)
    },
    abort(id: string): boolean {
      get(id)
      deps.permissions.cancelSession(id)
      deps.questions.cancelSession(id)
      for (const child of store.sessions.children(id)) if (runner.busy(child.id)) service.abort(child.id)
      return runner.abort(id)
    },
    /** Resolves once the session's loop has unwound after an abort (its tools stopped, its step closed), or after `ms`. */
    stopped: (id: string, ms: number) => runner.settled(id, ms),
    /** Compacts the session now (POST /session/:id/summarize). Provided by compaction. */
    async summarize(id: string, input: SummarizeInput): Promise<boolean> {
      const session = get(id)
      if (!deps.summarize) throw new Error("summarize is not available")
      runner.assertIdle(id)
      deps.summarize(session, input)
      await service.run(id)
      return true
    },
    /** Runs a slash command in the session (POST /session/:id/command). Provided by commands. */
    async command(id: string, input: SessionCommandInput): Promise<MessageWithParts> {
      get(id)
      if (!runCommand) throw new Error("commands are not available")
      return runCommand(id, input)
    },
    removeMessage(id: string, messageID: string) {
      runner.assertIdle(id)
      service.message(id, messageID)
      history.removeMessage(id, messageID)
    },
    updatePart(id: string, part: Part) {
      service.message(id, part.messageID)
      history.putPart(part)
      return part
    },
    removePart(id: string, messageID: string, partID: string) {
      service.message(id, messageID)
      history.removePart(id, messageID, partID)
    },
  }

  // Second phase: the command runner prompts through the service it is built from.
  const runCommand = deps.command?.(service)
  // A command delivered from the inbox is stored by the run that delivers it (which then goes on).
  const enqueueCommand = deps.command?.({ prompt: (id, input) => service.enqueue(id, input) })

  function lastUser(sessionID: string) {
    const list = history.messages(sessionID)
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i]!.info
      if (m.role === "user") return m
    }
    return undefined
  }

  function lastUserModel(sessionID: string) {
    const list = history.messages(sessionID)
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i]!.info
      if (m.role === "user") return m.model
    }
    return undefined
  }

  function lastMessage(sessionID: string): MessageWithParts {
    const list = history.messages(sessionID)
    return list[list.length - 1]!
  }

  /**
   * The last assistant message of the turn a user message began: the run goes on with queued
   * prompts (new turns, whose answers are theirs), while steering ones belong to this turn.
   */
  function answerTo(sessionID: string, messageID: string): MessageWithParts {
    const list = history.messages(sessionID)
    const turns = deps.inbox?.turns(sessionID)
    const start = list.findIndex((m) => m.info.id === messageID)
    if (start < 0 || !turns?.size) return lastAssistant(sessionID)
    let answer: MessageWithParts | undefined
    for (const m of list.slice(start + 1)) {
      if (m.info.role === "user" && turns.has(m.info.id)) break
      if (m.info.role === "assistant") answer = m
    }
    return answer ?? lastAssistant(sessionID)
  }

  function lastAssistant(sessionID: string): MessageWithParts {
    const list = history.messages(sessionID)
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.info.role === "assistant") return list[i]!
    return list[list.length - 1]!
  }

  return service
}

export type SessionService = ReturnType<typeof createSessionService>
