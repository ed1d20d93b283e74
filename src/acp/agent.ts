// The ACP methods wright answers, each translated into calls of wright's HTTP API:
// initialize, session/new|load|resume|close|list|prompt|set_mode|set_config_option (the
// model), session/cancel, and the unstable session/fork|delete|set_title. Sessions it created or
// loaded live in `sessions`; their events arrive through `route` (see index.ts).
import path from "node:path"
import * as acp from "@agentclientprotocol/sdk/unstable"
import type { AgentContext, SessionMode, SessionModeState } from "@agentclientprotocol/sdk/unstable"
import type { BusEvent, Ruleset, Session } from "../protocol"
import type { Client } from "../sdk"
import { replay } from "./content"
import { MCP_CAPABILITIES, startSessionMcp } from "./mcp"
import { lastModel, MODEL_OPTION, modelOption, modelsOf, type Models } from "./models"
import { AcpSession, toRequestError } from "./session"

const { methods, RequestError } = acp

/** An editor answers permission asks; nobody answers the question tool, so it is off. */
export const ACP_RULES: Ruleset = [{ permission: "question", pattern: "*", action: "deny" }]

export interface AgentOptions {
  client: Client
  clientFor?: (directory: string) => Client
  version: string
  log: (message: string) => void
  /** Resolves once the event stream is live: a prompt must not start before it. */
  eventsReady: Promise<void>
}

