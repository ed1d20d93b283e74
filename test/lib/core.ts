// An in-process wright for core tests: a sandbox home and project, a config pointing at the
// llm-server, the real App and HTTP server, and our SDK client whose fetch is the server's.
import { writeFileSync, mkdirSync } from "node:fs"
import path from "node:path"
import { createClient, type Client } from "../../src/sdk"
import { createServer } from "../../src/server"
import { createApp, type App } from "../../src/session"
import { openStore } from "../../src/storage"
import type { BusEvent } from "../../src/protocol"
import { providerConfig, sandbox, writeConfig, type Sandbox } from "./e2e"
import type { LLMServer, Protocol } from "./llm-server"

export interface TestCore {
  box: Sandbox
  app: App
  client: Client
  events: BusEvent[]
  close(): Promise<void>
}

export async function testCore(opts: {
  llm: LLMServer
  protocol?: Protocol
  config?: Record<string, unknown>
  /** The user's global config (settings a project cannot make, such as experimental.plugin_timeout). */
  globalConfig?: Record<string, unknown>
  files?: Record<string, string>
  dbFile?: string
  /** Runs on the project before the App starts (git init, …). */
  prepare?: (project: string) => void
  /** An existing sandbox (its home and project) instead of a fresh one. */
  box?: Sandbox
  /** The providers' fetch (default: the global one). */
  fetch?: typeof fetch
}): Promise<TestCore> {
  const box = opts.box ?? sandbox()
  for (const [name, content] of Object.entries(opts.files ?? {})) {
    const file = path.join(box.project, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
  opts.prepare?.(box.project)
  writeConfig(box.project, { ...providerConfig(opts.llm, opts.protocol ?? "openai-chat"), ...opts.config })
  if (opts.globalConfig) {
    const dir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
    mkdirSync(dir, { recursive: true })
    writeConfig(dir, opts.globalConfig)
  }
  const store = openStore(opts.dbFile ?? ":memory:")
  let serverFetch: ((req: Request) => Promise<Response>) | undefined
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, version: "test", fetch: opts.fetch, serverFetch: () => serverFetch })
  const server = createServer({ directory: box.project, getApp: async () => app, version: "test" })
  serverFetch = (req) => server.fetch(req)
  const client = createClient({ baseUrl: "http://wright.test", fetch: server.fetch })
  const events: BusEvent[] = []
  const unsubscribe = app.bus.subscribeAll((e) => events.push(structuredClone(e)))
  return {
    box,
    app,
    client,
    events,
    async close() {
      unsubscribe()
      await app.dispose()
      store.close()
    },
  }
}

/** Text of the last assistant message's text parts. */
export function answerText(msg: { parts: { type: string; text?: string; synthetic?: boolean }[] }): string {
  return msg.parts
    .filter((p) => p.type === "text" && !p.synthetic)
    .map((p) => p.text)
    .join("")
}

export function prompt(text: string, extra: Record<string, unknown> = {}) {
  return { parts: [{ type: "text" as const, text }], ...extra }
}
