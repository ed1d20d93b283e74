// websearch: look a query up with the backend the user configured (Exa's or Tavily's HTTP API
// with a key, or a SearXNG instance by URL) and return titles, URLs and snippets for the model
// to cite. The tool exists only once `websearch` is configured (session/app.ts adds it); each
// call asks the `websearch` permission with the query. The key is resolved on every call, so
// `wright auth login exa` takes effect without a restart, and never appears in an error.
import { z } from "zod"
import DESCRIPTION from "./websearch.txt"
import { defineTool, type Tool, type ToolContext, type ToolResult } from "./tool"
import { oneLine, textOf } from "./summary"

export type WebsearchProvider = "exa" | "tavily" | "searxng"

/** What session/app.ts hands the tool: the merged config's `websearch` (an untrusted project's url and apiKey already held back by config/trust.ts). */
export interface WebsearchSettings {
  provider: WebsearchProvider
  /** SearXNG's instance; for Exa and Tavily another base URL for their API. */
  url?: string
  apiKey?: string
}

export interface WebsearchDeps {
  /** The user's stored key for "exa" or "tavily" (auth.json), undefined when none. May throw a ConfigError for an unreadable store. */
  storedKey(provider: "exa" | "tavily"): string | undefined
  /** The App's environment (EXA_API_KEY, TAVILY_API_KEY). */
  env: NodeJS.ProcessEnv
  fetch?: typeof fetch
}

interface Hit {
  title: string
  url: string
  snippet: string
  published?: string
}

const BACKENDS = {
  exa: { label: "Exa", base: "https://api.exa.ai", env: "EXA_API_KEY" },
  tavily: { label: "Tavily", base: "https://api.tavily.com", env: "TAVILY_API_KEY" },
  searxng: { label: "SearXNG", base: undefined, env: undefined },
} as const

const DEFAULT_RESULTS = 8
const MAX_RESULTS = 20
const TIMEOUT_S = 25
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024
const SNIPPET_CHARS = 1000

const Parameters = z.object({
  query: z.string().min(1).describe("The search query"),
  numResults: z.number().int().min(1).max(MAX_RESULTS).optional().describe(`How many results to return (default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS})`),
})

/**
 * The tool for the config's `websearch` section, or none: without the section, and for
 * OpenCode's keyless backends ("auto", "parallel"), which wright does not have (with a warning
 * naming the key). Never throws.
 */
export function configureWebsearch(config: { provider: string; url?: string; apiKey?: string } | undefined, deps: WebsearchDeps): { tool?: Tool; warnings: string[] } {
  if (!config) return { warnings: [] }
  const { provider } = config
  if (provider === "exa" || provider === "tavily" || provider === "searxng") return { tool: createWebsearch({ ...config, provider }, deps), warnings: [] }
  return {
    warnings: [`websearch.provider ${JSON.stringify(provider)} is OpenCode's keyless search, which wright does not have: the websearch tool is off. Use "exa" or "tavily" (with a key) or "searxng" (with a url).`],
  }
}

export function createWebsearch(settings: WebsearchSettings, deps: WebsearchDeps) {
  const backend = BACKENDS[settings.provider]
  return defineTool({
    id: "websearch",
    description: DESCRIPTION.replace("{{year}}", String(new Date().getFullYear())),
    parameters: Parameters,
    summary(input) {
      const query = textOf(input.query)
      return { title: query ? `Search ${JSON.stringify(oneLine(query, 200))}` : "Search the web", kind: "fetch", locations: [] }
    },
    async execute(args, ctx): Promise<ToolResult> {
      const count = args.numResults ?? DEFAULT_RESULTS
      await ctx.ask({ permission: "websearch", patterns: [args.query], always: ["*"], metadata: { query: args.query, numResults: count, provider: settings.provider } })
      const request = buildRequest(settings, deps, args.query, count)
      const hits = (await send(request, settings.provider, ctx, deps.fetch ?? fetch)).slice(0, count)
      return {
        title: `${backend.label}: ${args.query}`,
        output: format(args.query, backend.label, hits),
        metadata: { provider: settings.provider, results: hits.length, urls: hits.map((h) => h.url) },
      }
    },
  })
}

interface Request {
  url: URL
  init: RequestInit
  /** The key sent, kept out of any error text (a service may echo it back). */
  key?: string
}

function buildRequest(settings: WebsearchSettings, deps: WebsearchDeps, query: string, count: number): Request {
  if (settings.provider === "searxng") {
    if (!settings.url)
      throw new Error(`websearch.url is not set: SearXNG needs the address of your instance in your own config, e.g. "websearch": {"provider": "searxng", "url": "http://localhost:8888"}.`)
    const url = new URL("search", base(settings.url, "websearch.url"))
    url.searchParams.set("q", query)
    url.searchParams.set("format", "json")
    return { url, init: { method: "GET", headers: { Accept: "application/json" } } }
  }
  const provider = settings.provider
  const b = BACKENDS[provider]
  const key = settings.apiKey || deps.storedKey(provider) || deps.env[b.env] || undefined
  if (!key)
    throw new Error(`No ${b.label} API key: set it with \`wright auth login ${provider}\`, or in ${b.env}, or as websearch.apiKey in your config.`)
  const url = new URL("search", base(settings.url ?? b.base, "websearch.url"))
  const json = { "Content-Type": "application/json", Accept: "application/json" }
  if (provider === "exa") {
    const body = { query, numResults: count, type: "auto", contents: { highlights: { maxCharacters: SNIPPET_CHARS } } }
    return { url, key, init: { method: "POST", headers: { ...json, "x-api-key": key }, body: JSON.stringify(body) } }
  }
  const body = { query, max_results: count, search_depth: "basic", include_answer: false }
  return { url, key, init: { method: "POST", headers: { ...json, Authorization: `Bearer ${key}` }, body: JSON.stringify(body) } }
}

