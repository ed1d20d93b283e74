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
  route({
    method: "get",
    path: "/experimental/resource",
    operationId: "experimental.resource.list",
    summary: "Resources of the connected MCP servers, by `server:name`, for `@` mentions",
    tags: ["mcp"],
    response: z.record(z.string(), z.object({ name: z.string(), uri: z.string(), client: z.string(), description: z.string().optional(), mimeType: z.string().optional() })),
    handler: async ({ app, c }) => {
      await app.mcp.ready(c.req.raw.signal)
      const out: Record<string, { name: string; uri: string; client: string; description?: string; mimeType?: string }> = {}
      for (const r of app.mcp.resources()) {
        out[`${r.server}:${r.name}`] = { name: r.name, uri: r.uri, client: r.server, ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) }
      }
      return out
    },
  }),
]
