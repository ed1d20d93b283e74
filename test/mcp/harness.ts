// In-process MCP servers for manager tests: each McpServer is reached over a linked
// in-memory transport pair, through the manager's transport seam.
import { createRequire } from "node:module"
import path from "node:path"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { createMcp, type McpOptions, type TransportFactory } from "../../src/mcp"
import { createExec, type Exec } from "../../src/process"
import { createToolRegistry } from "../../src/tool"

const require = createRequire(import.meta.url)

/** The real filesystem server's entry point, run with `node` (never npx). */
export const FILESYSTEM_SERVER = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js")
/** test/mcp/fixtures/stdio-server.mjs: echo, where, crash; see its header for the env switches. */
export const FIXTURE_SERVER = path.join(import.meta.dirname, "fixtures", "stdio-server.mjs")

/** A 1×1 transparent PNG. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

export function inMemory(servers: Record<string, McpServer>): TransportFactory {
  return (name) => {
    const server = servers[name]
    if (!server) return undefined
    const [client, other] = InMemoryTransport.createLinkedPair()
    void server.connect(other)
    return client
  }
}

/** A manager over the given in-process servers (by config name) plus any real ones in `mcp`. */
export function testMcp(opts: {
  servers?: Record<string, McpServer>
  mcp?: NonNullable<McpOptions["config"]["mcp"]>
  timeout?: number
  directory?: string
  env?: NodeJS.ProcessEnv
  /** The spawner local servers start through (default: a real one over `env`). */
  exec?: Exec
}) {
  const changes: string[] = []
  const waiters: { server: string; resolve: () => void }[] = []
  const registry = createToolRegistry([])
  const inProcess = Object.fromEntries(Object.keys(opts.servers ?? {}).map((name) => [name, { type: "local" as const, command: ["in-process"] }]))
  const mcp = createMcp({
    config: { mcp: { ...inProcess, ...opts.mcp }, experimental: opts.timeout ? { mcp_timeout: opts.timeout } : undefined },
    directory: opts.directory ?? process.cwd(),
    exec: opts.exec ?? createExec({ env: opts.env ?? process.env }),
    registry,
    transport: inMemory(opts.servers ?? {}),
    onToolsChanged(server) {
      changes.push(server)
      for (const w of waiters.filter((w) => w.server === server)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    },
  })
  return {
    mcp,
    registry,
    changes,
    /** Resolves on the next tools change of `server`. */
    nextChange: (server: string) => new Promise<void>((resolve) => waiters.push({ server, resolve })),
  }
}

export function server(name = "demo", instructions?: string) {
  return new McpServer({ name, version: "1.0.0" }, instructions ? { instructions } : undefined)
}
