// Merges the bundled catalog with config `provider`, the stored keys and the environment into
// one record per provider: its public info, plus what only the SDK factory may see (the key,
// the base URL). A key is taken from config `options.apiKey`, else the user's store (wright's
// auth.json, then OpenCode's), else the provider's env variables: OpenCode's order, so a key
// stored with `auth login` beats a stale variable and a config key beats both.
import type { StoredKey } from "./auth"
import type { Catalog, CatalogModel, CatalogProvider } from "./catalog"
import { defaultBaseURL } from "./endpoints"
import { builtinVariants, withConfigVariants } from "./variants"
import type { ConfigCost, KeySource, LLMConfigInput, ModelConfigInput, ModelCost, ModelInfo, ProviderConfigInput, ProviderInfo } from "./types"

export const COMPATIBLE_NPM = "@ai-sdk/openai-compatible"

/** The catalogue's openai models a ChatGPT sign-in reaches: those Codex CLI offers on its backend. */
const CHATGPT_MODELS = /^(gpt-5(\.\d+)?(-codex(-mini)?)?|codex-mini-latest)$/

/** What an unknown model gets before its config overrides it. */
const DEFAULT_LIMIT = { context: 128_000, output: 8_192 }

/** The stored keys one App may hand out (see auth.ts `Credentials`). */
export interface StoredKeys {
  keys: ReadonlyMap<string, StoredKey>
  /** For a provider the catalogue does not know: may it take the key stored under its id? */
  mayUse(providerID: string): boolean
}

export interface ProviderRecord {
  info: ProviderInfo
  /** The key of `keySources[0]`. */
  apiKey?: string
  /** Every source that has a key for the provider, the one used first. */
  keySources: KeySource[]
  baseURL?: string
  /** Config set its own base URL: a local or proxy endpoint that may need no key. */
  customBaseURL: boolean
  configured: boolean
  /** Options for the SDK factory and fetch wrapper (apiKey removed). */
  options: Record<string, unknown>
}

/** One record per catalogue provider (in the catalogue's order), then each provider only config names. */
export function buildRecords(config: LLMConfigInput, env: NodeJS.ProcessEnv, stored: StoredKeys | undefined, catalog: Catalog): Map<string, ProviderRecord> {
  const records = new Map<string, ProviderRecord>()
  const configured = config.provider ?? {}
  for (const [id, entry] of Object.entries(catalog)) records.set(id, makeRecord(id, entry, configured[id], env, stored))
  for (const [id, cfg] of Object.entries(configured)) {
    if (!records.has(id)) records.set(id, makeRecord(id, undefined, cfg, env, stored))
  }
  return records
}

function makeRecord(id: string, base: CatalogProvider | undefined, cfg: ProviderConfigInput | undefined, env: NodeJS.ProcessEnv, stored: StoredKeys | undefined): ProviderRecord {
  const npm = cfg?.npm ?? base?.npm ?? COMPATIBLE_NPM
  const envNames = cfg?.env ?? base?.env ?? []
  const { apiKey: configKey, ...options } = cfg?.options ?? {}
  const keys = keysFor(id, base !== undefined, configKey, stored, envNames, env)
  const ownURL = options.baseURL ?? cfg?.api
  // Always explicit, so that no SDK falls back to reading process.env for its endpoint.
  const baseURL = ownURL ?? base?.api ?? defaultBaseURL(npm)
  if (baseURL !== undefined) options.baseURL = baseURL

  const provider = { providerID: id, npm }
  // Signed in to ChatGPT: the plan pays, and its Codex backend serves the GPT-5 family only.
  const chatgpt = id === "openai" && keys[0]?.source.kind === "oauth"
  // Built when first read: a run that uses one provider never builds the other catalogue
  // providers' hundreds of model entries.
  let models: Record<string, ModelInfo> | undefined
  const buildModels = () => {
    const out: Record<string, ModelInfo> = {}
    for (const [key, m] of Object.entries(base?.models ?? {})) {
      // models.dev's alpha models are hidden, as in OpenCode; config can still name them.
      if (m.status === "alpha" || (chatgpt && !CHATGPT_MODELS.test(key))) continue
      out[key] = fromCatalog(provider, key, m)
      if (chatgpt) out[key].cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
    }
    for (const [key, mc] of Object.entries(cfg?.models ?? {})) {
      const known = out[key] ?? (mc.id ? out[mc.id] : undefined)
      out[key] = applyConfig(provider, key, known, mc)
    }
    for (const key of Object.keys(out)) {
      if (cfg?.whitelist && !cfg.whitelist.includes(key)) delete out[key]
      else if (cfg?.blacklist?.includes(key)) delete out[key]
    }
    if (options.setCacheKey === true) for (const m of Object.values(out)) m.setCacheKey = true
    return out
  }

  const used = keys[0]?.source.kind
  const source = cfg ? "config" : used === "env" ? "env" : used ? "api" : "catalog"
  return {
    info: {
      id,
      name: cfg?.name ?? base?.name ?? id,
      npm,
      env: envNames,
      source,
      options: publicOptions(options),
      get models() {
        return (models ??= buildModels())
      },
    },
    apiKey: keys[0]?.key,
    keySources: keys.map((k) => k.source),
    baseURL,
    customBaseURL: ownURL !== undefined && ownURL !== base?.api,
    configured: cfg !== undefined,
    options,
  }
}

