// Merges the bundled catalog with config `provider` and the environment into one record per
// provider: its public info, plus what only the SDK factory may see (the key, the base URL).
import { CATALOG, type CatalogModel, type CatalogProvider } from "./catalog"
import type { ConfigCost, LLMConfigInput, ModelConfigInput, ModelCost, ModelInfo, ProviderConfigInput, ProviderInfo } from "./types"

export const COMPATIBLE_NPM = "@ai-sdk/openai-compatible"

/** What an unknown model gets before its config overrides it. */
const DEFAULT_LIMIT = { context: 128_000, output: 8_192 }

export interface ProviderRecord {
  info: ProviderInfo
  /** From config `options.apiKey` or the first set env variable. */
  apiKey?: string
  baseURL?: string
  /** Config set its own base URL: a local or proxy endpoint that may need no key. */
  customBaseURL: boolean
  configured: boolean
  /** Options for the SDK factory and fetch wrapper (apiKey removed). */
  options: Record<string, unknown>
}

export function buildRecords(config: LLMConfigInput, env: NodeJS.ProcessEnv): Map<string, ProviderRecord> {
  const records = new Map<string, ProviderRecord>()
  const configured = config.provider ?? {}
  for (const entry of CATALOG) records.set(entry.id, makeRecord(entry.id, entry, configured[entry.id], env))
  for (const [id, cfg] of Object.entries(configured)) {
    if (!records.has(id)) records.set(id, makeRecord(id, undefined, cfg, env))
  }
  return records
}

function makeRecord(id: string, base: CatalogProvider | undefined, cfg: ProviderConfigInput | undefined, env: NodeJS.ProcessEnv): ProviderRecord {
  const npm = cfg?.npm ?? base?.npm ?? COMPATIBLE_NPM
  const envNames = cfg?.env ?? base?.env ?? []
  const { apiKey: configKey, ...options } = cfg?.options ?? {}
  const envKey = envNames.map((name) => env[name]).find((v) => typeof v === "string" && v !== "")
  const ownURL = options.baseURL ?? cfg?.api
  const baseURL = ownURL ?? base?.api
  if (baseURL !== undefined) options.baseURL = baseURL

  const models: Record<string, ModelInfo> = {}
  const provider = { providerID: id, npm }
  for (const m of base?.models ?? []) {
    for (const key of [m.id, ...(m.aliases ?? [])]) models[key] = fromCatalog(provider, key, m)
  }
  for (const [key, mc] of Object.entries(cfg?.models ?? {})) {
    const known = models[key] ?? (mc.id ? models[mc.id] : undefined)
    models[key] = applyConfig(provider, key, known, mc)
  }
  for (const key of Object.keys(models)) {
    if (cfg?.whitelist && !cfg.whitelist.includes(key)) delete models[key]
    else if (cfg?.blacklist?.includes(key)) delete models[key]
  }

  const source = cfg ? "config" : envKey ? "env" : "catalog"
  return {
    info: { id, name: cfg?.name ?? base?.name ?? id, npm, env: envNames, source, options: publicOptions(options), models },
    apiKey: typeof configKey === "string" && configKey !== "" ? configKey : envKey,
    baseURL,
    customBaseURL: ownURL !== undefined && ownURL !== base?.api,
    configured: cfg !== undefined,
    options,
  }
}

function fromCatalog(p: { providerID: string; npm: string }, key: string, m: CatalogModel): ModelInfo {
  const rate = (c: CatalogModel["cost"]) => ({ input: c.input, output: c.output, cacheRead: c.cacheRead ?? 0, cacheWrite: c.cacheWrite ?? 0 })
  return {
    providerID: p.providerID,
    id: key,
    apiID: key,
    name: m.name,
    npm: p.npm,
    family: m.family,
    releaseDate: m.release,
    limit: { ...m.limit },
    cost: m.over200k ? { ...rate(m.cost), over200k: rate(m.over200k) } : rate(m.cost),
    capabilities: {
      toolCall: m.toolCall ?? true,
      reasoning: m.reasoning ?? false,
      attachment: m.attachment ?? false,
      temperature: m.temperature ?? true,
    },
    options: {},
    headers: {},
  }
}

function applyConfig(p: { providerID: string; npm: string }, key: string, known: ModelInfo | undefined, mc: ModelConfigInput): ModelInfo {
  const limit: ModelInfo["limit"] = known?.limit ?? DEFAULT_LIMIT
  const cost: ModelInfo["cost"] = known?.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  const caps = known?.capabilities ?? { toolCall: true, reasoning: false, attachment: false, temperature: true }
  return {
    providerID: p.providerID,
    id: key,
    apiID: mc.id ?? known?.apiID ?? key,
    name: mc.name ?? known?.name ?? key,
    npm: p.npm,
    family: mc.family ?? known?.family,
    releaseDate: mc.release_date ?? known?.releaseDate,
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
      reasoning: mc.reasoning ?? caps.reasoning,
      attachment: mc.attachment ?? caps.attachment,
      temperature: mc.temperature ?? caps.temperature,
    },
    options: { ...known?.options, ...mc.options },
    headers: { ...known?.headers, ...mc.headers },
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
