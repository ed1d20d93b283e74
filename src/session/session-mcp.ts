// MCP servers that belong to one session (an editor passes them in ACP's session/new): each
// session's set runs in its own MCP manager, whose tools only that session's steps are offered
// (loop.ts `sessionTools`). The config's servers are the App's manager's, not these. It starts
// and stops the managers and nothing else: permission asks happen in the tools themselves.
import type { McpStatus, SessionMcpServer } from "../protocol"
import { createMcp, type Mcp } from "../mcp"
import type { Exec, Sandbox } from "../process"
import type { Tool } from "../tool"
import type { Logger } from "../util"

export interface SessionMcpDeps {
  directory: string
  exec: Exec
  sandbox?: Sandbox
  clientInfo: { name: string; version: string }
  log: Logger
  /** A session's server set changed (its tools came or went). */
  onToolsChanged?(sessionID: string, server: string): void
}

export type SessionMcp = ReturnType<typeof createSessionMcp>

export function createSessionMcp(deps: SessionMcpDeps) {
  const bySession = new Map<string, Mcp>()
  const owner = new WeakMap<Tool, Mcp>()

  const api = {
    /**
     * Starts `servers` for `sessionID`, replacing (and stopping) the set it had. Resolves once
     * each has connected or failed, with their statuses by name; never rejects.
     */
    async set(sessionID: string, servers: Record<string, SessionMcpServer>): Promise<Record<string, McpStatus>> {
      await api.clear(sessionID)
      if (Object.keys(servers).length === 0) return {}
      const mcp = createMcp({
        config: { mcp: servers },
        // The editor's servers are the user's own (their editor's settings), not the project's:
        // they run as the editor asked, outside unless `sandbox: true`, with a scrubbed environment.
        userServers: servers,
        directory: deps.directory,
        exec: deps.exec,
        sandbox: deps.sandbox,
        clientInfo: deps.clientInfo,
        log: deps.log.child({ sessionID }),
        onToolsChanged: (server) => deps.onToolsChanged?.(sessionID, server),
      })
      bySession.set(sessionID, mcp)
      await mcp.start()
      return mcp.status()
    },
    /** The tools of `sessionID`'s own servers ([] without any); never throws. */
    tools(sessionID: string): Tool[] {
      const mcp = bySession.get(sessionID)
      if (!mcp) return []
      const tools = mcp.tools()
      for (const t of tools) owner.set(t, mcp)
      return tools
    },
    /** The server a session's MCP tool comes from; undefined for any other tool. */
    serverOf(tool: Tool): string | undefined {
      return owner.get(tool)?.serverOf(tool)
    },
    /** Stops `sessionID`'s servers (nothing happens without any); never rejects. */
    async clear(sessionID: string): Promise<void> {
      const mcp = bySession.get(sessionID)
      if (!mcp) return
      bySession.delete(sessionID)
      await mcp.close().catch((error) => deps.log.warn("closing a session's MCP servers failed", { sessionID, error }))
    },
    /** Stops every session's servers. */
    async close(): Promise<void> {
      await Promise.all([...bySession.keys()].map((id) => api.clear(id)))
    },
  }
  return api
}
