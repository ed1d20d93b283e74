import { z } from "zod"
import { BadRequestError, NotFoundError, PermissionReplyInput, PermissionRequest, PermissionRespondInput, QuestionReplyInput, QuestionRequest } from "../../protocol"
import { route } from "../route"

const noPermission = (requestID: string) => new NotFoundError({ message: `Permission request not found: ${requestID} (it was answered already, or its session stopped)` })
const noQuestion = (requestID: string) => new NotFoundError({ message: `Question not found: ${requestID} (it was answered already, or its session stopped)` })

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
    body: PermissionReplyInput,
    response: z.boolean(),
    handler: ({ app, params, body }) => {
      if (!app.permissions.reply(params.requestID!, body.reply, body.message)) throw noPermission(params.requestID!)
      return true
    },
  }),
  route({
    method: "post",
    path: "/session/:id/permissions/:permissionID",
    operationId: "permission.respond",
    summary: "Answer a permission ask (legacy path)",
    tags: ["permission"],
    body: PermissionRespondInput,
    response: z.boolean(),
    handler: ({ app, params, body }) => {
      app.sessions.get(params.id!)
      const pending = app.permissions.list().find((p) => p.id === params.permissionID)
      if (!pending || pending.sessionID !== params.id) throw noPermission(params.permissionID!)
      if (!app.permissions.reply(params.permissionID!, body.response, body.message)) throw noPermission(params.permissionID!)
      return true
    },
  }),
  route({
    method: "get",
    path: "/question",
    operationId: "question.list",
    summary: "Questions from the model waiting for an answer",
    tags: ["question"],
    response: z.array(QuestionRequest),
    handler: ({ app }) => app.questions.list(),
  }),
  route({
    method: "post",
    path: "/question/:requestID/reply",
    operationId: "question.reply",
    summary: "Answer a question: one list of chosen labels (or typed text) per question, in order",
    tags: ["question"],
    body: QuestionReplyInput,
    response: z.boolean(),
    handler: ({ app, params, body }) => {
      const pending = app.questions.list().find((q) => q.id === params.requestID)
      if (!pending) throw noQuestion(params.requestID!)
      if (body.answers.length !== pending.questions.length) {
        const message = `expected one answer per question (${pending.questions.length}), got ${body.answers.length}`
        throw new BadRequestError({ message: `Invalid request: body.answers: ${message}`, issues: [{ path: "body.answers", message }] })
      }
      if (!app.questions.reply(params.requestID!, body.answers)) throw noQuestion(params.requestID!)
      return true
    },
  }),
  route({
    method: "post",
    path: "/question/:requestID/reject",
    operationId: "question.reject",
    summary: "Dismiss a question; the model's turn ends",
    tags: ["question"],
    response: z.boolean(),
    handler: ({ app, params }) => {
      if (!app.questions.reject(params.requestID!)) throw noQuestion(params.requestID!)
      return true
    },
  }),
]
