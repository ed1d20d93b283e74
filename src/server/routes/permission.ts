import { z } from "zod"
import { NotFoundError, PermissionReply, PermissionRequest } from "../../protocol"
import { route } from "../route"

const ReplyBody = z.object({ reply: PermissionReply, message: z.string().optional() })

export const permissionRoutes = [
  route({
    method: "get",
    path: "/permission",
    operationId: "permission.list",
    summary: "Permission asks waiting for an answer",
    tags: ["permission"],
    response: z.array(PermissionRequest),
    handler: ({ app }) => app.permissions.list(),
  }),
  route({
    method: "post",
    path: "/permission/:requestID/reply",
    operationId: "permission.reply",
    summary: "Answer a permission ask: once, always, or reject (with an optional message for the model)",
    tags: ["permission"],
    body: ReplyBody,
    response: z.boolean(),
    handler: ({ app, params, body }) => {
      if (!app.permissions.reply(params.requestID!, body.reply, body.message)) throw new NotFoundError({ message: `Permission request not found: ${params.requestID}` })
      return true
    },
  }),
  route({
    method: "post",
    path: "/session/:id/permissions/:permissionID",
    operationId: "session.permission.respond",
    summary: "Answer a permission ask (legacy path)",
    tags: ["permission"],
    body: z.object({ response: PermissionReply, message: z.string().optional() }),
    response: z.boolean(),
    handler: ({ app, params, body }) => {
      app.sessions.get(params.id!)
      if (!app.permissions.reply(params.permissionID!, body.response, body.message)) throw new NotFoundError({ message: `Permission request not found: ${params.permissionID}` })
      return true
    },
  }),
]
