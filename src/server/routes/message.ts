import { z } from "zod"
import { BadRequestError, InboxItem, MessageWithParts, NotFoundError, Part, PromptInput, SessionCommandInput, SessionShellInput } from "../../protocol"
import { visibleMessages } from "../../session"
import { route } from "../route"
import { assertIdle } from "./session"

const id = (params: Record<string, string>) => params.id!

/** A busy session stores the prompt in its inbox: with `delivery` given, /message and /command answer 202 with the item. */
const stored = { schema: InboxItem, description: "The session is busy and `delivery` was given: the prompt waits in its inbox (GET /session/:id/inbox)" }

export const messageRoutes = [
  route({
    method: "get",
    path: "/session/:id/message",
    operationId: "session.messages",
    summary: "Messages with their parts, oldest first; `limit` keeps the newest N, `before` is an exclusive message-id cursor",
    tags: ["session"],
    query: z.object({ limit: z.coerce.number().int().nonnegative().optional(), before: z.string().optional() }),
    response: z.array(MessageWithParts),
    handler: ({ app, params, query }) => {
      const session = app.sessions.get(id(params))
      // A page of a long session is read alone, not the whole session (no revert hides a tail).
      if (query.limit !== undefined && !session.revert) return app.sessions.messages(id(params), query)
      let list = visibleMessages(session, app.sessions.messages(id(params)))
      if (query.before) list = list.filter((m) => m.info.id < query.before!)
      if (query.limit !== undefined) list = list.slice(Math.max(0, list.length - query.limit))
      return list
    },
  }),
  route({
    method: "post",
    path: "/session/:id/message",
    operationId: "session.prompt",
    summary:
      "Send a prompt and wait for the answer (the last assistant message). To a busy session the prompt goes to its inbox (`delivery`, default queue): with `delivery` given the answer is 202 and the item at once; without, the route waits for the answer to it",
    tags: ["session"],
    body: PromptInput,
    response: MessageWithParts,
    conflict: true,
    accepted: stored,
    handler: ({ app, params, body, server, c }) => {
      app.sessions.get(id(params))
      if (server.shells(app).busy(id(params))) assertIdle(app, server, id(params))
      const item = app.sessions.offer(id(params), body, body)
      if (!item) return app.sessions.prompt(id(params), body)
      // A client that knows nothing of the inbox still gets the answer, as it did when it waited for the lease.
      return body.delivery ? c.json(item, 202) : app.sessions.answerOf(id(params), item.id, c.req.raw.signal)
    },
  }),
  route({
    method: "post",
    path: "/session/:id/prompt_async",
    operationId: "session.prompt_async",
    summary: "Store a prompt and start the loop; answers 204 at once (follow /event for the rest). To a busy session the prompt goes to its inbox (`delivery`, default queue)",
    tags: ["session"],
    body: PromptInput,
    status: 204,
    conflict: true,
    handler: async ({ app, params, body, server }) => {
      app.sessions.get(id(params))
      if (server.shells(app).busy(id(params))) assertIdle(app, server, id(params))
      if (app.sessions.offer(id(params), body, body)) return
      await app.sessions.enqueue(id(params), body)
      // Failures of the run itself reach clients as session.error events; the log keeps them too.
      if (!body.noReply) app.sessions.run(id(params)).catch((error) => app.log.error("prompt_async: the run failed", { session: id(params), error }))
    },
  }),
  route({
    method: "post",
    path: "/session/:id/command",
    operationId: "session.command",
    summary: "Run a slash command in the session and wait for the answer. To a busy session it goes to its inbox as /message's prompt does, and is expanded when delivered",
    tags: ["session"],
    body: SessionCommandInput,
    response: MessageWithParts,
    conflict: true,
    accepted: stored,
    handler: ({ app, params, body, server, c }) => {
      app.sessions.get(id(params))
      if (server.shells(app).busy(id(params))) assertIdle(app, server, id(params))
      if (app.sessions.held(id(params)) && !app.commands().some((cmd) => cmd.name === body.command)) return app.sessions.command(id(params), body)
      const item = app.sessions.offer(id(params), body, { parts: body.parts ?? [] }, body)
      if (!item) return app.sessions.command(id(params), body)
      return body.delivery ? c.json(item, 202) : app.sessions.answerOf(id(params), item.id, c.req.raw.signal)
    },
  }),
  route({
    method: "post",
    path: "/session/:id/shell",
    operationId: "session.shell",
    summary: "Run a shell command as the user (a bash tool part, no model call); answers the assistant message",
    tags: ["session"],
    body: SessionShellInput,
    response: MessageWithParts,
    conflict: true,
    handler: ({ app, params, body, server }) => server.shells(app).run(id(params), body),
  }),
  route({
    method: "get",
    path: "/session/:id/message/:messageID",
    operationId: "session.message",
    summary: "One message with its parts",
    tags: ["session"],
    response: MessageWithParts,
    handler: ({ app, params }) => {
      app.sessions.get(id(params))
      return app.sessions.message(id(params), params.messageID!)
    },
  }),
  route({
    method: "delete",
    path: "/session/:id/message/:messageID",
    operationId: "session.deleteMessage",
    summary: "Delete a message and its parts",
    tags: ["session"],
    response: z.boolean(),
    conflict: true,
    handler: ({ app, params, server }) => {
      app.sessions.get(id(params))
      assertIdle(app, server, id(params))
      app.sessions.removeMessage(id(params), params.messageID!)
      return true
    },
  }),
  route({
    method: "patch",
    path: "/session/:id/message/:messageID/part/:partID",
    operationId: "part.update",
    summary: "Replace a part; its ids must match the path",
    tags: ["session"],
    body: Part,
    response: Part,
    handler: ({ app, params, body }) => {
      findPart(app, params)
      const expected = { sessionID: id(params), messageID: params.messageID!, id: params.partID! }
      for (const [field, value] of Object.entries(expected)) {
        const given = body[field as keyof typeof expected]
        if (given !== value) throw new BadRequestError({ message: `Invalid request: body.${field} is "${given}" but the path says "${value}"`, issues: [{ path: `body.${field}`, message: `must be "${value}"` }] })
      }
      return app.sessions.updatePart(id(params), body)
    },
  }),
  route({
    method: "delete",
    path: "/session/:id/message/:messageID/part/:partID",
    operationId: "part.delete",
    summary: "Delete a part",
    tags: ["session"],
    response: z.boolean(),
    handler: ({ app, params }) => {
      findPart(app, params)
      app.sessions.removePart(id(params), params.messageID!, params.partID!)
      return true
    },
  }),
]

function findPart(app: Parameters<typeof assertIdle>[0], params: Record<string, string>) {
  app.sessions.get(id(params))
  const message = app.sessions.message(id(params), params.messageID!)
  const part = message.parts.find((p) => p.id === params.partID)
  if (!part) throw new NotFoundError({ message: `Part not found in message ${params.messageID}: ${params.partID}` })
  return part
}
