import { z } from "zod"
import { route } from "../route"

const AgentInfo = z.object({
  name: z.string(),
  description: z.string().optional(),
  mode: z.enum(["primary", "subagent", "all"]),
  hidden: z.boolean().optional(),
  native: z.boolean().optional(),
  builtIn: z.boolean().optional(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  prompt: z.string().optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
  steps: z.number().optional(),
  color: z.string().optional(),
  options: z.record(z.string(), z.unknown()),
  permission: z.array(z.unknown()),
})

export const agentRoutes = [
  route({
    method: "get",
    path: "/agent",
    operationId: "app.agents",
    summary: "Agents of the project, the default first",
    tags: ["agent"],
    response: z.array(AgentInfo),
    handler: ({ app }) => app.agents.list().map((a) => ({ ...a, builtIn: a.native })),
  }),
]
