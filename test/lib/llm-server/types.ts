// Public types of the scripted LLM server. Only `node:` built-ins may be imported anywhere in this
// folder: it is also bundled on its own into dist/llm-server.mjs for the offline demo.

/** Token counts as the SDK reports them: `input` is ALL prompt tokens (cache reads and writes included), `output` includes `reasoning`. */
export interface Usage {
  input?: number
  output?: number
  reasoning?: number
  cacheRead?: number
  cacheWrite?: number
}

export interface ToolCallReply {
  /** Generated when absent (Gemini then sends none and the SDK makes one up). */
  id?: string
  name: string
  input?: unknown
  /** Exact argument string sent (may be malformed JSON); otherwise JSON.stringify(input ?? {}). */
  raw?: string
}

export type Finish = "stop" | "tool-calls" | "length" | "content-filter"

export interface Reply {
  /** Streamed before text; an array is one delta per element. */
  reasoning?: string | string[]
  /** A string is split into a few deltas; an array is one delta per element. */
  text?: string | string[]
  /** Arguments are split over several chunks (Gemini: one whole `functionCall` per call). */
  toolCalls?: ToolCallReply[]
  /** Default: "tool-calls" when there are tool calls, else "stop". */
  finish?: Finish
  usage?: Usage
  /** Answer with this HTTP error instead of a stream. */
  error?: { status: number; body?: unknown; headers?: Record<string, string> }
  /** Send N stream events, then destroy the socket. */
  cutAfter?: number
  /** Never finish: before headers, right after headers, or after N events (until the client disconnects). */
  hang?: "before-headers" | "after-headers" | number
  /** Wait this long between stream events. */
  delayMs?: number
  /**
   * Send `after` stream events, then wait until `open` settles (or the client goes away) before
   * the rest: a step that is still running for as long as the test needs it, however slow the
   * machine, where a long `delayMs` would only make that likely.
   */
  gate?: { after: number; open: Promise<unknown> }
  /** Assertion on the request; if it throws, the server answers 500 and records it in `failures`. */
  expect?: (req: RecordedRequest) => void
}

export type Protocol = "openai-chat" | "openai-responses" | "anthropic" | "google"

export interface RecordedRequest {
  protocol: Protocol
  method: string
  path: string
  headers: Record<string, string>
  body: any
  stream: boolean
  /** When the request arrived and when its response ended (ms since the epoch): concurrency checks. */
  time: { start: number; end?: number }
}

export interface LLMServer {
  /** "http://127.0.0.1:<port>"; providers use baseURL `${url}/v1` (Google: `${url}/v1beta`). */
  url: string
  /** Every request received, in order, except background ones. */
  requests: RecordedRequest[]
  /** Background requests (header `x-wright-request`, e.g. session titles), answered by `side` or with "Scripted <purpose>". */
  side: RecordedRequest[]
  /** Unscripted requests (strict mode), failed `expect`s and unknown routes. */
  failures: string[]
  /** Append to the reply queue (shared by all protocols, FIFO). */
  script(...replies: Reply[]): void
  /** Replies not yet consumed. */
  pending(): number
  /** Requests whose response has neither finished nor been closed by the client (hangs, slow streams). */
  inFlight(): number
  reset(): void
  /** Also closes hanging connections. */
  close(): Promise<void>
}

export interface LLMServerOptions {
  /** Default true: an unscripted request gets HTTP 500 with a clear message and is recorded in `failures`. */
  strict?: boolean
  /** Used when the queue is empty (for the demo and benches). */
  fallback?: (req: RecordedRequest) => Reply
  /** Answers background requests (header `x-wright-request`); default: text "Scripted <purpose>". */
  side?: (req: RecordedRequest) => Reply | undefined
}
