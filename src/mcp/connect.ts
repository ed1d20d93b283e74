import path from "node:path"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import type { McpLocalConfig, McpRemoteConfig } from "../config"
import type { Exec, Sandbox } from "../process"
import { ChildTransport } from "./stdio"
import { McpAuthProvider } from "./oauth"

export type McpServerConfig = McpLocalConfig | McpRemoteConfig

/** Returns a transport for a server (tests: an in-memory pair), or undefined for the default one. */
export type TransportFactory = (name: string, server: McpServerConfig) => Transport | undefined

export interface ConnectOptions {
  name: string
  server: McpServerConfig
  directory: string
  /** The App's spawner: local servers start through it, with `environment` laid over the App's env. */
  exec: Exec
  /** The App's sandbox: see `own`; undefined: unconfined. */
  sandbox?: Sandbox
  /**
   * The server is the user's own (their global config, unchanged by the project): it starts
   * outside the sandbox unless it opts in with `sandbox: true`. Otherwise it is project code and
   * always starts inside.
   */
  own?: boolean
  timeout: number
  clientInfo: { name: string; version: string }
  transport?: TransportFactory
  /** Called with the client before `initialize`, so close() can end a start that is under way. */
  onClient(client: Client): void
  /** The server sent `notifications/tools/list_changed` (listened for before `initialize`, so none is missed). */
  onToolsChanged(): void
  /** The MCP OAuth token store; without it remote servers get no OAuth (a 401 says to set a header). */
  authFile?: string
}

/** A remote server wants an OAuth login that has not happened (or whose refresh token no longer works). */
export class NeedsAuthError extends Error {
  constructor(readonly server: string) {
    super(`Server "${server}" requires authentication. Run: wright mcp auth ${server}`)
    this.name = "NeedsAuthError"
  }
}

/** A live connection: the client, and for local servers the process and what it wrote to stderr. */
export interface Connection {
  client: Client
  /** The last few KB the server wrote to stderr (local servers only). */
  stderr(): string
  close(): Promise<void>
}

const STDERR_TAIL = 4000

/** Connects and initializes, within `timeout`; throws an Error whose message says why (with stderr). */
export async function connect(opts: ConnectOptions): Promise<Connection> {
  const injected = opts.transport?.(opts.name, opts.server)
  if (injected) return open(opts, injected)
  if (opts.server.type === "local") return connectLocal(opts, opts.server)
  return connectRemote(opts, opts.server)
}

async function connectLocal(opts: ConnectOptions, server: McpLocalConfig): Promise<Connection> {
  const command = server.command[0]!
  let child
  try {
    child = await opts.exec(server.command, {
      cwd: server.cwd ? path.resolve(opts.directory, server.cwd) : opts.directory,
      env: server.environment,
      stdin: "pipe",
      // A project's server is the project's code: inside, like a command. The user's own may run
      // outside as they set it up (their tools, sockets and folders the sandbox hides); it still
      // gets the environment without secrets, plus its configured `environment`.
      sandbox: opts.own && server.sandbox !== true ? "off" : opts.sandbox,
      scrub: true,
    })
  } catch (e) {
    throw new Error(spawnMessage(e, opts.name, command))
  }
  // Kept for error messages, and always drained so a chatty server never blocks on a full pipe.
  let tail = ""
  const stream = child.stderr
  const ended = new Promise<void>((resolve) => {
    stream.on("end", resolve)
    stream.on("close", resolve)
  })
  stream.on("data", (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL)
  })
  const stderrAfterExit = async () => {
    // The pipe may still hold the last lines when the connection fails; give it a moment to flush.
    await Promise.race([ended, sleep(500)])
    return tail.trim()
  }
  try {
    return await open(opts, new ChildTransport(child), () => tail.trim())
  } catch (e) {
    const stderr = await stderrAfterExit()
    const message = spawnMessage(e, opts.name, command)
    throw new Error(stderr ? `${message}\nstderr: ${stderr}` : message)
  }
}

async function connectRemote(opts: ConnectOptions, server: McpRemoteConfig): Promise<Connection> {
  let url: URL
  try {
    url = new URL(server.url)
  } catch {
    throw new Error(`mcp.${opts.name}.url is not a valid URL: ${server.url}`)
  }
  const requestInit = server.headers ? { headers: server.headers } : undefined
  // OAuth unless the config turns it off or sends its own Authorization header.
  const hasAuthHeader = Object.keys(server.headers ?? {}).some((k) => k.toLowerCase() === "authorization")
  const authProvider =
    opts.authFile && server.oauth !== false && !hasAuthHeader
      ? new McpAuthProvider({ name: opts.name, serverUrl: server.url, file: opts.authFile, oauth: server.oauth || undefined })
      : undefined
  const unauthorized = (e: unknown) => authProvider?.needsLogin || e instanceof UnauthorizedError
  try {
    return await open(opts, new StreamableHTTPClientTransport(url, { requestInit, authProvider }))
  } catch (first) {
    if (authProvider && unauthorized(first)) throw new NeedsAuthError(opts.name)
    if (statusOf(first) === 401) throw authError(opts.name)
    // Older servers speak only the HTTP+SSE transport.
    try {
      return await open(opts, new SSEClientTransport(url, { requestInit, authProvider }))
    } catch (second) {
      if (authProvider && unauthorized(second)) throw new NeedsAuthError(opts.name)
      if (statusOf(second) === 401) throw authError(opts.name)
      throw new Error(`Could not connect to ${server.url}: StreamableHTTP: ${messageOf(first)}; SSE: ${messageOf(second)}`)
    }
  }
}

async function open(opts: ConnectOptions, transport: Transport, stderr = () => ""): Promise<Connection> {
  const client = new Client(opts.clientInfo, { capabilities: {} })
  opts.onClient(client)
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => opts.onToolsChanged())
  // For a local server this ends its process group (stdio.ts).
  const close = () => client.close().catch(() => {})
  const timeoutError = () => new Error(`No answer to initialize within ${opts.timeout} ms (raise mcp.${opts.name}.timeout to wait longer)`)
  // The SDK's own timeout covers the initialize request only; an SSE stream that never opens needs this one.
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), opts.timeout)
  })
  try {
    await Promise.race([client.connect(transport, { timeout: opts.timeout }), timedOut])
  } catch (e) {
    await close()
    throw isTimeout(e) ? timeoutError() : e
  } finally {
    clearTimeout(timer)
  }
  return { client, stderr, close }
}

function spawnMessage(e: unknown, name: string, command: string): string {
  const err = e as NodeJS.ErrnoException
  if (err?.code === "ENOENT") return `Command not found: ${command} (check mcp.${name}.command and PATH)`
  if (err?.code === "EACCES") return `Command is not executable: ${command}`
  const message = messageOf(e)
  return /connection closed/i.test(message) ? `The server exited before it finished starting (${message})` : message
}

function authError(name: string): Error {
  return new Error(
    `The server requires authentication (HTTP 401): run wright mcp auth ${name}, or put a token in mcp.${name}.headers, e.g. {"Authorization": "Bearer …"}`,
  )
}

function statusOf(e: unknown): number | undefined {
  const code = (e as { code?: unknown })?.code
  return typeof code === "number" && code >= 100 && code < 600 ? code : undefined
}

function isTimeout(e: unknown): boolean {
  return (e as { code?: unknown })?.code === -32001
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

function sleep(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms).unref())
}