/** A base URL with a trailing slash, so `new URL("search", …)` keeps its path (`http://host/searx/` + `search`). */
function base(text: string, field: string): URL {
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) throw new Error(`${field} must be an http:// or https:// URL (got ${JSON.stringify(text)}). Fix it in your config.`)
  const url = new URL(text)
  if (!url.pathname.endsWith("/")) url.pathname += "/"
  return url
}

async function send(request: Request, provider: WebsearchProvider, ctx: ToolContext, fetchImpl: typeof fetch): Promise<Hit[]> {
  const label = BACKENDS[provider].label
  const timeout = AbortSignal.timeout(TIMEOUT_S * 1000)
  let response: Response
  let text: string
  try {
    // Redirects are not followed: fetch would carry x-api-key to wherever one pointed.
    response = await fetchImpl(request.url, { ...request.init, signal: AbortSignal.any([ctx.abort, timeout]), redirect: "manual" })
    text = await readCapped(response)
  } catch (e) {
    if (ctx.abort.aborted) throw new Error(`The ${label} search was aborted`)
    if (timeout.aborted) throw new Error(`The ${label} search timed out after ${TIMEOUT_S} seconds (${request.url.origin}). Try again, or ask the user to check the service.`)
    if (e instanceof TooLarge) throw new Error(`The ${label} response is larger than 5 MB: refused.`)
    throw new Error(`Could not reach ${label} at ${request.url.origin}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`)
  }
  if (response.status >= 300 && response.status < 400)
    throw new Error(`${label} at ${request.url.origin} answered with a redirect to ${response.headers.get("location") ?? "another address"}, which websearch does not follow. Set websearch.url in your config to the final address.`)
  if (!response.ok) throw statusError(provider, response.status, request.key ? text.replaceAll(request.key, "…") : text)
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new Error(`${label} answered with something other than JSON (${request.url.origin}).${provider === "searxng" ? ' Enable the JSON format in the instance\'s settings.yml (search: formats: [html, json]).' : ""}`)
  }
  return parse(provider, data)
}

function statusError(provider: WebsearchProvider, status: number, body: string): Error {
  const label = BACKENDS[provider].label
  const detail = oneLine(errorDetail(body), 300)
  if ((status === 401 || status === 403) && provider !== "searxng")
    return new Error(`The ${label} key was refused (HTTP ${status}${detail ? `: ${detail}` : ""}); set it with \`wright auth login ${provider}\`.`)
  if (status === 403 && provider === "searxng")
    return new Error(`SearXNG refused the search (HTTP 403): the instance probably does not serve JSON. Add json to search.formats in its settings.yml.`)
  if (status === 429) return new Error(`${label} is rate-limiting the searches (HTTP 429). Wait before searching again.`)
  return new Error(`The ${label} search failed with HTTP ${status}${detail ? `: ${detail}` : ""}`)
}

function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>
    const found = [parsed.error, parsed.message, parsed.detail].find((v) => v !== undefined)
    if (typeof found === "string") return found
    if (found && typeof found === "object") return String((found as Record<string, unknown>).error ?? (found as Record<string, unknown>).message ?? JSON.stringify(found))
  } catch {
    // Not JSON: the text itself, shortened.
  }
  return body
}

function parse(provider: WebsearchProvider, data: unknown): Hit[] {
  const results = (data as { results?: unknown } | null)?.results
  if (!Array.isArray(results)) throw new Error(`${BACKENDS[provider].label} answered without a results list.`)
  const out: Hit[] = []
  for (const r of results as Record<string, unknown>[]) {
    const url = str(r?.url)
    if (!url) continue
    const snippet =
      provider === "exa"
        ? (Array.isArray(r.highlights) ? r.highlights.filter((h): h is string => typeof h === "string").join(" … ") : "") || str(r.text) || str(r.summary)
        : str(r.content)
    const published = str(r.publishedDate) || str(r.published_date)
    out.push({ title: str(r.title) || url, url, snippet: clip(snippet), ...(published ? { published } : {}) })
  }
  return out
}

const str = (v: unknown): string => (typeof v === "string" ? v.trim() : "")

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat
}

function format(query: string, label: string, hits: Hit[]): string {
  if (hits.length === 0) return `No results for ${JSON.stringify(query)} (${label}). Try other words.`
  const lines = [`Results for ${JSON.stringify(query)} (${label}):`, ""]
  hits.forEach((h, i) => {
    lines.push(`${i + 1}. ${oneLine(h.title, 200)}`, `   URL: ${h.url}`)
    if (h.published) lines.push(`   Published: ${h.published}`)
    if (h.snippet) lines.push(`   ${h.snippet}`)
    lines.push("")
  })
  lines.push("Cite the URLs of the results you use in your answer. Fetch a page with webfetch to read more than its snippet.")
  return lines.join("\n")
}

class TooLarge extends Error {}

async function readCapped(response: Response): Promise<string> {
  if (Number(response.headers.get("content-length")) > MAX_RESPONSE_BYTES) {
    await response.body?.cancel()
    throw new TooLarge()
  }
  const reader = response.body?.getReader()
  if (!reader) return ""
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.length
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel()
      throw new TooLarge()
    }
    parts.push(value)
  }
  return Buffer.concat(parts).toString("utf8")
}
