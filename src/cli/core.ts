import path from "node:path"
import type { Config } from "../config"
import { createServer } from "../server"
import { createApp, type App } from "../session"
import { databasePath, openStore } from "../storage"
import { VERSION } from "./ui"

/**
 * The core of one process: the database, an App per project directory, and the HTTP
 * server in front of them. Front ends talk to `server.fetch` (in-process) or a port.
 */
export async function startCore(opts: { directory: string; overrides?: Partial<Config>; env?: NodeJS.ProcessEnv }) {
  const env = opts.env ?? process.env
  const store = openStore(databasePath(env))
  const apps = new Map<string, Promise<App>>()
  const getApp = (directory: string) => {
    const dir = path.resolve(directory)
    let app = apps.get(dir)
    if (!app) {
      app = createApp({ directory: dir, store, env, overrides: opts.overrides, version: VERSION })
      app.catch(() => apps.delete(dir))
      apps.set(dir, app)
    }
    return app
  }
  const directory = path.resolve(opts.directory)
  // Fail fast on config errors, before any command output.
  const app = await getApp(directory)
  // PATCH /config: forget the project's App so the next request builds it with the new config.
  const reloadApp = async (d: string) => {
    const dir = path.resolve(d)
    const old = apps.get(dir)
    apps.delete(dir)
    await (await old?.catch(() => undefined))?.dispose()
  }
  const server = createServer({ directory, getApp, version: VERSION, reloadApp })
  return {
    app,
    server,
    store,
    async close() {
      for (const a of apps.values()) await (await a.catch(() => undefined))?.dispose()
      store.close()
    },
  }
}