export function createAgent(opts: AgentOptions) {
  const sessions = new Map<string, AcpSession>()
  let connection: AgentContext | undefined
  const clients = new Map<string, Client>()
  const clientOf = (directory: string) => {
    if (!opts.clientFor) return opts.client
    let c = clients.get(directory)
    if (!c) clients.set(directory, (c = opts.clientFor(directory)))
    return c
  }

  const io = {
    notify: (sessionId: string) => (update: acp.SessionUpdate) => connection!.notify(methods.client.session.update, { sessionId, update }),
    requestPermission: (params: acp.RequestPermissionRequest, signal: AbortSignal) =>
      connection!.request(methods.client.session.requestPermission, params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
    readTextFile: (params: acp.ReadTextFileRequest) => connection!.request(methods.client.fs.readTextFile, params),
    writeTextFile: (params: acp.WriteTextFileRequest) => connection!.request(methods.client.fs.writeTextFile, params),
  }
  /** What the editor offered at initialize: with fs, the session's file tools use its buffers. */
  let clientFs: acp.FileSystemCapabilities | undefined

  function attach(session: Session, api: Client, mode: string, models: Models) {
    const s = new AcpSession(session.id, session.directory, api, { ...io, notify: io.notify(session.id), log: opts.log }, mode)
    s.context = models.context
    sessions.set(session.id, s)
    return s
  }

  /** session/load and session/resume: the stored session joins, with its last agent and model. */
  async function rejoin(params: { sessionId: string; cwd: string; mcpServers?: acp.McpServer[] }, replayHistory: boolean) {
    const directory = projectDir(params.cwd)
    const api = clientOf(directory)
    try {
      const existing = sessions.get(params.sessionId)
      if (existing?.running) throw RequestError.invalidRequest({ sessionId: params.sessionId }, "this session is running a prompt; cancel it before loading it again")
      const session = await withAcpRules(api, await api.session.get(params.sessionId))
      await prepare(api, session.id, params.mcpServers)
      return await join(session, api, existing?.model, replayHistory)
    } catch (e) {
      throw toRequestError(e)
    }
  }

  /** A session joins: the editor's MCP servers start for it, and its file tools use the editor's buffers when offered. */
  async function prepare(api: Client, sessionID: string, mcpServers: acp.McpServer[] | undefined) {
    await startSessionMcp(api, sessionID, mcpServers, opts.log)
    if (clientFs?.readTextFile || clientFs?.writeTextFile) await api.session.editorSet(sessionID, { read: !!clientFs.readTextFile, write: !!clientFs.writeTextFile })
  }

  /** A stored session becomes an editor session: its last agent is the mode, its model (or `model`) the config option. */
  async function join(session: Session, api: Client, model: string | undefined, replayHistory: boolean) {
    const [modes, messages, models] = await Promise.all([modesOf(api), api.session.messages(session.id), modelsOf(api)])
    const lastAgent = messages.filter((m) => m.info.role === "user").at(-1)?.info.agent
    if (lastAgent && modes.availableModes.some((m) => m.id === lastAgent)) modes.currentModeId = lastAgent
    const s = attach(session, api, modes.currentModeId, models)
    if (model) s.model = model
    if (replayHistory) for (const update of replay(messages, session.directory)) s.send(update)
    await s.flushed()
    announceCommands(s)
    return { modes, configOptions: modelOption(models, s.model ?? lastModel(messages) ?? models.fallback) }
  }

  function sessionOf(id: string): AcpSession {
    const s = sessions.get(id)
    if (!s) throw new RequestError(-32002, `Unknown session ${id}: start it with session/new or session/load`, { sessionId: id })
    return s
  }

  /** Commands are announced after the answer that tells the editor the session id. */
  function announceCommands(s: AcpSession) {
    s.commandsListed = new Promise<void>((resolve) =>
      setTimeout(async () => {
        try {
          const commands = await s.api.command.list()
          s.commands = commands.map((c) => c.name)
          resolve()
          if (commands.length === 0) return
          s.send({
            sessionUpdate: "available_commands_update",
            availableCommands: commands.map((c) => ({
              name: c.name,
              description: c.description ?? c.template.split("\n")[0]!.slice(0, 80),
              ...(c.hints.length ? { input: { hint: c.hints.join(" ") } } : {}),
            })),
          })
        } catch (e) {
          resolve()
          opts.log(`listing commands failed: ${(e as Error).message}`)
        }
      }, 0),
    )
  }

  const app = acp
    .agent({ name: "wright" })
    .onConnect((conn) => {
      connection = conn.client
    })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientFs = params.clientCapabilities?.fs
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { embeddedContext: true, image: true },
          mcpCapabilities: MCP_CAPABILITIES,
          sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {}, delete: {}, title: {} },
        },
        authMethods: [],
        agentInfo: { name: "wright", title: "wright", version: opts.version },
      }
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const directory = projectDir(params.cwd)
      const api = clientOf(directory)
      try {
        const [modes, models] = await Promise.all([modesOf(api), modelsOf(api)])
        const session = await api.session.create({ permission: ACP_RULES })
        await prepare(api, session.id, params.mcpServers)
        const s = attach(session, api, modes.currentModeId, models)
        announceCommands(s)
        return { sessionId: session.id, modes, configOptions: modelOption(models, models.fallback) }
      } catch (e) {
        throw toRequestError(e)
      }
    })
    .onRequest(methods.agent.session.load, ({ params }) => rejoin(params, true))
    .onRequest(methods.agent.session.resume, ({ params }) => rejoin(params, false))
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const s = sessionOf(params.sessionId)
      await s.cancel()
      sessions.delete(s.id)
      await s.api.session.mcpClear(s.id).catch((e) => opts.log(`stopping the session's MCP servers failed: ${(e as Error).message}`))
      if (clientFs?.readTextFile || clientFs?.writeTextFile) await s.api.session.editorSet(s.id, { read: false, write: false }).catch((e) => opts.log(`detaching the editor's buffers failed: ${(e as Error).message}`))
      return {}
    })
    // session/fork: a copy of the whole conversation through the core's fork; the editor's model choice carries over.
    .onRequest(methods.agent.session.fork, async ({ params }) => {
      const directory = projectDir(params.cwd)
      const api = clientOf(directory)
      try {
        const forked = await withAcpRules(api, await api.session.fork(params.sessionId))
        await prepare(api, forked.id, params.mcpServers)
        return { sessionId: forked.id, ...(await join(forked, api, sessions.get(params.sessionId)?.model, false)) }
      } catch (e) {
        throw toRequestError(e)
      }
    })
    .onRequest(methods.agent.session.delete, async ({ params }) => {
      const s = sessions.get(params.sessionId)
      const api = s?.api ?? opts.client
      try {
        if (s) {
          await s.cancel()
          sessions.delete(s.id)
        }
        await api.session.delete(params.sessionId)
        return {}
      } catch (e) {
        throw toRequestError(e)
      }
    })
    .onRequest(methods.agent.session.setTitle, async ({ params }) => {
      const title = params.title.trim()
      if (!title) throw RequestError.invalidParams({ title: params.title }, "title: must not be empty")
      const api = sessions.get(params.sessionId)?.api ?? opts.client
      try {
        const updated = await api.session.update(params.sessionId, { title })
        return { title: updated.title }
      } catch (e) {
        throw toRequestError(e)
      }
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
      const s = sessionOf(params.sessionId)
      if (params.configId !== MODEL_OPTION) throw RequestError.invalidParams({ configId: params.configId }, `configId: wright has no option "${params.configId}"; it offers "${MODEL_OPTION}"`)
      const value = (params as { value: unknown }).value
      const models = await modelsOf(s.api).catch((e) => {
        throw toRequestError(e)
      })
      if (typeof value !== "string" || !models.options.some((o) => o.value === value))
        throw RequestError.invalidParams({ value }, `value: no usable model "${String(value)}". Available: ${models.options.map((o) => o.value).join(", ")}`)
      s.model = value
      s.context = models.context
      return { configOptions: modelOption(models, value) }
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const api = params.cwd ? clientOf(projectDir(params.cwd)) : opts.client
      try {
        const list = await api.session.list({ roots: true })
        return { sessions: list.map((s) => ({ sessionId: s.id, cwd: s.directory, title: s.title, updatedAt: new Date(s.time.updated).toISOString() })) }
      } catch (e) {
        throw toRequestError(e)
      }
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => {
      const s = sessionOf(params.sessionId)
      await opts.eventsReady
      return await s.prompt(params.prompt)
    })
    .onNotification(methods.agent.session.cancel, async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel()
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      const s = sessionOf(params.sessionId)
      const modes = await modesOf(s.api).catch((e) => {
        throw toRequestError(e)
      })
      if (!modes.availableModes.some((m) => m.id === params.modeId))
        throw RequestError.invalidParams({ modeId: params.modeId }, `modeId: no primary agent named "${params.modeId}". Available: ${modes.availableModes.map((m) => m.id).join(", ")}`)
      s.mode = params.modeId
      return {}
    })

  return { app, sessions }
}

