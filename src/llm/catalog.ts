// The model catalogue in models.dev's format (its `api.json`): provider id → {id, name, env,
// api?, npm?, doc?, models: model id → {limit, cost, capabilities, …}}. A snapshot is bundled
// (src/llm/snapshot/, where its source and date are written down); `wright models --refresh`
// caches a newer one under the XDG cache dir, and a valid cache wins over the snapshot.
// Nothing is read until a provider or model lookup asks: `wright --version`, `--help` and the
// commands that never resolve a model leave the file unread.
import { existsSync, readFileSync, statSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { z } from "zod"

const Rates = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
})

const Modality = z.array(z.string())

const CatalogModelSchema = z.object({
  id: z.string(),
  name: z.string(),
  family: z.string().optional(),
  release_date: z.string().optional(),
  attachment: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  temperature: z.boolean().optional(),
  tool_call: z.boolean().optional(),
  interleaved: z.union([z.literal(true), z.object({ field: z.string() })]).optional(),
  cost: Rates.extend({ context_over_200k: Rates.optional() }).optional(),
  limit: z.object({ context: z.number().nonnegative(), input: z.number().nonnegative().optional(), output: z.number().nonnegative() }),
  modalities: z.object({ input: Modality, output: Modality }).optional(),
  status: z.string().optional(),
  /** A model served through another package or endpoint than its provider's. */
  provider: z.object({ npm: z.string().optional(), api: z.string().optional() }).optional(),
})

const CatalogProviderSchema = z.object({
  id: z.string(),
  name: z.string(),
  env: z.array(z.string()),
  api: z.string().optional(),
  npm: z.string().optional(),
  doc: z.string().optional(),
  models: z.record(z.string(), CatalogModelSchema),
})

/** What a catalogue must look like; unknown fields are dropped, so a cached copy keeps only what wright reads. */
export const CatalogSchema = z.record(z.string(), CatalogProviderSchema)

export type CatalogModel = z.infer<typeof CatalogModelSchema>
export type CatalogProvider = z.infer<typeof CatalogProviderSchema>
export type Catalog = z.infer<typeof CatalogSchema>

/** models.dev's catalogue, the default of config `catalog.url`. */
export const DEFAULT_CATALOG_URL = "https://models.dev/api.json"

/**
 * Providers listed first, in this order: the order decides which provider's model is the
 * default when several have keys, and these are the ones wright always knew.
 */
const FIRST = ["anthropic", "openai", "google", "openrouter", "groq", "deepseek", "mistral", "xai", "togetherai", "fireworks-ai"]

/**
 * Catalogue providers that sign in (`wright auth login`) and take no key from the environment:
 * models.dev lists GITHUB_TOKEN for GitHub Copilot, but a GitHub token is not a Copilot one, and
 * it is set in every GitHub Actions run, where it would make Copilot look configured.
 */
const SIGN_IN_ONLY = new Set(["github-copilot"])

/**
 * Checks a fetched catalogue and puts it in wright's form: unknown fields dropped, sign-in
 * providers without their key variables, models that write no text left out, the familiar providers first. Throws a readable message
 * naming the first few problems.
 */
