import type { McpStatus } from "../protocol"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool as McpToolDef } from "@modelcontextprotocol/sdk/types.js"
import { mcpServers, type Config } from "../config"
import type { Exec, Sandbox } from "../process"
import type { Tool, ToolRegistry } from "../tool"
import { silentLogger, type Logger } from "../util"
import type { Connection, McpServerConfig, TransportFactory } from "./connect"
import { mcpTool } from "./convert"
import { resourceTools, type McpResource } from "./resources"


export const DEFAULT_MCP_TIMEOUT = 30_000

export interface McpOptions {
  config: Pick<Config, "mcp" | "experimental">
  /** The project directory: the default cwd of local servers. */
  directory: string
  /** The App's spawner: local servers start through it (the App's env, `environment` laid over it). */
  exec: Exec
  /**
   * The App's sandbox: local servers the project defines always start inside it; the user's own
   * (`userServers`) only when they opt in with `sandbox: true`.
   */
  sandbox?: Sandbox
  /** The `mcp` entries of the user's own config (without the project's layers); undefined: none is the user's. */
  userServers?: Record<string, unknown>
  /** When given, each server's tools are added to it as the server connects, and replaced or removed as they change. */
  registry?: ToolRegistry
  /** A server's tools changed: it connected, sent `tools/list_changed`, or went away. */
  onToolsChanged?(server: string): void
  /** Tests pass in-memory transports here. */
  transport?: TransportFactory
  clientInfo?: { name: string; version: string }
  /** Connections, failures and refreshes are told here. */
  log?: Logger
  /** The MCP OAuth token store (`$DATA/wright/mcp-auth.json`); without it remote servers get no OAuth. */
  authFile?: string
  /** A remote server needs an OAuth login (at start, or when its refresh token stopped working). */
  onNeedsAuth?(server: string): void
}

/** A prompt of a connected server, as a slash command offers it. */
export interface McpPrompt {
  server: string
  name: string
  description?: string
  arguments: { name: string; description?: string; required?: boolean }[]
}



interface ServerState {
  name: string
  timeout: number
  status?: McpStatus
  connection?: Connection
  /** The client while it connects, so close() can end a start that is still under way. */
  connecting?: Client
  tools: Tool[]
  /** The definitions as the server sent them (for `wright mcp list`). */
  defs: McpToolDef[]
  prompts: Prompt[]
  resources: Resource[]
  templates: ResourceTemplate[]
  instructions?: string
  /** Refreshes run one after another, so a late answer never overwrites a newer list. */
  refreshing: Promise<void>
}

export type Mcp = ReturnType<typeof createMcp>

