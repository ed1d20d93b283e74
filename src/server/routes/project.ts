import { z } from "zod"
import { route } from "../route"

export const projectRoutes = [
  route({
    method: "get",
    path: "/project",
    operationId: "project.list",
    summary: "Project directories the server knows: the one it started in, then every directory with sessions, most recently used first",
    tags: ["project"],
    global: true,
    response: z.array(z.object({ directory: z.string() })),
    handler: ({ server }) => {
      const dirs = new Set([server.directory, ...server.apps().map((a) => a.directory), ...(server.projects?.() ?? [])])
      return [...dirs].map((directory) => ({ directory }))
    },
  }),
]