export function normalizeCatalog(raw: unknown): Catalog {
  const parsed = CatalogSchema.safeParse(raw)
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`)
    const more = parsed.error.issues.length > 3 ? ` and ${parsed.error.issues.length - 3} more` : ""
    throw new Error(`not a models.dev catalogue (${issues.join("; ")}${more})`)
  }
  const providers = Object.entries(parsed.data)
    .map(([id, p]) => [id, { ...p, ...(SIGN_IN_ONLY.has(id) ? { env: [] } : {}), models: Object.fromEntries(Object.entries(p.models).filter(([, m]) => writesText(m))) }] as const)
    .filter(([, p]) => Object.keys(p.models).length > 0)
  if (providers.length === 0) throw new Error("not a models.dev catalogue (it lists no provider with models)")
  const rank = (id: string) => (FIRST.includes(id) ? FIRST.indexOf(id) : FIRST.length)
  providers.sort(([a], [b]) => rank(a) - rank(b))
  return Object.fromEntries(providers)
}

/** Image and audio generators cannot answer a coding agent. */
function writesText(m: CatalogModel): boolean {
  return !m.modalities || m.modalities.output.includes("text")
}

/** Where `models --refresh` keeps the catalogue it fetched. */
export function catalogCacheFile(cacheDir: string): string {
  return path.join(cacheDir, "models.json")
}

/** The bundled snapshot: beside the bundle in dist/, or in src/llm/snapshot/ when run from source. */
export function snapshotFile(): string {
  for (const rel of ["./models.json", "../models.json", "./snapshot/models.json"]) {
    const file = fileURLToPath(new URL(rel, import.meta.url))
    if (existsSync(file)) return file
  }
  throw new Error("wright's bundled model catalogue (models.json) is missing from the installation")
}

export interface LoadedCatalog {
  providers: Catalog
  /** The file it was read from. */
  file: string
  /** "cache" when a refreshed copy was used, "snapshot" for the bundled one. */
  origin: "cache" | "snapshot"
  /** Why a cache file that exists was not used (it did not parse or validate). */
  cacheProblem?: string
}

/** By cache dir ("" for the snapshot alone); the last one loaded is `currentCatalog()`. */
const loaded = new Map<string, LoadedCatalog>()
let last: LoadedCatalog | undefined

/**
 * The catalogue in use: the cached copy under `cacheDir` when there is a valid one, else the
 * bundled snapshot. Read once per process and cache dir; `forgetCatalog()` makes the next call
 * read again (after a refresh). Without `cacheDir` only the snapshot is read (tests, tools).
 */
export function loadCatalog(cacheDir?: string): LoadedCatalog {
  const key = cacheDir ?? ""
  const known = loaded.get(key)
  if (known) return (last = known)
  let cacheProblem: string | undefined
  if (cacheDir) {
    const file = catalogCacheFile(cacheDir)
    if (existsSync(file)) {
      try {
        // The cache was normalized when written; a full check again would cost every start-up.
        const providers = parseCatalog(readFileSync(file, "utf8"))
        if (!looksLikeCatalog(providers)) throw new Error("not a models.dev catalogue")
        return remember(key, { providers, file, origin: "cache" })
      } catch (e) {
        cacheProblem = `${file}: ${(e as Error).message}`
      }
    }
  }
  const file = snapshotFile()
  return remember(key, { providers: parseCatalog(readFileSync(file, "utf8")), file, origin: "snapshot", cacheProblem })
}

/** The catalogue loaded last (the snapshot when none was), for code that has no cache dir at hand. */
export function currentCatalog(): LoadedCatalog {
  return last ?? loadCatalog()
}

export function forgetCatalog(): void {
  loaded.clear()
  last = undefined
}

/** The providers of the catalogue in use (see loadCatalog), in its order. */
export function catalogProviders(cacheDir?: string): CatalogProvider[] {
  return Object.values(loadCatalog(cacheDir).providers)
}

/**
 * Ids of the catalogue's providers (their keys are the user's, whatever a project says), read
 * on first use: config loading asks only when an untrusted project configures a provider.
 */
export function catalogProviderIDs(cacheDir?: string): ReadonlySet<string> {
  let ids: Set<string> | undefined
  const get = () => (ids ??= new Set(Object.keys(loadCatalog(cacheDir).providers)))
  return {
    has: (id) => get().has(id),
    get size() {
      return get().size
    },
    forEach: (fn, self) => get().forEach((v) => fn.call(self, v, v, get())),
    entries: () => get().entries(),
    keys: () => get().keys(),
    values: () => get().values(),
    [Symbol.iterator]: () => get()[Symbol.iterator](),
  }
}

/** When the catalogue in use was written: the cache file's time, or undefined for the snapshot. */
export function catalogTime(catalog: LoadedCatalog): Date | undefined {
  return catalog.origin === "cache" ? statSync(catalog.file).mtime : undefined
}

function remember(key: string, value: LoadedCatalog): LoadedCatalog {
  loaded.set(key, value)
  return (last = value)
}

/** A cheap shape check: an object of providers, each with an env list and models (not read: they may be unparsed yet). */
function looksLikeCatalog(value: unknown): value is Catalog {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false
  const entries = Object.values(value as Record<string, unknown>)
  return entries.length > 0 && entries.every((p) => p !== null && typeof p === "object" && "models" in p && Array.isArray((p as CatalogProvider).env))
}

const MODELS_KEY = ',"models":'

/**
 * The file form wright writes (snapshot and cache): one provider per line, `models` its last
 * field, so that a reader can leave each provider's models unparsed until they are asked for.
 */
export function serializeCatalog(catalog: Catalog): string {
  const lines = Object.entries(catalog).map(([id, p]) => {
    const { models, ...head } = p
    return `${JSON.stringify(id)}:${JSON.stringify(head).slice(0, -1)}${MODELS_KEY}${JSON.stringify(models)}}`
  })
  return `{\n${lines.join(",\n")}\n}\n`
}

/**
 * Reads what serializeCatalog wrote, parsing a provider's models on first access: start-up
 * parses the few hundred bytes of each provider's header, not the whole file. Any other JSON
 * text is parsed whole.
 */
export function parseCatalog(text: string): Catalog {
  const lines = text.split("\n")
  while (lines.at(-1) === "") lines.pop()
  if (lines[0] !== "{" || lines.at(-1) !== "}") return JSON.parse(text) as Catalog
  const out: Catalog = {}
  for (const raw of lines.slice(1, -1)) {
    const line = raw.endsWith(",") ? raw.slice(0, -1) : raw
    // The id is a JSON string: the first `":` closes it (a `"` inside it would be escaped).
    const close = line.indexOf('":')
    // In the header every string is JSON-escaped, so the first `,"models":` is the key itself.
    const cut = line.indexOf(MODELS_KEY)
    if (!line.startsWith('"') || close < 0 || cut < 0 || !line.endsWith("}")) return JSON.parse(text) as Catalog
    const id = JSON.parse(line.slice(0, close + 1)) as string
    const head = JSON.parse(`${line.slice(close + 2, cut)}}`) as Omit<CatalogProvider, "models">
    const body = line.slice(cut + MODELS_KEY.length, -1)
    let models: CatalogProvider["models"] | undefined
    out[id] = Object.defineProperty(head as CatalogProvider, "models", {
      get: () => (models ??= JSON.parse(body) as CatalogProvider["models"]),
      enumerable: true,
    })
  }
  return out
}
