import { z } from "zod"
import { McpStatus } from "../../protocol"
import { route } from "../route"


export const mcpRoutes = [
  route({
    method: "get",
    path: "/mcp",
    operationId: "mcp.status",
    summary: "Status of each MCP server in the config: connected, disabled, or failed with the reason",
    tags: ["mcp"],
    response: z.record(z.string(), McpStatus),
    // Servers still connecting are waited for (each within its timeout), so every one has a final status.
    handler: async ({ app, c }) => {
      await app.mcp.ready(c.req.raw.signal)
      return app.mcp.status()
    },
  }),
]
