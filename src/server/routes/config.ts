import { z } from "zod"
import { Config, mergeConfig, redactConfig, writeTrustRecord } from "../../config"
import { ConfigProviders, ProviderList } from "../../protocol"
import { writeProjectConfig } from "../config-file"
import { defaults, providerList, toProvider } from "../providers"
import { route } from "../route"

/** The model a prompt that names none goes to; nothing when no provider can give one. */
function mainModel(app: { providers: { defaultModel(configModel?: string): { providerID: string; modelID: string } }; config: { model?: string } }): { model?: string } {
  try {
    const m = app.providers.defaultModel(app.config.model)
    return { model: `${m.providerID}/${m.modelID}` }
  } catch {
    return {}
  }
}

export const configRoutes = [
  route({
    method: "get",
    path: "/config",
    operationId: "config.get",
    summary: "The project's merged config, without credentials (keys, auth headers, values from {env:} and {file:})",
    tags: ["config"],
    response: Config,
    handler: ({ app }) => redactConfig(app.config, app.secrets),
  }),
  route({
    method: "patch",
    path: "/config",
    operationId: "config.update",
    summary: "Merge keys into the project's config file (wright.json, or the opencode.json it already has)",
    tags: ["config"],
    body: Config,
    response: Config,
    handler: async ({ app, body, server }) => {
      writeProjectConfig(app.directory, body)
      if (!server.reloadApp) return redactConfig(mergeConfig(app.config, body), app.secrets)
      await server.reloadApp(app.directory)
      let next = await server.getApp(app.directory)
      // The user's own change through the API keeps a folder they trusted trusted.
      if (app.trust.trusted && app.trust.source === "record" && !next.trust.trusted) {
        writeTrustRecord(next.paths.data, next.directory, next.trust.hash)
        await server.reloadApp(app.directory)
        next = await server.getApp(app.directory)
      }
      return redactConfig(next.config, next.secrets)
    },
  }),
  route({
    method: "get",
    path: "/config/warnings",
    operationId: "config.warnings",
    summary: "What the project's config sets that wright ignores (unknown keys, keys it accepts but does not act on yet), one line each naming the file",
    tags: ["config"],
    response: z.array(z.string()),
    handler: ({ app }) => app.configWarnings,
  }),
  route({
    method: "get",
    path: "/config/providers",
    operationId: "config.providers",
    summary: "Usable providers with their models, and each provider's default model",
    tags: ["config"],
    response: ConfigProviders,
    handler: ({ app }) => {
      const active = app.providers.list()
      return { providers: active.map(toProvider), default: defaults(active), ...mainModel(app) }
    },
  }),
  route({
    method: "get",
    path: "/provider",
    operationId: "provider.list",
    summary: "Every known provider, each usable one's default model, and which are connected",
    tags: ["provider"],
    response: ProviderList,
    handler: ({ app }) => providerList(app.providers),
  }),
]
