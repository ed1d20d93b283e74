// The provider registry: which providers are usable, which model a `provider/model` string
// names, the default and small models, and the AI SDK language model for a choice.
import { BadRequestError, parseModelRef, ProviderAuthError, ProviderModelNotFoundError } from "../protocol"
import { maskKey, writeKey, type Credentials } from "./auth"
import { CATALOG } from "./catalog"
import { buildRecords, type ProviderRecord } from "./registry"
import { createFactory, type ModelFactory } from "./sdk"
import { suggest } from "./suggest"
import type { LLMConfigInput, ModelInfo, ModelRef, Providers, ProviderInfo } from "./types"

/**
 * OpenCode's default-model priority: earlier entries win, then ids with "latest". Within a tie
 * the pricier model (the flagship, not its -mini/-nano sibling) comes first, then id descending.
 */
const PRIORITY = ["gpt-5", "claude-sonnet-4", "big-pickle", "gemini-3-pro"]
/** Model families tried in order for the small model (titles and other side tasks). */
const SMALL_FAMILIES = ["gemini-flash", "gpt-nano", "claude-haiku"]

export interface CreateProvidersInput {
  config: LLMConfigInput
  env?: NodeJS.ProcessEnv
  fetch?: typeof fetch
  /** The user's stored keys (read now and on `refresh()`); without it no store is read. */
  credentials?: Credentials
}

