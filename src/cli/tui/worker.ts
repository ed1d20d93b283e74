// The TUI's worker thread: it hosts the whole core (store, App, HTTP server) and answers the
// main thread over RPC. Requests that arrive while the core boots wait for it. It never
// touches the terminal; its console output is captured by the main thread. A port, when
// asked for, goes through the same guarded listener as `wright serve`.
import { format } from "node:util"
import { parentPort, workerData } from "node:worker_threads"
import type { BusEvent } from "../../protocol"
import { createClient } from "../../sdk"
import { advertise, listen, type Advertised, type Listening } from "../../server"
import { serveRpc, type Port } from "../../tui"
import { startCore } from "../core"
import { cliLogger, type LogArgs } from "../log"
import { reloadOnConfigChange } from "./config-reload"

export interface WorkerInit extends LogArgs {
  directory: string
  /** --allow-dir, resolved. */
  allowDirs?: string[]
}

/** What the main thread asks `listen` for: the TUI's --port and listener flags, the password resolved. */
export interface ListenRequest {
  /** Default: `server.port` of the config, else 0 (a free port). */
  port?: number
  /** Default: `server.hostname` of the config, else 127.0.0.1. */
  hostname?: string
  cors?: string[]
  allowHosts?: string[]
  insecure?: boolean
  password?: string
  username?: string
  /** Advertise the port on the local network (already checked against the password). */
  mdns?: boolean
  mdnsDomain?: string
}

type Core = Awaited<ReturnType<typeof startCore>>

const init = workerData as WorkerInit
const port = parentPort as unknown as Port
let core: Core | undefined
let listening: Listening | undefined
let advertised: Advertised | undefined
let unsubscribe: (() => void) | undefined
let stopWatching: (() => void) | undefined

// Its stderr goes to the main thread, which shows it only with --print-logs.
const log = cliLogger(init)
// A plugin's console output would sit unseen in the main thread's buffer: it goes to the log file.
const consoleLog = log.child({ service: "console" })
for (const level of ["log", "info", "debug"] as const) console[level] = (...args: unknown[]) => consoleLog.info(format(...args))
for (const level of ["warn", "error"] as const) console[level] = (...args: unknown[]) => consoleLog.warn(format(...args))
const booting = startCore({ directory: init.directory, allowDirs: init.allowDirs, log })
booting.catch(() => {})

const rpc = serveRpc(port, {
  fetch: async (req) => (await booting).server.fetch(req),
  async call(method, input) {
    if (method === "listen") return startListening(input as ListenRequest)
    if (method === "shutdown") return shutdown()
    throw new Error(`unknown RPC call: ${method}`)
  },
})

booting.then(
  (c) => {
    core = c
    unsubscribe = forwardEvents(c, () => rpc.ready())
    stopWatching = reloadOnConfigChange({
      client: createClient({ baseUrl: "http://wright.internal", fetch: c.server.fetch }),
      directory: c.app.directory,
      env: process.env,
      emit: (e) => rpc.emit(e),
    })
  },
  (e) => rpc.fatal(e),
)

/**
 * Forwards the start project's events, then calls `connected` once. Trusting the folder (or
 * PATCH /config) replaces the project's App, and its bus with it: the server's stream of every
 * App follows the new one, where the first App's bus would go silent.
 */
function forwardEvents(c: Core, connected: () => void): () => void {
  const stop = new AbortController()
  const client = createClient({ baseUrl: "http://wright.internal", fetch: c.server.fetch })
  let first = true
  const onConnect = () => first && ((first = false), connected())
  void (async () => {
    for await (const e of client.global.event({ signal: stop.signal, onConnect }))
      if (e.directory === c.app.directory && e.payload.type !== "server.heartbeat" && e.payload.type !== "server.connected") rpc.emit(e.payload as BusEvent)
  })().catch((e) => rpc.fatal(e))
  return () => stop.abort()
}

async function startListening(req: ListenRequest): Promise<string> {
  const c = await booting
  // Allowed origins come from the flags and the user's own config, never from the project's.
  const cors = [...(req.cors ?? []), ...(c.app.userConfig.server?.cors ?? [])]
  // The flags win over the config's server.port/hostname; a port opens only when a flag asks.
  const port = req.port ?? c.app.config.server?.port ?? 0
  const mdns = req.mdns ?? c.app.config.server?.mdns === true
  const hostname = req.hostname ?? c.app.config.server?.hostname ?? (mdns ? "0.0.0.0" : "127.0.0.1")
  listening = await listen({ ...req, port, hostname, cors, fetch: c.server.fetch })
  log.child({ service: "tui" }).info("listening", { url: listening.url })
  if (!mdns) return listening.url
  advertised = await advertise({ port: listening.port, hostname, password: req.password, domain: req.mdnsDomain ?? c.app.config.server?.mdnsDomain }).catch((e: Error) => {
    void listening?.close()
    throw Object.assign(new Error(e.message), { name: "ListenError" })
  })
  return `${listening.url} (mDNS: ${advertised.name} at ${advertised.host}:${listening.port})`
}

/** Settles running sessions (aborted, their tools marked as errors), flushes history, closes. */
async function shutdown(): Promise<boolean> {
  unsubscribe?.()
  stopWatching?.()
  rpc.abortAll()
  await advertised?.stop().catch(() => {})
  void listening?.close()
  if (core) await core.close()
  else await booting.then((c) => c.close()).catch(() => {})
  // The main thread terminates this worker next: nothing buffered may be left behind.
  log.flush()
  return true
}
