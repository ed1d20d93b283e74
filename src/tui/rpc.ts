// The RPC between the TUI's main thread and the worker that hosts the core, over
// `postMessage`. Two things cross it: HTTP requests (any Request, answered by the core's
// in-process server, response bodies streamed chunk by chunk so SSE works too) and bus events
// pushed by the worker. Plus a few plain calls (`listen`, `shutdown`). No socket is opened.
import type { BusEvent } from "../protocol"

export type RpcCall = "listen" | "shutdown"

export type MainToWorker =
  | { t: "fetch"; id: number; method: string; url: string; headers: [string, string][]; body?: ArrayBuffer }
  | { t: "abort"; id: number }
  | { t: "call"; id: number; method: RpcCall; input?: unknown }

export type WorkerToMain =
  | { t: "ready" }
  | { t: "fatal"; error: RpcError }
  | { t: "head"; id: number; status: number; statusText: string; headers: [string, string][] }
  | { t: "chunk"; id: number; data: Uint8Array }
  | { t: "end"; id: number }
  | { t: "fail"; id: number; error: RpcError }
  | { t: "result"; id: number; value?: unknown; error?: RpcError }
  | { t: "event"; event: BusEvent }

export interface RpcError {
  name: string
  message: string
  /**
   * The error's declared meaning (protocol's ErrorInfo: status, quiet, stopsLoop), carried
   * over because the main thread never loads the module that declared it (a ConfigError is
   * config's): the CLI then prints a quiet error as a message, not a stack trace.
   */
  info?: { status: number; quiet: boolean; stopsLoop: boolean }
}

/** The side of a MessagePort/Worker/parentPort that both ends use. */
export interface Port {
  postMessage(message: unknown, transfer?: any[]): void
  on(event: "message", listener: (message: any) => void): unknown
  off(event: "message", listener: (message: any) => void): unknown
}

export type FetchFn = (request: Request) => Promise<Response>

/** Where bus events come from: the worker, or an SSE stream of a remote server. */
export interface EventSource {
  subscribe(listener: (event: BusEvent) => void): () => void
}

function entries(h: Headers): [string, string][] {
  const out: [string, string][] = []
  h.forEach((v, k) => out.push([k, v]))
  return out
}

const toError = (e: unknown): RpcError => {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) }
  // As protocol's declaredInfo reads it (own, then the class's), without loading protocol here.
  const info = [(e as { info?: unknown }).info, (e.constructor as { info?: unknown }).info].find(isInfo)
  return { name: e.name, message: e.message, ...(info ? { info: { status: info.status, quiet: info.quiet, stopsLoop: info.stopsLoop } } : {}) }
}

function isInfo(v: unknown): v is NonNullable<RpcError["info"]> {
  return !!v && typeof v === "object" && typeof (v as { status?: unknown }).status === "number" && typeof (v as { quiet?: unknown }).quiet === "boolean"
}

/** The error again on this side, with its name and declared meaning. */
const fromError = (e: RpcError): Error => Object.assign(new Error(e.message), { name: e.name }, e.info ? { info: e.info } : {})