/** Editor sessions deny the question tool (see ACP_RULES); a session made elsewhere gets that rule when it joins. */
async function withAcpRules(api: Client, session: Session): Promise<Session> {
  if (session.permission?.some((r) => r.permission === "question" && r.action === "deny")) return session
  return api.session.update(session.id, { permission: [...(session.permission ?? []), ...ACP_RULES] })
}

/** The primary agents are the modes; the default agent comes first in the API's list. */
async function modesOf(api: Client): Promise<SessionModeState> {
  const agents = (await api.agent.list()).filter((a) => a.mode !== "subagent" && !a.hidden)
  const availableModes: SessionMode[] = agents.map((a) => ({ id: a.name, name: a.name, ...(a.description ? { description: a.description } : {}) }))
  return { currentModeId: availableModes[0]?.id ?? "build", availableModes }
}

function projectDir(cwd: string): string {
  if (!path.isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd: must be an absolute path, got "${cwd}"`)
  return path.resolve(cwd)
}

/** Routes an event to the session it belongs to, or to the root of the subtask that raised it. */
export function createRouter(sessions: Map<string, AcpSession>) {
  const children = new Map<string, AcpSession>()
  return (e: BusEvent) => {
    if (e.type === "session.created" && e.properties.info.parentID) {
      const root = sessions.get(e.properties.info.parentID) ?? children.get(e.properties.info.parentID)
      if (root) children.set(e.properties.info.id, root)
      return
    }
    const sessionID = (e.properties as { sessionID?: string }).sessionID
    if (!sessionID) return
    const own = sessions.get(sessionID)
    if (own) return own.handle(e)
    children.get(sessionID)?.handle(e, true)
  }
}
