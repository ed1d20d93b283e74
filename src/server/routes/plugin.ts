import { z } from "zod"
import { PluginStatus } from "../../protocol"
import { route } from "../route"

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
