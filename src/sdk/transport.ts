// The transport under the typed client: URL building, headers (project directory, basic
// auth), JSON bodies, and `{name, data}` error answers turned into ApiError.
import type { ErrorInfo } from "../protocol"

export type FetchFn = (request: Request) => Promise<Response>

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:4096`, or any URL when `fetch` is the in-process app. */
  baseUrl: string
  fetch?: FetchFn
  headers?: Record<string, string>
  /** The project every request is about (sent as `x-opencode-directory`). */
  directory?: string
  /** Basic auth for a `wright serve` started with a password. */
  auth?: { username?: string; password: string }
}

/** An error answered by the server, with its `{name, data}` body and HTTP status. */
export class ApiError extends Error {
  /**
   * What the server's answer says about it (protocol's ErrorInfo): the status its error
   * declared, and quiet when that is a 4xx (the request was refused; nothing crashed).
   */
  readonly info: ErrorInfo
  constructor(
    readonly status: number,
    readonly body: { name: string; data: Record<string, unknown> },
  ) {
    super(typeof body.data?.message === "string" ? body.data.message : `${body.name} (HTTP ${status})`)
    this.name = body.name
    this.info = { status, quiet: status >= 400 && status < 500, stopsLoop: false }
  }
}

/** The `authorization` header value of basic auth; the username defaults to "wright". */
export function basicAuth(auth: { username?: string; password: string }): string {
  return `Basic ${Buffer.from(`${auth.username ?? "wright"}:${auth.password}`).toString("base64")}`
}

export type Query = Record<string, string | number | boolean | undefined>
export interface RequestInit {
  body?: unknown
  query?: Query
  signal?: AbortSignal
  /** Extra headers of this request (an event stream's Last-Event-ID). */
  headers?: Record<string, string>
}

export type Transport = {
  /** Sends a request and returns the parsed JSON answer (undefined for 204); throws ApiError otherwise. */
  request<T>(method: string, path: string, init?: RequestInit): Promise<T>
  /** The raw response, for streams. */
  open(method: string, path: string, init?: RequestInit): Promise<Response>
}

/** Turns a non-2xx response into an ApiError (named when the server named it). */
export async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "")
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  const body = json && typeof json === "object" && "name" in json ? (json as ApiError["body"]) : { name: "HTTPError", data: { message: text || res.statusText || `HTTP ${res.status}` } }
  return new ApiError(res.status, body)
}

export function createTransport(opts: ClientOptions): Transport {
  const doFetch: FetchFn = opts.fetch ?? ((req) => fetch(req))
  const base = opts.baseUrl.replace(/\/+$/, "")
  const fixed: Record<string, string> = { ...opts.headers }
  if (opts.directory) fixed["x-opencode-directory"] = encodeURIComponent(opts.directory)
  if (opts.auth) fixed.authorization = basicAuth(opts.auth)

  function build(method: string, path: string, init: RequestInit = {}) {
    const url = new URL(base + path)
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    const headers: Record<string, string> = { ...fixed, ...init.headers }
    if (init.body !== undefined) headers["content-type"] = "application/json"
    return new Request(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: init.signal })
  }

  return {
    open: (method, path, init) => doFetch(build(method, path, init)),
    async request<T>(method: string, path: string, init: RequestInit = {}): Promise<T> {
      const res = await doFetch(build(method, path, init))
      if (!res.ok) throw await toApiError(res)
      if (res.status === 204) return undefined as T
      const text = await res.text()
      return (text ? JSON.parse(text) : undefined) as T
    },
  }
}
