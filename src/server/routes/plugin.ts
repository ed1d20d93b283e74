import { z } from "zod"
import { route } from "../route"

const PluginStatus = z.object({
  name: z.string(),
  kind: z.enum(["file", "npm", "url", "tool", "hooks"]),
  source: z.string(),
  version: z.string().optional(),
  status: z.enum(["loaded", "failed", "disabled"]),
  hooks: z.array(z.string()),
  tools: z.array(z.string()),
  error: z.string().optional(),
  loadMs: z.number().optional(),
})

export const pluginRoutes = [
  route({
    method: "get",
    path: "/plugin",
    operationId: "plugin.list",
    summary: "The project's plugins, custom tool files and command hooks: where each came from, the hooks and tools it added, and what failed",
    tags: ["plugin"],
    response: z.array(PluginStatus),
    // Plugins still loading (an npm install) are waited for, so each one has its final status.
    handler: ({ app }) => app.plugins(),
  }),
]
