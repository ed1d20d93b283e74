// The provider registry: which providers are usable, which model a `provider/model` string
// names, the default and small models, and the AI SDK language model for a choice.
import { BadRequestError, NO_MODEL_ISSUE, parseModelRef, ProviderAuthError, ProviderModelNotFoundError } from "../protocol"
import { maskKey, writeEntry, writeKey, type Credentials } from "./auth"
import { startLogin } from "./login/start"
import { loadCatalog, type Catalog } from "./catalog"
import { loginOptions } from "./login/options"
import { buildRecords, pluginModel, type ProviderRecord } from "./registry"
import { createFactory, type ModelFactory } from "./sdk"
import { suggest } from "./suggest"
import type { LLMConfigInput, ModelInfo, ModelRef, Providers, ProviderInfo } from "./types"

/**
 * OpenCode's default-model priority: earlier entries win, then ids with "latest". Within a tie
 * the pricier model (the flagship, not its -mini/-nano sibling) comes first, then (in a priority
 * family) the shorter id, then id descending. Deprecated models come last.
 */
const PRIORITY = ["gpt-5", "claude-sonnet-4", "big-pickle", "gemini-3-pro"]
/** Model families tried in order for the small model (titles and other side tasks). */
const SMALL_FAMILIES = ["gemini-flash", "gpt-nano", "claude-haiku"]
/** Providers reached only through a subscription sign-in (no API key exists for them). */
const LOGIN_ONLY = new Set(["github-copilot"])

export interface CreateProvidersInput {
  config: LLMConfigInput
  env?: NodeJS.ProcessEnv
  fetch?: typeof fetch
  /** The user's stored keys (read now and on `refresh()`); without it no store is read. */
  credentials?: Credentials
  /** The catalogue, asked for on the first provider or model lookup; the bundled snapshot by default. */
  catalog?: () => Catalog
  /**
   * Contract: called once per provider before its SDK is built (plugins' `auth.loader`);
   * resolves options that override the provider's (`apiKey`, `baseURL`, `headers`, `fetch`, …).
   * Must not reject. Undefined, or no answer: the provider as configured.
   */
  authOptions?(providerID: string, info: ProviderInfo): Promise<Record<string, unknown> | undefined>
}

export function createProviders(input: CreateProvidersInput): Providers {
  const { config, credentials } = input
  const env = input.env ?? process.env
  const baseFetch = input.fetch ?? globalThis.fetch
  const catalog = input.catalog ?? (() => loadCatalog().providers)
  const storedKeys = () => credentials && { keys: credentials.load(), mayUse: credentials.mayUse }
  // Read now, so that a key store that cannot be read fails at once, as before.
  let stored = storedKeys()
  let records: Map<string, ProviderRecord> | undefined
  /** Every provider's record, built on the first lookup: only then is the catalogue read. */
  const recs = () => (records ??= withPluginModels(buildRecords(config, env, stored, catalog())))
  // Plugins' model lists (provider.models), applied over every rebuild of the records.
  const pluginModels = new Map<string, Record<string, unknown>>()
  const withPluginModels = (map: Map<string, ProviderRecord>) => {
    for (const [id, models] of pluginModels) {
      const r = map.get(id)
      if (!r) continue
      const p = { providerID: id, npm: r.info.npm }
      const built = Object.fromEntries(Object.entries(models).map(([key, m]) => [key, pluginModel(p, key, m)]))
      Object.defineProperty(r.info, "models", { value: built, enumerable: true, configurable: true })
    }
    return map
  }
  const factories = new Map<string, Promise<{ apiKey?: string; factory: Promise<ModelFactory> }>>()

  const blocked = (id: string): string | undefined => {
    if (config.disabled_providers?.includes(id)) return `it is listed in disabled_providers`
    if (config.enabled_providers && !config.enabled_providers.includes(id)) return `it is not listed in enabled_providers`
    return undefined
  }
  const active = () => [...recs().values()].filter((r) => !blocked(r.info.id) && (r.configured || r.apiKey !== undefined))

  async function get(providerID: string, modelID: string) {
    const record = recs().get(providerID)
    const why = blocked(providerID)
    if (!record || why) throw unknownProvider(providerID, modelID, why)
    const info = record.info.models[modelID]
    if (!info) throw unknownModel(record, modelID)
    const built = await factoryFor(record)
    if (built.apiKey === undefined && LOGIN_ONLY.has(providerID) && !record.customBaseURL) {
      throw new ProviderAuthError({ providerID, message: `Provider "${providerID}" needs a sign-in: run \`wright auth login ${providerID}\` (or /connect in the TUI)` })
    }
    if (built.apiKey === undefined && record.info.env.length > 0 && !record.customBaseURL) {
      throw new ProviderAuthError({
        providerID,
        message: `No API key for provider "${providerID}": run \`wright auth login ${providerID}\`, set ${record.info.env.join(" or ")} in the environment, or provider.${providerID}.options.apiKey in your config`,
      })
    }
    return { info, language: (await built.factory)(info.apiID) }
  }

  /** The provider's record with what an auth plugin supplies, and (unless it still has no key) its SDK. */
  function factoryFor(record: ProviderRecord): Promise<{ apiKey?: string; factory: Promise<ModelFactory> }> {
    let pending = factories.get(record.info.id)
    if (!pending) {
      pending = (async () => {
        // A subscription login signs the requests itself; an auth plugin's options still come over it.
        const login = record.keySources[0]?.kind === "oauth" && credentials ? loginOptions(record.info.id, { file: credentials.file, env, fetch: baseFetch }) : undefined
        const plugin = await input.authOptions?.(record.info.id, record.info)
        const extra = login || plugin ? { ...login, ...plugin } : undefined
        const r = extra ? withAuthOptions(record, extra) : record
        const factory = createFactory(r, typeof extra?.fetch === "function" ? (extra.fetch as typeof fetch) : baseFetch, env).then(oncePerModel)
        // A provider whose SDK could not be built is built again on the next lookup.
        factory.catch(() => factories.delete(record.info.id))
        return { apiKey: r.apiKey, factory }
      })()
      pending.catch(() => factories.delete(record.info.id))
      factories.set(record.info.id, pending)
    }
    return pending
  }

  function unknownProvider(providerID: string, modelID: string, why: string | undefined) {
    const usable = active().map((r) => r.info.id)
    const suggestions = why ? [] : suggest(providerID, [...recs().keys()])
    const configured = usable.length ? `Configured providers: ${usable.join(", ")}.` : `No provider is configured yet. ${howToConfigure(catalog())}`
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
    // Newest first, so that the list shows what the provider serves now.
    const current = newestFirst(Object.values(record.info.models).filter((m) => m.status !== "deprecated"))
    const ids = current.map((m) => m.id)
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
    // The issue on "model" lets a front end say how to get one its own way (run: wright auth login; the TUI: /connect).
    throw new BadRequestError({ message: `No model is configured. ${howToConfigure(catalog())}`, issues: [{ path: "model", message: NO_MODEL_ISSUE }] })
  }

  function smallModel(providerID: string): ModelRef | undefined {
    if (config.small_model) {
      const ref = parseModelRef(config.small_model, "small_model")
      const known = !blocked(ref.providerID) && recs().get(ref.providerID)?.info.models[ref.modelID]
      return known ? ref : undefined
    }
    const record = recs().get(providerID)
    if (!record) return undefined
    const models = newestFirst(Object.values(record.info.models).filter((m) => m.status !== "deprecated"))
    const families = providerID.startsWith("opencode") ? ["gpt-nano"] : SMALL_FAMILIES
    for (const family of families) {
      const hit = models.find((m) => m.family === family)
      if (hit) return { providerID, modelID: hit.id }
    }
    return undefined
  }

  function refresh() {
    stored = storedKeys()
    records = undefined
    // The next get() builds each SDK with the key it has now; a step already running keeps its own.
    factories.clear()
  }

  return {
    list: (): ProviderInfo[] => active().map((r) => r.info),
    all: (): ProviderInfo[] => [...recs().values()].map((r) => r.info),
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
    async startLogin(providerID) {
      if (!credentials) throw new Error("This core has no key store")
      const { entry, ...shown } = await startLogin(providerID, { env, fetch: baseFetch })
      const done = entry.then((e) => {
        writeEntry(credentials.file, providerID, e)
        refresh()
      })
      return { ...shown, done }
    },
    setModels(providerID, models) {
      pluginModels.set(providerID, models)
      records = undefined
    },
    keys: () =>
      [...recs().values()]
        .filter((r) => r.keySources.length > 0)
        .map((r) => ({ providerID: r.info.id, name: r.info.name, sources: r.keySources, masked: maskKey(r.apiKey!) })),
  }
}

