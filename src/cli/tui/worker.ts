// The TUI's worker thread: it hosts the whole core (store, App, HTTP server) and answers the
// main thread over RPC. Requests that arrive while the core boots wait for it. It never
// touches the terminal; its console output is captured by the main thread.
import { serve as listen } from "@hono/node-server"
import type { AddressInfo } from "node:net"
import { parentPort, workerData } from "node:worker_threads"
import { serveRpc, type Port } from "../../tui"
import { startCore } from "../core"

export interface WorkerInit {
  directory: string
}

type Core = Awaited<ReturnType<typeof startCore>>

const init = workerData as WorkerInit
const port = parentPort as unknown as Port
let core: Core | undefined
let httpServer: ReturnType<typeof listen> | undefined
let unsubscribe: (() => void) | undefined

const booting = startCore({ directory: init.directory })
booting.catch(() => {})

const rpc = serveRpc(port, {
  fetch: async (req) => (await booting).server.fetch(req),
  async call(method, input) {
    if (method === "listen") return startListening(input as { port?: number; hostname?: string })
    if (method === "shutdown") return shutdown()
    throw new Error(`unknown RPC call: ${method}`)
  },
})

booting.then(
  (c) => {
    core = c
    unsubscribe = c.app.bus.subscribeAll((e) => rpc.emit(e))
    rpc.ready()
  },
  (e) => rpc.fatal(e),
)

async function startListening(opts: { port?: number; hostname?: string }): Promise<string> {
  const c = await booting
  const hostname = opts.hostname ?? "127.0.0.1"
  const server = listen({ fetch: c.server.fetch, port: opts.port ?? 0, hostname })
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve())
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === "EADDRINUSE" ? `--port: ${opts.port} is already in use` : e.message)),
    )
  })
  httpServer = server
  const address = server.address() as AddressInfo
  const host = hostname.includes(":") ? `[${hostname}]` : hostname
  return `http://${host}:${address.port}`
}

/** Settles running sessions (aborted, their tools marked as errors), flushes history, closes. */
async function shutdown(): Promise<boolean> {
  unsubscribe?.()
  rpc.abortAll()
  httpServer?.close()
  if (core) await core.close()
  else await booting.then((c) => c.close()).catch(() => {})
  return true
}