/** Each source with a key for the provider, in the order they win. */
function keysFor(id: string, known: boolean, configKey: unknown, stored: StoredKeys | undefined, envNames: string[], env: NodeJS.ProcessEnv) {
  const out: { source: KeySource; key: string }[] = []
  if (typeof configKey === "string" && configKey !== "") out.push({ source: { kind: "config" }, key: configKey })
  const kept = stored && (known || stored.mayUse(id)) ? stored.keys.get(id) : undefined
  if (kept) {
    const source: KeySource = kept.source === "oauth" ? { kind: "oauth", file: kept.file, expires: kept.expires ?? 0 } : { kind: kept.source, file: kept.file }
    out.push({ source, key: kept.key })
  }
  for (const name of envNames) {
    const value = env[name]
    if (typeof value === "string" && value !== "") out.push({ source: { kind: "env", name }, key: value })
  }
  return out
}

/** A models.dev entry as wright's ModelInfo; what the entry leaves out gets models.dev's usual value. */
function fromCatalog(p: { providerID: string; npm: string }, key: string, m: CatalogModel): ModelInfo {
  const rate = (c: { input: number; output: number; cache_read?: number; cache_write?: number }) => ({
    input: c.input,
    output: c.output,
    cacheRead: c.cache_read ?? 0,
    cacheWrite: c.cache_write ?? 0,
  })
  const cost = m.cost ?? { input: 0, output: 0 }
  const apiID = m.id || key
  return {
    providerID: p.providerID,
    id: key,
    apiID,
    name: m.name,
    npm: p.npm,
    family: m.family || undefined,
    releaseDate: m.release_date || undefined,
    ...(m.status === "beta" || m.status === "deprecated" ? { status: m.status } : {}),
    limit: { ...m.limit },
    cost: m.cost?.context_over_200k ? { ...rate(cost), over200k: rate(m.cost.context_over_200k) } : rate(cost),
    capabilities: {
      toolCall: m.tool_call ?? true,
      reasoning: m.reasoning ?? false,
      attachment: m.attachment ?? false,
      temperature: m.temperature ?? true,
    },
    options: {},
    headers: {},
    variants: builtinVariants({ id: key, apiID, npm: p.npm, releaseDate: m.release_date || undefined, reasoning: m.reasoning ?? false }),
  }
}

