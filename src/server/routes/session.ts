import { z } from "zod"
import { MessageWithParts, PromptInput, Session, SessionCreateInput, SessionStatus } from "../../protocol"
import { route } from "../route"

const id = (params: Record<string, string>) => params.id!

export const sessionRoutes = [
  route({
    method: "get",
    path: "/session",
    operationId: "session.list",
    summary: "List sessions, most recently updated first",
    tags: ["session"],
    query: z.object({
      search: z.string().optional(),
      limit: z.coerce.number().int().positive().optional(),
      roots: z.enum(["true", "false"]).optional(),
    }),
    response: z.array(Session),
    handler: ({ app, query }) => app.sessions.list({ search: query.search, limit: query.limit, roots: query.roots === "true" }),
  }),
  route({
    method: "post",
    path: "/session",
    operationId: "session.create",
    summary: "Create a session",
    tags: ["session"],
    body: SessionCreateInput,
    response: Session,
    handler: ({ app, body }) => app.sessions.create(body),
  }),
  route({
    method: "get",
    path: "/session/status",
    operationId: "session.status",
    summary: "Status of every session that is not idle",
    tags: ["session"],
    response: z.record(z.string(), SessionStatus),
    handler: ({ app }) => app.sessions.statuses(),
  }),
  route({
    method: "get",
    path: "/session/:id",
    operationId: "session.get",
    summary: "Get a session",
    tags: ["session"],
    response: Session,
    handler: ({ app, params }) => app.sessions.get(id(params)),
  }),
  route({
    method: "get",
    path: "/session/:id/message",
    operationId: "session.messages",
    summary: "Messages of a session with their parts, oldest first",
    tags: ["session"],
    query: z.object({ limit: z.coerce.number().int().nonnegative().optional(), before: z.string().optional() }),
    response: z.array(MessageWithParts),
    handler: ({ app, params, query }) => app.sessions.messages(id(params), query),
  }),
  route({
    method: "post",
    path: "/session/:id/message",
    operationId: "session.prompt",
    summary: "Send a prompt and wait for the answer",
    tags: ["session"],
    body: PromptInput,
    response: MessageWithParts,
    handler: async ({ app, params, body }) => {
      app.sessions.get(id(params))
      return app.sessions.prompt(id(params), body)
    },
  }),
  route({
    method: "post",
    path: "/session/:id/abort",
    operationId: "session.abort",
    summary: "Abort the running loop of a session",
    tags: ["session"],
    response: z.boolean(),
    handler: ({ app, params }) => app.sessions.abort(id(params)),
  }),
]
