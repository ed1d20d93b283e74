import { z } from "zod"
import { ToolListItem } from "../../protocol"
import { route } from "../route"

export const toolRoutes = [
  route({
    method: "get",
    path: "/experimental/tool/ids",
    operationId: "tool.ids",
    summary: "Ids of every tool the project has",
    tags: ["tool"],
    response: z.array(z.string()),
    handler: ({ app }) => app.registry.all().map((t) => t.id),
  }),
  route({
    method: "get",
    path: "/experimental/tool",
    operationId: "tool.list",
    summary: "The tools offered to a model, with their descriptions and JSON Schemas",
    tags: ["tool"],
    query: z.object({ provider: z.string().min(1), model: z.string().min(1) }),
    response: z.array(ToolListItem),
    handler: ({ app, query }) =>
      app.registry.forModel(query.model).map((t) => ({ id: t.id, description: t.description, parameters: t.jsonSchema })),
  }),
]
