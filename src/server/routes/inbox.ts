import { z } from "zod"
import { InboxItem, InboxItemUpdate } from "../../protocol"
import { route } from "../route"

const id = (params: Record<string, string>) => params.id!

/** A session's inbox: prompts sent while it was busy, until the process running it delivers them. */
export const inboxRoutes = [
  route({
    method: "get",
    path: "/session/:id/inbox",
    operationId: "session.inbox",
    summary: "Prompts waiting for delivery to the busy session, oldest first (steering ones go before queued ones when delivered)",
    tags: ["session"],
    response: z.array(InboxItem),
    handler: ({ app, params }) => {
      app.sessions.get(id(params))
      return app.inbox.list(id(params))
    },
  }),
  route({
    method: "patch",
    path: "/session/:id/inbox/:itemID",
    operationId: "session.inboxUpdate",
    summary: "Edit a waiting prompt's parts and/or delivery; 409 once it was delivered (new parts turn a command into a plain prompt)",
    tags: ["session"],
    body: InboxItemUpdate,
    response: InboxItem,
    handler: ({ app, params, body }) => {
      app.sessions.get(id(params))
      return app.inbox.update(id(params), params.itemID!, body)
    },
  }),
  route({
    method: "delete",
    path: "/session/:id/inbox/:itemID",
    operationId: "session.inboxDelete",
    summary: "Withdraw a waiting prompt; 409 once it was delivered",
    tags: ["session"],
    response: z.boolean(),
    handler: ({ app, params }) => {
      app.sessions.get(id(params))
      app.inbox.remove(id(params), params.itemID!)
      return true
    },
  }),
]