/** A record with an auth plugin's options over its own: a key, an endpoint, headers, SDK options. */
function withAuthOptions(record: ProviderRecord, extra: Record<string, unknown>): ProviderRecord {
  const { apiKey, baseURL, headers, fetch: _fetch, ...rest } = extra
  return {
    ...record,
    apiKey: typeof apiKey === "string" && apiKey !== "" ? apiKey : record.apiKey,
    baseURL: typeof baseURL === "string" ? baseURL : record.baseURL,
    options: { ...record.options, ...rest, headers: { ...(record.options.headers as Record<string, string> | undefined), ...(headers as Record<string, string> | undefined) } },
  }
}

/** The first few catalogue providers' key variables are named; `wright models` lists them all. */
const howToConfigure = (catalog: Catalog) =>
  `Set an API key in the environment (${Object.values(catalog).slice(0, 8).flatMap((p) => p.env.slice(0, 1)).join(", ")}, …), or add a provider under "provider" in your config (opencode.json form: {"provider": {"local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://localhost:11434/v1"}, "models": {"qwen3": {}}}}}), then choose a model with "model": "provider/model".`

export function sortModels(models: ModelInfo[]): ModelInfo[] {
  const rank = (id: string) => {
    const i = PRIORITY.findIndex((p) => id.includes(p))
    return i === -1 ? PRIORITY.length : i
  }
  return [...models].sort(
    (a, b) =>
      Number(a.status === "deprecated") - Number(b.status === "deprecated") ||
      rank(a.id) - rank(b.id) ||
      Number(!a.id.includes("latest")) - Number(!b.id.includes("latest")) ||
      b.cost.output - a.cost.output ||
      // Within a priority family the plainest id ("gpt-5", not "gpt-5-chat").
      (rank(a.id) < PRIORITY.length ? a.id.length - b.id.length : 0) ||
      descending(a.id, b.id),
  )
}

function newestFirst(models: ModelInfo[]): ModelInfo[] {
  return models.sort((a, b) => (b.releaseDate ?? "").localeCompare(a.releaseDate ?? "") || descending(a.id, b.id))
}

function descending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0
}

/**
 * One language model per model id for the SDK's lifetime: the models keep no state between
 * calls, and building one (the chat dialect compiles its chunk schemas) cost 1.5-5 ms a step.
 */
function oncePerModel(factory: ModelFactory): ModelFactory {
  const built = new Map<string, ReturnType<ModelFactory>>()
  return (apiID) => {
    let model = built.get(apiID)
    if (!model) built.set(apiID, (model = factory(apiID)))
    return model
  }
}
