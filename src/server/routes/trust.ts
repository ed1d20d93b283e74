import { writeTrustRecord } from "../../config"
import { TrustStatus } from "../../protocol"
import type { App } from "../../session"
import { route } from "../route"

export function trustStatus(app: App): TrustStatus {
  const { directory, trusted, source, changed, ignored } = app.trust
  return { directory, trusted, source, changed, ignored }
}

export const trustRoutes = [
  route({
    method: "get",
    path: "/trust",
    operationId: "trust.get",
    summary: "Whether the project's own config applies in full, and what an untrusted folder's config was refused",
    tags: ["trust"],
    response: TrustStatus,
    handler: ({ app }) => trustStatus(app),
  }),
  route({
    method: "post",
    path: "/trust",
    operationId: "trust.grant",
    summary: "Trust the project's folder as its config is now (asked again when it changes); the project reloads",
    tags: ["trust"],
    response: TrustStatus,
    handler: async ({ app, server }) => {
      writeTrustRecord(app.paths.data, app.directory, app.trust.hash)
      if (!server.reloadApp) return trustStatus(app)
      await server.reloadApp(app.directory)
      return trustStatus(await server.getApp(app.directory))
    },
  }),
]
