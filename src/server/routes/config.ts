import { Config, mergeConfig } from "../../config"
import { ConfigProviders, ProviderList } from "../../protocol"
import { writeProjectConfig } from "../config-file"
import { defaults, providerList, toProvider } from "../providers"
import { route } from "../route"

export const configRoutes = [
  route({
    method: "get",
    path: "/config",
    operationId: "config.get",
    summary: "The project's merged config",
    tags: ["config"],
    response: Config,
    handler: ({ app }) => app.config,
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
      if (!server.reloadApp) return mergeConfig(app.config, body)
      await server.reloadApp(app.directory)
      return (await server.getApp(app.directory)).config
    },
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
      return { providers: active.map(toProvider), default: defaults(active) }
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
