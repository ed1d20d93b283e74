// Provider and model info in OpenCode's shapes (`GET /config/providers`, `GET /provider`),
// which the official SDK's clients read to fill their model pickers.
import { sortModels, type ModelInfo, type ProviderInfo, type Providers } from "../llm"
import type { Provider, ProviderModel } from "../protocol"

const SECRET_OPTIONS = new Set(["apiKey", "headers"])

function publicOptions(options: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(options).filter(([k]) => !SECRET_OPTIONS.has(k)))
}

function toModel(m: ModelInfo, provider: ProviderInfo): ProviderModel {
  const rates = (c: ModelInfo["cost"] | NonNullable<ModelInfo["cost"]["over200k"]>) => ({
    input: c.input,
    output: c.output,
    cache: { read: c.cacheRead, write: c.cacheWrite },
  })
  const media = m.capabilities.attachment
  return {
    id: m.id,
    providerID: m.providerID,
    api: { id: m.apiID, url: typeof provider.options.baseURL === "string" ? provider.options.baseURL : "", npm: m.npm },
    name: m.name,
    ...(m.family ? { family: m.family } : {}),
    capabilities: {
      temperature: m.capabilities.temperature,
      reasoning: m.capabilities.reasoning,
      attachment: m.capabilities.attachment,
      toolcall: m.capabilities.toolCall,
      input: { text: true, audio: false, image: media, video: false, pdf: media },
      output: { text: true, audio: false, image: false, video: false, pdf: false },
      interleaved: false,
    },
    cost: { ...rates(m.cost), ...(m.cost.over200k ? { experimentalOver200K: rates(m.cost.over200k) } : {}) },
    limit: m.limit,
    status: "active",
    options: m.options,
    // Model headers may carry credentials: they stay on the server.
    headers: {},
    release_date: m.releaseDate ?? "",
    variants: m.variants,
  }
}

export function toProvider(p: ProviderInfo): Provider {
  return {
    id: p.id,
    name: p.name,
    source: p.source === "catalog" ? "api" : p.source,
    env: p.env,
    options: publicOptions(p.options),
    models: Object.fromEntries(Object.entries(p.models).map(([id, m]) => [id, toModel(m, p)])),
  }
}

/** Each provider's best model, the one a client preselects. */
export function defaults(list: ProviderInfo[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const p of list) {
    const [best] = sortModels(Object.values(p.models))
    if (best) out[p.id] = best.id
  }
  return out
}

export function providerList(providers: Providers) {
  const active = providers.list()
  return { all: providers.all().map(toProvider), default: defaults(active), connected: active.map((p) => p.id) }
}
