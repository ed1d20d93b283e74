import { z } from "zod"
import { FormatterStatus, LspStatus } from "../../protocol"
import { route } from "../route"

export const lspRoutes = [
  route({
    method: "get",
    path: "/lsp",
    operationId: "lsp.status",
    summary: "Language servers started so far (servers start on the first file of their language): connected, or in error with the reason",
    tags: ["lsp"],
    response: z.array(LspStatus),
    handler: ({ app }) => app.codeIntel.status(),
  }),
  route({
    method: "get",
    path: "/formatter",
    operationId: "formatter.status",
    summary: "Formatters by name, their extensions, and whether they apply to this project",
    tags: ["formatter"],
    response: z.array(FormatterStatus),
    handler: ({ app }) => app.codeIntel.formatterStatus(),
  }),
]
