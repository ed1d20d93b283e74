// A stub server for component tests: answers the sdk's requests from fixed data and records
// them, and lets the test publish bus events. Only the HTTP boundary is faked; the store,
// controller and components are the real ones.
import { render } from "ink-testing-library"
import { createClient } from "../../src/sdk"
import type { BusEvent, MessageWithParts, Session, TrustStatus } from "../../src/protocol"
import { App } from "../../src/tui/app"
import { createController } from "../../src/tui/controller"
import { createStore } from "../../src/tui/store"

export interface Recorded {
  method: string
  path: string
  body?: unknown
}

export function session(id = "ses_1", title = "Test session"): Session {
  return { id, slug: "test", projectID: "p", directory: "/tmp/project", title, version: "0", time: { created: 1, updated: 1 } }
}

export function stubServer(
  data: {
    sessions?: Session[]
    messages?: Record<string, MessageWithParts[]>
    commands?: { name: string; description?: string }[]
    trust?: TrustStatus
    configWarnings?: string[]
    /** Milliseconds a path waits before it answers, as a busy core's would. */
    slow?: Record<string, number>
  } = {},
) {
  const requests: Recorded[] = []
  const sessions = data.sessions ?? [session()]
  const fetch = async (req: Request): Promise<Response> => {
    const url = new URL(req.url)
    const body = req.method === "GET" ? undefined : await req.text().then((t) => (t ? JSON.parse(t) : undefined))
    requests.push({ method: req.method, path: url.pathname, body })
    const wait = data.slow?.[url.pathname]
    if (wait) await new Promise((r) => setTimeout(r, wait))
    const json = (v: unknown) => new Response(JSON.stringify(v), { headers: { "content-type": "application/json" } })
    const p = url.pathname
    if (p === "/agent") return json([{ name: "build", mode: "primary" }, { name: "plan", mode: "primary" }, { name: "general", mode: "subagent" }])
    if (p === "/session/status") return json({})
    if (p === "/command") return json(data.commands ?? [])
    if (p === "/config") return json({ model: "fake/m" })
    // Without `configWarnings` the stub has no warnings route, like an older server.
    if (p === "/config/warnings" && data.configWarnings) return json(data.configWarnings)
    if (p === "/config/providers")
      return json({ providers: [{ id: "fake", name: "Fake", source: "config", env: [], options: {}, models: { m: { id: "m", limit: { context: 1000 } }, big: { id: "big" } } }], default: {} })
    if (p === "/provider")
      return json({
        all: [
          { id: "fake", name: "Fake", source: "config", env: [], options: {}, models: {} },
          { id: "anthropic", name: "Anthropic", source: "api", env: ["ANTHROPIC_API_KEY"], options: {}, models: {} },
          { id: "openai", name: "OpenAI", source: "api", env: ["OPENAI_API_KEY"], options: {}, models: {} },
        ],
        default: {},
        connected: ["fake"],
      })
    if (p.startsWith("/auth/") && (req.method === "PUT" || req.method === "DELETE")) return json(true)
    if (p === "/permission" || p === "/question") return json([])
    // Without `trust` the stub has no trust route, like an older server.
    if (p === "/trust" && data.trust) return json(req.method === "POST" ? { ...data.trust, trusted: true, source: "record", changed: false, ignored: [] } : data.trust)
    if (p === "/session" && req.method === "GET") return json(sessions)
    if (p === "/session" && req.method === "POST") return json(sessions[0])
    const m = /^\/session\/([^/]+)(\/message)?$/.exec(p)
    if (m && req.method === "GET" && !m[2]) return json(sessions.find((s) => s.id === m[1]))
    if (m && m[2] && req.method === "GET") {
      const all = data.messages?.[m[1]!] ?? []
      const before = url.searchParams.get("before")
      const limit = Number(url.searchParams.get("limit") ?? all.length)
      const list = before ? all.filter((x) => x.info.id < before) : all
      return json(list.slice(Math.max(0, list.length - limit)))
    }
    if (m && !m[2] && req.method === "DELETE") return json(true)
    if (req.method === "POST") return json(true)
    return new Response(JSON.stringify({ name: "NotFoundError", data: { message: "no route" } }), { status: 404 })
  }
  const listeners = new Set<(e: BusEvent) => void>()
  return {
    requests,
    client: createClient({ baseUrl: "http://stub", fetch, directory: "/tmp/project" }),
    events: { subscribe: (fn: (e: BusEvent) => void) => (listeners.add(fn), () => void listeners.delete(fn)) },
    emit: (e: BusEvent) => {
      for (const fn of listeners) fn(e)
    },
  }
}

/** The real App over the stub, with the store's event feed wired like runTui does. */
export function mount(stub: ReturnType<typeof stubServer>) {
  const store = createStore()
  const controller = createController({ client: stub.client, store, directory: "/tmp/project" })
  stub.events.subscribe(store.apply)
  let exited = 0
  const ui = render(<App store={store} controller={controller} onExit={() => exited++} />)
  return { ...ui, store, controller, exited: () => exited }
}

export const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms))
