import type {
  BusEvent,
  MessageWithParts,
  PromptInput,
  Session,
  SessionCreateInput,
  SessionStatus,
} from "../protocol"
import { subscribeEvents, type SubscribeOptions } from "./events"

export type FetchFn = (request: Request) => Promise<Response>

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:4096`, or any URL when `fetch` is the in-process app. */
  baseUrl: string
  fetch?: FetchFn
  headers?: Record<string, string>
  /** The project every request is about (sent as `x-opencode-directory`). */
  directory?: string
}

/** An error answered by the server, with its `{name, data}` body and HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { name: string; data: Record<string, unknown> },
  ) {
    super(typeof body.data?.message === "string" ? body.data.message : `${body.name} (HTTP ${status})`)
    this.name = body.name
  }
}

type Query = Record<string, string | number | boolean | undefined>

export function createClient(opts: ClientOptions) {
  const doFetch: FetchFn = opts.fetch ?? ((req) => fetch(req))
  const base = opts.baseUrl.replace(/\/+$/, "")

  function build(method: string, path: string, init: { body?: unknown; query?: Query; signal?: AbortSignal } = {}) {
    const url = new URL(base + path)
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.directory) headers["x-opencode-directory"] = encodeURIComponent(opts.directory)
    if (init.body !== undefined) headers["content-type"] = "application/json"
    return new Request(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: init.signal })
  }

  async function request<T>(method: string, path: string, init: { body?: unknown; query?: Query; signal?: AbortSignal } = {}): Promise<T> {
    const res = await doFetch(build(method, path, init))
    if (res.status === 204) return undefined as T
    const text = await res.text()
    let json: unknown
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    if (!res.ok) {
      const body = json && typeof json === "object" && "name" in json ? (json as ApiError["body"]) : { name: "HTTPError", data: { message: text || res.statusText } }
      throw new ApiError(res.status, body)
    }
    return json as T
  }

  const seg = encodeURIComponent
  return {
    request,
    session: {
      list: (query: { search?: string; limit?: number; roots?: boolean } = {}) => request<Session[]>("GET", "/session", { query }),
      create: (body: SessionCreateInput = {}) => request<Session>("POST", "/session", { body }),
      get: (id: string) => request<Session>("GET", `/session/${seg(id)}`),
      status: () => request<Record<string, SessionStatus>>("GET", "/session/status"),
      messages: (id: string, query: { limit?: number; before?: string } = {}) => request<MessageWithParts[]>("GET", `/session/${seg(id)}/message`, { query }),
      prompt: (id: string, body: PromptInput, signal?: AbortSignal) => request<MessageWithParts>("POST", `/session/${seg(id)}/message`, { body, signal }),
      abort: (id: string) => request<boolean>("POST", `/session/${seg(id)}/abort`),
    },
    event: {
      /** Events of the project; reconnects when the stream drops, until `signal` aborts. */
      subscribe: (o: Omit<SubscribeOptions, "open"> = {}): AsyncIterable<BusEvent> =>
        subscribeEvents({ ...o, open: (signal) => doFetch(build("GET", "/event", { signal })) }),
    },
  }
}

export type Client = ReturnType<typeof createClient>
