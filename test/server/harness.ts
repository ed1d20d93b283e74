// A real server for route tests: a sandbox HOME and project, a real SQLite file, one App per
// project directory, and our SDK client whose `fetch` is the app itself (no socket), or the
// app behind the port's guard (`guard`: as if bound to 127.0.0.1:4096, requests to BASE).
// The model is the llm-server, reached over real HTTP.
import { createClient, type Client } from "../../src/sdk"
import { createServer, guard, type GuardOptions } from "../../src/server"
import { createApps, type App } from "../../src/session"
import { openStore, type EventLogOptions } from "../../src/storage"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import type { LLMServer } from "../lib/llm-server"

export const BASE = "http://127.0.0.1:4096"

export interface Harness {
  box: Sandbox
  server: ReturnType<typeof createServer>
  fetch: (req: Request) => Promise<Response>
  client: Client
  app: () => Promise<App>
  /** A client for another project directory of the same server. */
  clientFor(directory: string): Client
  close(): Promise<void>
}

export interface ServerSetup {
  llm?: LLMServer
  config?: Record<string, unknown>
  guard?: Partial<GuardOptions>
  /** Directories requests may name besides the project (--allow-dir). */
  allowDirs?: string[]
  /** The event log's bounds (small ones to test trimming). */
  events?: EventLogOptions
}

export async function startServer(opts: ServerSetup = {}): Promise<Harness> {
  const box = sandbox()
  writeConfig(box.project, { ...(opts.llm ? providerConfig(opts.llm, "openai-chat") : {}), ...opts.config })
  const store = openStore(box.dbPath, { events: opts.events })
  const apps = createApps({ store, env: box.env, home: box.home, version: "9.9.9-test" })
  const getApp = apps.get
  const server = createServer({
    directory: box.project,
    getApp,
    version: "9.9.9-test",
    reloadApp: apps.reload,
    allowedDirectories: opts.allowDirs,
    isKnownProject: (dir) => store.sessions.list({ directory: dir, limit: 1 }).length > 0,
  })
  const fetch = opts.guard ? guard(server.fetch, { hostname: "127.0.0.1", port: 4096, ...opts.guard }) : server.fetch
  const clientFor = (directory: string) => createClient({ baseUrl: BASE, fetch, directory })
  return {
    box,
    server,
    fetch,
    client: clientFor(box.project),
    app: () => getApp(box.project),
    clientFor,
    async close() {
      server.dispose()
      await apps.dispose()
      store.close()
    },
  }
}

/** Raw request to the app, for malformed bodies and headers the SDK would never send. */
export function raw(h: Harness, method: string, pathname: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  return h.fetch(new Request(BASE + pathname, { method, body: init.body, headers: { "content-type": "application/json", ...init.headers } }))
}

/** Collects events from the project's stream until `until` matches one (or the timeout). */
export function collect<T extends { type: string }>(stream: AsyncIterable<T>, controller: AbortController) {
  const events: T[] = []
  const waiters: { pred: (e: T) => boolean; resolve: (e: T) => void }[] = []
  const done = (async () => {
    try {
      for await (const e of stream) {
        events.push(e)
        for (const w of [...waiters]) if (w.pred(e)) waiters.splice(waiters.indexOf(w), 1), w.resolve(e)
      }
    } catch {
      // aborted
    }
  })()
  return {
    events,
    done,
    wait(pred: (e: T) => boolean, timeoutMs = 15_000): Promise<T> {
      const seen = events.find(pred)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms; saw: ${events.map((e) => e.type).join(", ")}`)), timeoutMs)
        waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) })
      })
    },
    stop: () => controller.abort(),
  }
}
