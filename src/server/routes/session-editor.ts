import { z } from "zod"
import { EditorFileReply, SessionEditorInput } from "../../protocol"
import { route } from "../route"

// An editor's buffers for one session's file tools (ACP's fs capabilities): attach them, then
// answer each `editor.file.requested` event.
export const sessionEditorRoutes = [
  route({
    method: "put",
    path: "/session/:id/editor",
    operationId: "session.editor.set",
    summary: "Route this session's file reads and/or writes through its editor (answered at POST /session/:id/editor/:requestID)",
    tags: ["session"],
    body: SessionEditorInput,
    response: z.boolean(),
    handler: ({ app, params, body }) => {
      app.sessions.get(params.id!)
      app.editorFiles.attach(params.id!, body)
      return true
    },
  }),
  route({
    method: "post",
    path: "/session/:id/editor/:requestID",
    operationId: "session.editor.reply",
    summary: "The editor's answer to an editor.file.requested event: the text read, {} for a write done, or {error}",
    tags: ["session"],
    body: EditorFileReply,
    response: z.boolean(),
    handler: ({ app, params, body }) => app.editorFiles.reply(params.id!, params.requestID!, body),
  }),
]