export function createProviders(input: CreateProvidersInput): Providers {
  const { config, credentials } = input
  const env = input.env ?? process.env
  const baseFetch = input.fetch ?? globalThis.fetch
  // Read now, so that a key store that cannot be read fails at once.
  const build = () => buildRecords(config, env, credentials && { keys: credentials.load(), mayUse: credentials.mayUse })
  let records = build()
  const factories = new Map<string, Promise<ModelFactory>>()

  const blocked = (id: string): string | undefined => {
    if (config.disabled_providers?.includes(id)) return `it is listed in disabled_providers`
    if (config.enabled_providers && !config.enabled_providers.includes(id)) return `it is not listed in enabled_providers`
    return undefined
  }
  const active = () => [...records.values()].filter((r) => !blocked(r.info.id) && (r.configured || r.apiKey !== undefined))

  async function get(providerID: string, modelID: string) {
    const record = records.get(providerID)
    const why = blocked(providerID)
    if (!record || why) throw unknownProvider(providerID, modelID, why)
    const info = record.info.models[modelID]
    if (!info) throw unknownModel(record, modelID)
    if (record.apiKey === undefined && record.info.env.length > 0 && !record.customBaseURL) {
      throw new ProviderAuthError({
        providerID,
        message: `No API key for provider "${providerID}": run \`wright auth login ${providerID}\`, set ${record.info.env.join(" or ")} in the environment, or provider.${providerID}.options.apiKey in your config`,
      })
    }
    const factory = await factoryFor(record)
    return { info, language: factory(info.apiID) }
  }

  function factoryFor(record: ProviderRecord): Promise<ModelFactory> {
    let pending = factories.get(record.info.id)
    if (!pending) {
      pending = createFactory(record, baseFetch)
      pending.catch(() => factories.delete(record.info.id))
      factories.set(record.info.id, pending)
    }
    return pending
  }

  function unknownProvider(providerID: string, modelID: string, why: string | undefined) {
    const usable = active().map((r) => r.info.id)
    const suggestions = why ? [] : suggest(providerID, [...records.keys()])
    const configured = usable.length ? `Configured providers: ${usable.join(", ")}.` : `No provider is configured yet. ${HOW_TO_CONFIGURE}`
    const message = why
      ? `Provider "${providerID}" is not available: ${why}. ${configured}`
      : [
          `Unknown provider "${providerID}" in "${providerID}/${modelID}".`,
          suggestions.length ? `Did you mean: ${suggestions.join(", ")}?` : "",
          configured,
          `Any OpenAI-compatible endpoint can be added under provider.${providerID} in your config.`,
        ]
          .filter(Boolean)
          .join(" ")
    return new ProviderModelNotFoundError({ providerID, modelID, message, suggestions })
  }

  function unknownModel(record: ProviderRecord, modelID: string) {
    const providerID = record.info.id
    const ids = Object.keys(record.info.models)
    const suggestions = suggest(modelID, ids)
    const hint = suggestions.length ? ` Did you mean: ${suggestions.map((s) => `${providerID}/${s}`).join(", ")}?` : ""
    const shown = ids.length > 12 ? `${ids.slice(0, 12).join(", ")} and ${ids.length - 12} more` : ids.join(", ")
    const listed = ids.length ? ` Models of ${providerID}: ${shown}.` : ` Provider ${providerID} has no models.`
    return new ProviderModelNotFoundError({
      providerID,
      modelID,
      suggestions,
      message: `Model not found: ${providerID}/${modelID}.${hint}${listed} To use a model wright's catalog does not list, add it under provider.${providerID}.models in your config.`,
    })
  }

  function defaultModel(configModel?: string): ModelRef {
    const chosen = configModel ?? config.model
    if (chosen) return parseModelRef(chosen)
    const configured = Object.keys(config.provider ?? {})
    const candidates = active()
      .filter((r) => configured.length === 0 || configured.includes(r.info.id))
      .sort((a, b) => configured.indexOf(a.info.id) - configured.indexOf(b.info.id))
    for (const record of candidates) {
      const [best] = sortModels(Object.values(record.info.models))
      if (best) return { providerID: record.info.id, modelID: best.id }
    }
    if (candidates.length) {
      const id = candidates[0]!.info.id
      throw new BadRequestError({ message: `Provider "${id}" has no models: add one under provider.${id}.models in your config, or set "model"` })
    }
    throw new BadRequestError({ message: `No model is configured. ${HOW_TO_CONFIGURE}` })
  }

  function smallModel(providerID: string): ModelRef | undefined {
    if (config.small_model) {
      const ref = parseModelRef(config.small_model, "small_model")
      const known = !blocked(ref.providerID) && records.get(ref.providerID)?.info.models[ref.modelID]
      return known ? ref : undefined
    }
    const record = records.get(providerID)
    if (!record) return undefined
    const newestFirst = Object.values(record.info.models).sort(
      (a, b) => (b.releaseDate ?? "").localeCompare(a.releaseDate ?? "") || descending(a.id, b.id),
    )
    const families = providerID.startsWith("opencode") ? ["gpt-nano"] : SMALL_FAMILIES
    for (const family of families) {
      const hit = newestFirst.find((m) => m.family === family)
      if (hit) return { providerID, modelID: hit.id }
    }
    return undefined
  }

  function refresh() {
    records = build()
    // The next get() builds each SDK with the key it has now; a step already running keeps its own.
    factories.clear()
  }

  return {
    list: (): ProviderInfo[] => active().map((r) => r.info),
    all: (): ProviderInfo[] => [...records.values()].map((r) => r.info),
    get,
    parseModel: (s: string) => parseModelRef(s),
    defaultModel,
    smallModel,
    refresh: () => credentials && refresh(),
    saveKey(providerID, key) {
      if (!credentials) throw new Error("This core has no key store")
      const had = writeKey(credentials.file, providerID, key)
      refresh()
      return had
    },
    keys: () =>
      [...records.values()]
        .filter((r) => r.keySources.length > 0)
        .map((r) => ({ providerID: r.info.id, name: r.info.name, sources: r.keySources, masked: maskKey(r.apiKey!) })),
  }
}

const HOW_TO_CONFIGURE = `Set an API key in the environment (${CATALOG.flatMap((p) => p.env.slice(0, 1)).join(", ")}), or add a provider under "provider" in your config (opencode.json form: {"provider": {"local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://localhost:11434/v1"}, "models": {"qwen3": {}}}}}), then choose a model with "model": "provider/model".`

export function sortModels(models: ModelInfo[]): ModelInfo[] {
  const rank = (id: string) => {
    const i = PRIORITY.findIndex((p) => id.includes(p))
    return i === -1 ? PRIORITY.length : i
  }
  return [...models].sort(
    (a, b) =>
      rank(a.id) - rank(b.id) ||
      Number(!a.id.includes("latest")) - Number(!b.id.includes("latest")) ||
      b.cost.output - a.cost.output ||
      descending(a.id, b.id),
  )
}

function descending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0
}
