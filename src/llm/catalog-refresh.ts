// `wright models --refresh`: fetch a models.dev-format catalogue, check it, and keep it in the
// XDG cache, where the next lookup finds it (see catalog.ts). Nothing is replaced unless the
// whole download parsed and validated, so a failed refresh leaves the catalogue in use as it was.
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import path from "node:path"
import { catalogCacheFile, forgetCatalog, normalizeCatalog, serializeCatalog } from "./catalog"
import { userAgent } from "./fetch"

/** models.dev's api.json is about 1 MB; anything past this is not a catalogue. */
const MAX_BYTES = 64 * 1024 * 1024
const TIMEOUT_MS = 10_000

export class CatalogRefreshError extends Error {
  constructor(
    readonly url: string,
    /** What went wrong, without the URL: "HTTP 503 Service Unavailable", "the body is not JSON (…)". */
    readonly problem: string,
  ) {
    super(`Could not refresh the model catalogue from ${url}: ${problem}`)
    this.name = "CatalogRefreshError"
  }
}

export interface RefreshOptions {
  url: string
  cacheDir: string
  fetch?: typeof fetch
  timeoutMs?: number
}

export interface RefreshResult {
  file: string
  providers: number
  models: number
}

/** Downloads and caches the catalogue. Throws CatalogRefreshError; the cache is then untouched. */
export async function refreshCatalog(opts: RefreshOptions): Promise<RefreshResult> {
  const { url } = opts
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS
  const fail = (problem: string): never => {
    throw new CatalogRefreshError(url, problem)
  }
  if (!/^https?:\/\//i.test(url)) fail("catalog.url must be an http:// or https:// URL")
  let response: Response
  try {
    response = await (opts.fetch ?? fetch)(url, {
      headers: { Accept: "application/json", "User-Agent": userAgent() },
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (e) {
    return fail(networkProblem(e, timeoutMs))
  }
  if (!response.ok) fail(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`)
  let text: string
  try {
    text = await response.text()
  } catch (e) {
    return fail(networkProblem(e, timeoutMs))
  }
  if (text.length > MAX_BYTES) fail(`the body is over ${MAX_BYTES / 1024 / 1024} MB`)
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return fail(`the body is not JSON (${(e as Error).message})`)
  }
  let catalog: ReturnType<typeof normalizeCatalog>
  try {
    catalog = normalizeCatalog(raw)
  } catch (e) {
    return fail((e as Error).message)
  }

  const file = catalogCacheFile(opts.cacheDir)
  mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, serializeCatalog(catalog))
  renameSync(tmp, file)
  forgetCatalog()
  const models = Object.values(catalog).reduce((n, p) => n + Object.keys(p.models).length, 0)
  return { file, providers: Object.keys(catalog).length, models }
}

function networkProblem(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } }
  if (err.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`
  const cause = err.cause?.code ?? err.cause?.message
  return cause ? `${err.message} (${cause})` : err.message
}
