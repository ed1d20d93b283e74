import { z } from "zod"
import { McpStatus, SessionMcpInput } from "../../protocol"
import { route } from "../route"

// MCP servers of one session (an editor's, over ACP): started for it alone, stopped on DELETE
// or when the session is deleted.
export const sessionMcpRoutes = [
  route({
    method: "put",
    path: "/session/:id/mcp",
    operationId: "session.mcp.set",
    summary: "Start MCP servers for this session only, replacing those it had; answers each one's status once it connected or failed",
    tags: ["mcp"],
    body: SessionMcpInput,
    response: z.record(z.string(), McpStatus),
    handler: ({ app, params, body }) => {
      app.sessions.get(params.id!)
      return app.sessionMcp.set(params.id!, body.servers)
    },
  }),
  route({
    method: "delete",
    path: "/session/:id/mcp",
    operationId: "session.mcp.clear",
    summary: "Stop the MCP servers started for this session",
    tags: ["mcp"],
    response: z.boolean(),
    handler: async ({ app, params }) => {
      await app.sessionMcp.clear(params.id!)
      return true
    },
  }),
]