export function createMcp(opts: McpOptions) {
  const entries = mcpServers(opts.config.mcp)
  const servers = new Map<string, ServerState>()
  const fallbackTimeout = opts.config.experimental?.mcp_timeout ?? DEFAULT_MCP_TIMEOUT
  for (const [name, entry] of entries) {
    const timeout = ("timeout" in entry ? entry.timeout : undefined) ?? fallbackTimeout
    servers.set(name, { name, timeout, tools: [], defs: [], prompts: [], resources: [], templates: [], refreshing: Promise.resolve() })
  }
  const log = opts.log ?? silentLogger
  // Each MCP tool and the server it comes from; the registry's other tools are not in it.
  const ours = new WeakMap<Tool, string>()
  let started: Promise<void> | undefined
  let closed = false

  function changed(s: ServerState, tools: Tool[]) {
    const previous = s.tools
    s.tools = tools
    if (opts.registry) {
      for (const t of previous) if (opts.registry.get(t.id) === t) opts.registry.remove(t.id)
      for (const t of tools) {
        const existing = opts.registry.get(t.id)
        // A built-in tool keeps its name; an MCP tool never shadows it.
        if (existing && !ours.has(existing)) continue
        opts.registry.add(t)
      }
    }
    syncResourceTools()
    opts.onToolsChanged?.(s.name)
  }

  // The resource tools are offered while some connected server has resources or templates.
  let resourceToolList: Tool[] | undefined
  function syncResourceTools() {
    if (!opts.registry) return
    resourceToolList ??= resourceTools(api)
    const any = [...servers.values()].some((s) => s.connection && (s.resources.length || s.templates.length))
    for (const t of resourceToolList) {
      const existing = opts.registry.get(t.id)
      if (any && !existing) opts.registry.add(t)
      if (!any && existing === t) opts.registry.remove(t.id)
    }
  }

  async function call(s: ServerState, client: Client, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: s.timeout, signal })
      if ("content" in result) return result as CallToolResult
      // Servers on the 2024-10-07 protocol answer `{toolResult}`.
      return { content: [{ type: "text", text: JSON.stringify((result as { toolResult?: unknown }).toolResult ?? null) }] }
    } catch (e) {
      if (signal.aborted) throw e
      if (e instanceof Error && e.constructor.name === "UnauthorizedError") {
        // The refresh token no longer works: a new login is needed.
        s.status = { status: "needs_auth" }
        opts.onNeedsAuth?.(s.name)
        throw new Error(`MCP server "${s.name}" requires authentication again. Run: wright mcp auth ${s.name}`)
      }
      if ((e as { code?: unknown }).code === -32001) {
        throw new Error(`MCP server "${s.name}" did not answer ${name} within ${s.timeout} ms. Try again later, or raise mcp.${s.name}.timeout.`)
      }
      throw new Error(`MCP server "${s.name}" failed to run ${name}: ${messageOf(e)}`)
    }
  }

  async function listTools(s: ServerState, client: Client): Promise<Tool[]> {
    if (client.getServerCapabilities() && !client.getServerCapabilities()?.tools) {
      s.defs = []
      return []
    }
    const defs: McpToolDef[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: s.timeout })
      defs.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    s.defs = defs
    return defs.map((def) => {
      const tool = mcpTool({ server: s.name, def, call: (name, args, signal) => call(s, client, name, args, signal) })
      ours.set(tool, s.name)
      return tool
    })
  }

  function refresh(s: ServerState) {
    s.refreshing = s.refreshing.then(async () => {
      const client = s.connection?.client
      if (!client || closed) return
      // A failed refresh keeps the tools we had: the server is still there and may recover.
      const tools = await listTools(s, client).catch((error) => void log.warn("tools/list_changed: listing the tools again failed; keeping the old list", { server: s.name, error }))
      if (tools && s.connection?.client === client && !closed) changed(s, tools)
    })
  }

  async function start1(s: ServerState, entry: McpServerConfig | { enabled?: boolean }) {
    if (entry.enabled === false) {
      s.status = { status: "disabled" }
      return
    }
    if (!("type" in entry)) {
      s.status = { status: "failed", error: `mcp.${s.name} has no type: use {"type": "local", "command": [...]} or {"type": "remote", "url": "..."}` }
      log.warn("not started: the entry has no type", { server: s.name })
      return
    }
    let connection: Connection | undefined
    try {
      // The SDK is loaded only when a server is configured: projects without MCP never pay for it.
      const { connect } = await import("./connect")
      connection = await connect({
        name: s.name,
        server: entry,
        directory: opts.directory,
        exec: opts.exec,
        sandbox: opts.sandbox,
        own: sameEntry(opts.userServers?.[s.name], entry),
        timeout: s.timeout,
        clientInfo: opts.clientInfo ?? { name: "wright", version: "dev" },
        transport: opts.transport,
        authFile: opts.authFile,
        onClient: (client) => (s.connecting = client),
        onToolsChanged: () => refresh(s),
      })
      if (closed) return void (await connection.close())
      const tools = await listTools(s, connection.client)
      if (closed) return void (await connection.close())
      await listExtras(s, connection.client)
      if (closed) return void (await connection.close())
      s.connection = connection
      s.instructions = connection.client.getInstructions()?.trim() || undefined
      s.status = { status: "connected" }
      watchClose(s, connection)
      changed(s, tools)
      log.info("connected", { server: s.name, tools: tools.length })
    } catch (e) {
      if (connection) await connection.close()
      if (e instanceof Error && e.name === "NeedsAuthError") {
        s.status = { status: "needs_auth" }
        log.info("needs an OAuth login", { server: s.name })
        opts.onNeedsAuth?.(s.name)
        return
      }
      const stderr = connection?.stderr()
      const message = messageOf(e)
      const error = stderr && !message.includes(stderr) ? `${message}\nstderr: ${stderr}` : message
      s.status = { status: "failed", error }
      // A start cut short by close() is the shutdown, not a failure.
      ;(closed ? log.debug : log.warn)("failed to connect", { server: s.name, error })
    } finally {
      s.connecting = undefined
    }
  }

  /** Prompts, resources and resource templates, for the servers that offer them; a failed list is logged and left empty. */
  async function listExtras(s: ServerState, client: Client) {
    const caps = client.getServerCapabilities() ?? {}
    const all = async <T>(what: string, page: (cursor?: string) => Promise<{ items: T[]; next?: string }>): Promise<T[]> => {
      const out: T[] = []
      try {
        let cursor: string | undefined
        do {
          const got = await page(cursor)
          out.push(...got.items)
          cursor = got.next
        } while (cursor)
      } catch (error) {
        log.warn(`listing the ${what} failed`, { server: s.name, error })
      }
      return out
    }
    const o = { timeout: s.timeout }
    const p = (cursor?: string) => (cursor ? { cursor } : undefined)
    s.prompts = caps.prompts ? await all("prompts", async (c) => ((r) => ({ items: r.prompts, next: r.nextCursor }))(await client.listPrompts(p(c), o))) : []
    s.resources = caps.resources ? await all("resources", async (c) => ((r) => ({ items: r.resources, next: r.nextCursor }))(await client.listResources(p(c), o))) : []
    s.templates = caps.resources
      ? await all("resource templates", async (c) => ((r) => ({ items: r.resourceTemplates, next: r.nextCursor }))(await client.listResourceTemplates(p(c), o)))
      : []
  }

  function connected(server: string): { s: ServerState; client: Client } {
    const s = servers.get(server)
    const client = s?.connection?.client
    if (!s || !client) {
      const names = [...servers.values()].filter((x) => x.connection).map((x) => x.name)
      throw new Error(`MCP server "${server}" is not connected${names.length ? ` (connected: ${names.join(", ")})` : ""}`)
    }
    return { s, client }
  }

  function watchClose(s: ServerState, connection: Connection) {
    const client = connection.client
    client.onclose = () => {
      if (closed || s.connection !== connection) return
      s.connection = undefined
      s.instructions = undefined
      s.prompts = []
      s.resources = []
      s.templates = []
      const stderr = connection.stderr()
      s.status = { status: "failed", error: `The server closed the connection${stderr ? `\nstderr: ${stderr}` : ""}` }
      log.warn("the server closed the connection", { server: s.name, stderr: stderr || undefined })
      changed(s, [])
    }
  }

  const api = {
    /** Connects every enabled server at once. Never throws: a server that fails is `failed` with the reason. */
    start(): Promise<void> {
      started ??= Promise.all(entries.map(([name, entry]) => start1(servers.get(name)!, entry))).then(() => {})
      return started
    },
    /** Resolves once every server has connected or failed (at once when there are none); never rejects. */
    ready(signal?: AbortSignal): Promise<void> {
      const all = started ?? Promise.resolve()
      if (!signal) return all
      if (signal.aborted) return Promise.resolve()
      return Promise.race([all, new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }))])
    },
    /** Tools of every connected server. */
    tools(): Tool[] {
      return [...servers.values()].flatMap((s) => s.tools)
    },
    /** The server an MCP tool comes from; undefined for any other tool. */
    serverOf(tool: Tool): string | undefined {
      return ours.get(tool)
    },
    /** Servers that have settled, by name; a server still connecting is not listed yet. */
    status(): Record<string, McpStatus> {
      const out: Record<string, McpStatus> = {}
      for (const s of servers.values()) if (s.status) out[s.name] = s.status
      return out
    },
    /** Prompts of every connected server. */
    prompts(): McpPrompt[] {
      return [...servers.values()].flatMap((s) =>
        s.connection
          ? s.prompts.map((p) => ({
              server: s.name,
              name: p.name,
              ...(p.description ? { description: p.description } : {}),
              arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })),
            }))
          : [],
      )
    },
    /** Sends `prompts/get`; throws an Error that names the server and prompt. */
    async getPrompt(server: string, name: string, args: Record<string, string>): Promise<GetPromptResult> {
      const { s, client } = connected(server)
      try {
        return await client.getPrompt({ name, arguments: args }, { timeout: s.timeout })
      } catch (e) {
        throw new Error(`MCP server "${server}" failed to give prompt ${name}: ${messageOf(e)}`)
      }
    },
    /** Resources of every connected server. */
    resources(): McpResource[] {
      return [...servers.values()].flatMap((s) =>
        s.connection
          ? s.resources.map((r) => ({
              server: s.name,
              uri: r.uri,
              name: r.name,
              ...(r.description ? { description: r.description } : {}),
              ...(r.mimeType ? { mimeType: r.mimeType } : {}),
            }))
          : [],
      )
    },
    /** Resource templates of every connected server. */
    resourceTemplates(): (ResourceTemplate & { server: string })[] {
      return [...servers.values()].flatMap((s) => (s.connection ? s.templates.map((t) => ({ ...t, server: s.name })) : []))
    },
    /** Sends `resources/read`; throws an Error that names the server and URI. */
    async readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
      const { s, client } = connected(server)
      try {
        return await client.readResource({ uri }, { timeout: s.timeout, signal })
      } catch (e) {
        throw new Error(`MCP server "${server}" failed to read ${uri}: ${messageOf(e)}`)
      }
    },
    /** What one server offers, as it sent it (for `wright mcp list` and `debug`). */
    detail(server: string) {
      const s = servers.get(server)
      if (!s) return undefined
      const client = s.connection?.client
      return {
        status: s.status,
        tools: s.defs,
        prompts: s.prompts,
        resources: s.resources,
        templates: s.templates,
        serverInfo: client?.getServerVersion(),
        capabilities: client?.getServerCapabilities(),
        instructions: s.instructions,
        stderr: s.connection?.stderr() ?? "",
      }
    },
    /** What the connected servers asked to have in the system prompt, in an `<mcp_instructions>` block. */
    instructions(): string | undefined {
      const blocks = [...servers.values()]
        .filter((s) => s.instructions && s.status?.status === "connected")
        .map((s) => `<server name="${s.name.replace(/"/g, "&quot;")}">\n${s.instructions}\n</server>`)
      return blocks.length ? ["<mcp_instructions>", ...blocks, "</mcp_instructions>"].join("\n") : undefined
    },
    /** Closes every connection and ends local servers with the processes they started. */
    async close(): Promise<void> {
      if (closed) return
      closed = true
      await Promise.all(
        [...servers.values()].map(async (s) => {
          const connection = s.connection
          s.connection = undefined
          await connection?.close()
          await s.connecting?.close().catch((error) => log.debug("closing a connection still being made failed", { server: s.name, error }))
        }),
      )
      // Starts that were under way end now that their transports are closed.
      await started
    },
  }
  return api
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** Whether the effective entry is exactly the user's own (a project layer that changed any field makes it the project's). */
function sameEntry(user: unknown, entry: unknown): boolean {
  return user !== undefined && stable(user) === stable(entry)
}

function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`
  if (v && typeof v === "object") {
    const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`).join(",")}}`
  }
  return JSON.stringify(v)
}