/** A model in OpenCode's v2 Model shape (a plugin's `provider.models`) as wright's ModelInfo. */
export function pluginModel(p: { providerID: string; npm: string }, key: string, raw: unknown): ModelInfo {
  const m = (raw && typeof raw === "object" ? raw : {}) as Record<string, any>
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined)
  const bool = (v: unknown) => (typeof v === "boolean" ? v : undefined)
  const str = (v: unknown) => (typeof v === "string" && v ? v : undefined)
  const context = num(m.limit?.context)
  const output = num(m.limit?.output)
  return applyConfig(p, key, undefined, {
    id: str(m.api?.id) ?? str(m.id),
    name: str(m.name),
    family: str(m.family),
    release_date: str(m.release_date),
    ...(context !== undefined && output !== undefined ? { limit: { context, output, ...(num(m.limit?.input) !== undefined ? { input: num(m.limit.input) } : {}) } } : {}),
    ...(m.cost && num(m.cost.input) !== undefined && num(m.cost.output) !== undefined
      ? { cost: { input: num(m.cost.input)!, output: num(m.cost.output)!, cache_read: num(m.cost.cache?.read), cache_write: num(m.cost.cache?.write) } }
      : {}),
    tool_call: bool(m.capabilities?.toolcall),
    reasoning: bool(m.capabilities?.reasoning),
    attachment: bool(m.capabilities?.attachment),
    temperature: bool(m.capabilities?.temperature),
    ...(m.options && typeof m.options === "object" ? { options: m.options } : {}),
    ...(m.headers && typeof m.headers === "object" ? { headers: m.headers } : {}),
  } as ModelConfigInput)
}

function applyConfig(p: { providerID: string; npm: string }, key: string, known: ModelInfo | undefined, mc: ModelConfigInput): ModelInfo {
  const limit: ModelInfo["limit"] = known?.limit ?? DEFAULT_LIMIT
  const cost: ModelInfo["cost"] = known?.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  const caps = known?.capabilities ?? { toolCall: true, reasoning: false, attachment: false, temperature: true }
  const apiID = mc.id ?? known?.apiID ?? key
  const releaseDate = mc.release_date ?? known?.releaseDate
  const reasoning = mc.reasoning ?? caps.reasoning
  return {
    providerID: p.providerID,
    id: key,
    apiID,
    name: mc.name ?? known?.name ?? key,
    npm: p.npm,
    family: mc.family ?? known?.family,
    releaseDate,
    limit: withInput({ context: mc.limit?.context ?? limit.context, output: mc.limit?.output ?? limit.output }, mc.limit?.input ?? limit.input),
    cost: withOver200k(
      {
        input: mc.cost?.input ?? cost.input,
        output: mc.cost?.output ?? cost.output,
        cacheRead: mc.cost?.cache_read ?? cost.cacheRead,
        cacheWrite: mc.cost?.cache_write ?? cost.cacheWrite,
      },
      mc.cost?.context_over_200k,
      cost.over200k,
    ),
    capabilities: {
      toolCall: mc.tool_call ?? caps.toolCall,
      reasoning,
      attachment: mc.attachment ?? caps.attachment,
      temperature: mc.temperature ?? caps.temperature,
    },
    options: { ...known?.options, ...mc.options },
    headers: { ...known?.headers, ...mc.headers },
    variants: withConfigVariants(builtinVariants({ id: key, apiID, npm: p.npm, releaseDate, reasoning }), mc.variants),
  }
}

function withOver200k(base: ModelCost, given: ConfigCost | undefined, known: ModelCost | undefined): ModelInfo["cost"] {
  if (!given) return known ? { ...base, over200k: known } : base
  const from = known ?? base
  const over200k = {
    input: given.input ?? from.input,
    output: given.output ?? from.output,
    cacheRead: given.cache_read ?? from.cacheRead,
    cacheWrite: given.cache_write ?? from.cacheWrite,
  }
  return { ...base, over200k }
}

function withInput(limit: ModelInfo["limit"], input: number | undefined): ModelInfo["limit"] {
  return input === undefined ? limit : { ...limit, input }
}

/** Info may be served over HTTP: keys and headers (which may hold tokens) stay private. */
/** Options as clients may see them: no credentials (the key, headers that carry one). */
function publicOptions(options: Record<string, unknown>): Record<string, unknown> {
  const { headers: _headers, apiKey: _apiKey, ...rest } = options
  return rest
}
