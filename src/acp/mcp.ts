// The MCP servers an editor passes in session/new, load, resume and fork: translated into
// wright's session MCP servers (stdio → local, http/sse → remote) and started for that session
// alone through the API; they stop when the editor closes the session.
import type { McpServer } from "@agentclientprotocol/sdk/unstable"
import type { McpStatus, SessionMcpServer } from "../protocol"
import type { Client } from "../sdk"

/** What session/new etc. advertise in `mcpCapabilities`: wright's remote client speaks Streamable HTTP and SSE. */
export const MCP_CAPABILITIES = { http: true, sse: true }

/** The editor's servers by name; ACP-transport servers (`type: "acp"`) are left out with a note. */
export function sessionServers(servers: McpServer[], log: (m: string) => void): Record<string, SessionMcpServer> {
  const out: Record<string, SessionMcpServer> = {}
  for (const server of servers) {
    if (!("type" in server) || server.type === undefined) {
      const s = server as Extract<McpServer, { command: string }>
      out[s.name] = { type: "local", command: [s.command, ...s.args], ...(s.env.length ? { environment: Object.fromEntries(s.env.map((e) => [e.name, e.value])) } : {}) }
    } else if (server.type === "http" || server.type === "sse") {
      out[server.name] = { type: "remote", url: server.url, ...(server.headers.length ? { headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) } : {}) }
    } else log(`MCP server "${server.name}": the ${server.type} transport is not supported; it was not started`)
  }
  return out
}

/** Starts the editor's servers for `sessionID` (none: stops those it had); a server that fails is logged, not thrown. */
export async function startSessionMcp(api: Client, sessionID: string, servers: McpServer[] | undefined, log: (m: string) => void): Promise<void> {
  const wanted = sessionServers(servers ?? [], log)
  if (Object.keys(wanted).length === 0) return
  const status: Record<string, McpStatus> = await api.session.mcpSet(sessionID, { servers: wanted })
  for (const [name, s] of Object.entries(status)) if (s.status !== "connected") log(`MCP server "${name}" did not start: ${"error" in s ? s.error : s.status}`)
}