/** The main thread's end: a `fetch` for the sdk, bus events, and calls into the worker. */
export function createRpcClient(port: Port) {
  let next = 1
  const streams = new Map<number, { head: (r: Response) => void; fail: (e: Error) => void; controller?: ReadableStreamDefaultController<Uint8Array> }>()
  const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  const listeners = new Set<(e: BusEvent) => void>()
  let settleReady!: (e?: RpcError) => void
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = (e) => (e ? reject(fromError(e)) : resolve())
  })
  ready.catch(() => {})

  const onMessage = (msg: WorkerToMain) => {
    switch (msg.t) {
      case "ready":
        return settleReady()
      case "fatal":
        return settleReady(msg.error)
      case "event":
        for (const fn of listeners) fn(msg.event)
        return
      case "result": {
        const call = calls.get(msg.id)
        calls.delete(msg.id)
        if (msg.error) call?.reject(fromError(msg.error))
        else call?.resolve(msg.value)
        return
      }
      case "head": {
        const s = streams.get(msg.id)
        if (!s) return
        const nullBody = msg.status === 204 || msg.status === 304
        const body = nullBody
          ? null
          : new ReadableStream<Uint8Array>({
              start: (controller) => void (s.controller = controller),
              cancel: () => {
                streams.delete(msg.id)
                port.postMessage({ t: "abort", id: msg.id } satisfies MainToWorker)
              },
            })
        s.head(new Response(body, { status: msg.status, statusText: msg.statusText, headers: msg.headers }))
        return
      }
      case "chunk":
        streams.get(msg.id)?.controller?.enqueue(msg.data)
        return
      case "end": {
        const s = streams.get(msg.id)
        streams.delete(msg.id)
        s?.controller?.close()
        return
      }
      case "fail": {
        const s = streams.get(msg.id)
        streams.delete(msg.id)
        const err = fromError(msg.error)
        if (s?.controller) s.controller.error(err)
        else s?.fail(err)
        return
      }
    }
  }
  port.on("message", onMessage)

  const rpcFetch: FetchFn = async (request) => {
    const id = next++
    const body = request.body ? await request.arrayBuffer() : undefined
    return new Promise<Response>((resolve, reject) => {
      const signal = request.signal
      const abort = () => {
        const s = streams.get(id)
        streams.delete(id)
        port.postMessage({ t: "abort", id } satisfies MainToWorker)
        const err = new DOMException("The operation was aborted.", "AbortError")
        if (s?.controller) s.controller.error(err)
        reject(err)
      }
      if (signal?.aborted) return abort()
      signal?.addEventListener("abort", abort, { once: true })
      streams.set(id, { head: resolve, fail: reject })
      const msg: MainToWorker = { t: "fetch", id, method: request.method, url: request.url, headers: entries(request.headers), body }
      port.postMessage(msg, body ? [body] : [])
    })
  }

  return {
    fetch: rpcFetch,
    /** Resolves when the core has booted; rejects with its boot error (e.g. a bad config). */
    ready,
    events: {
      subscribe(listener) {
        listeners.add(listener)
        return () => void listeners.delete(listener)
      },
    } satisfies EventSource,
    call<T = unknown>(method: RpcCall, input?: unknown): Promise<T> {
      const id = next++
      return new Promise<T>((resolve, reject) => {
        calls.set(id, { resolve: resolve as (v: unknown) => void, reject })
        port.postMessage({ t: "call", id, method, input } satisfies MainToWorker)
      })
    },
    close() {
      port.off("message", onMessage)
    },
  }
}

export type RpcClient = ReturnType<typeof createRpcClient>

export interface RpcHandlers {
  fetch: FetchFn
  call(method: RpcCall, input: unknown): Promise<unknown>
}

/** The worker's end: answers fetches and calls. Events are sent with the returned `emit`. */
export function serveRpc(port: Port, handlers: RpcHandlers) {
  const running = new Map<number, AbortController>()
  const post = (msg: WorkerToMain, transfer: any[] = []) => port.postMessage(msg, transfer)

  async function answer(msg: Extract<MainToWorker, { t: "fetch" }>) {
    const controller = new AbortController()
    running.set(msg.id, controller)
    try {
      const req = new Request(msg.url, { method: msg.method, headers: msg.headers, body: msg.body, signal: controller.signal })
      const res = await handlers.fetch(req)
      if (controller.signal.aborted) return void (await res.body?.cancel().catch(() => {}))
      post({ t: "head", id: msg.id, status: res.status, statusText: res.statusText, headers: entries(res.headers) })
      if (res.body) {
        const reader = res.body.getReader()
        const stop = () => void reader.cancel().catch(() => {})
        controller.signal.addEventListener("abort", stop, { once: true })
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          post({ t: "chunk", id: msg.id, data: value })
        }
      }
      post({ t: "end", id: msg.id })
    } catch (e) {
      if (!controller.signal.aborted) post({ t: "fail", id: msg.id, error: toError(e) })
    } finally {
      running.delete(msg.id)
    }
  }

  const onMessage = (msg: MainToWorker) => {
    if (msg.t === "fetch") void answer(msg)
    else if (msg.t === "abort") running.get(msg.id)?.abort()
    else if (msg.t === "call")
      handlers.call(msg.method, msg.input).then(
        (value) => post({ t: "result", id: msg.id, value }),
        (e) => post({ t: "result", id: msg.id, error: toError(e) }),
      )
  }
  port.on("message", onMessage)

  return {
    ready: () => post({ t: "ready" }),
    fatal: (e: unknown) => post({ t: "fatal", error: toError(e) }),
    emit(event: BusEvent) {
      try {
        post({ t: "event", event })
      } catch {
        // Something in the event cannot be cloned: send its JSON form.
        post({ t: "event", event: JSON.parse(JSON.stringify(event)) })
      }
    },
    abortAll() {
      for (const c of running.values()) c.abort()
    },
    close() {
      port.off("message", onMessage)
    },
  }
}
