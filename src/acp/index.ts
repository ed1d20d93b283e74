// `wright acp`: the Agent Client Protocol (JSON-RPC over stdio) for editors such as Zed.
// It owns the translation between ACP and wright's HTTP API and nothing else: it reaches
// the core only through the API client it is handed, and it never writes to stdout except
// through the protocol stream (logs go to `log`, stderr by default).
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk/unstable"
import type { BusEvent } from "../protocol"
import type { Client } from "../sdk"
import { createAgent, createRouter } from "./agent"

export { ACP_RULES } from "./agent"
export { promptParts, replay } from "./content"
export { UpdateMapper } from "./updates"
export { diffSides } from "./tool"

export interface AcpOptions {
  /** A client of wright's API; its project receives the sessions unless `clientFor` is given. */
  client: Client
  /** A client for the project an editor session names as its `cwd`. */
  clientFor?: (directory: string) => Client
  /** Reported as `agentInfo.version`. */
  version: string
  /** The protocol streams: stdin/stdout unless given. */
  input?: ReadableStream<Uint8Array>
  output?: WritableStream<Uint8Array>
  /** Diagnostics; never stdout. Default: stderr. */
  log?: (message: string) => void
  /** Closes the connection. */
  signal?: AbortSignal
}

/** Serves one editor connection; resolves when it closes (the editor went away or `signal`). */
export async function runAcp(opts: AcpOptions): Promise<void> {
  const log = opts.log ?? ((m: string) => void process.stderr.write(`wright acp: ${m}\n`))
  const events = new AbortController()
  let ready!: () => void
  const eventsReady = new Promise<void>((r) => (ready = r))
  const { app, sessions } = createAgent({ client: opts.client, clientFor: opts.clientFor, version: opts.version, log, eventsReady })
  const route = createRouter(sessions)

  // One stream of every project's events; session ids are unique across projects.
  const pump = (async () => {
    const stream = opts.client.global.event({ signal: events.signal, onConnect: () => ready(), onDrop: (e) => events.signal.aborted || log(`event stream dropped: ${(e as Error).message}`) })
    for await (const e of stream) {
      try {
        route(e.payload as BusEvent)
      } catch (err) {
        log(`event ${e.payload.type} failed: ${(err as Error).message}`)
      }
    }
  })().catch((e) => log(`event stream ended: ${(e as Error).message}`))

  const input = opts.input ?? (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>)
  const output = opts.output ?? (Writable.toWeb(process.stdout) as WritableStream<Uint8Array>)
  const conn = app.connect(acp.ndJsonStream(output, input))
  const onAbort = () => conn.close()
  opts.signal?.addEventListener("abort", onAbort, { once: true })
  try {
    await conn.closed
  } finally {
    opts.signal?.removeEventListener("abort", onAbort)
    // Turns still running belong to an editor that is gone: stop them.
    await Promise.all([...sessions.values()].map((s) => s.cancel()))
    events.abort()
    await pump
  }
}
