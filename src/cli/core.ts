import path from "node:path"
import type { Config } from "../config"
import { createServer } from "../server"
import { createApps } from "../session"
import { databasePath, openStore } from "../storage"
import { VERSION } from "./ui"

/**
 * The core of one process: the database, an App per project directory, and the HTTP
 * server in front of them. Front ends talk to `server.fetch` (in-process) or a port.
 */
export async function startCore(opts: { directory: string; overrides?: Partial<Config>; env?: NodeJS.ProcessEnv }) {
  const env = opts.env ?? process.env
  const store = openStore(databasePath(env))
  const apps = createApps({ store, env, overrides: opts.overrides, version: VERSION })
  const directory = path.resolve(opts.directory)
  // Fail fast on config errors, before any command output.
  const app = await apps.get(directory)
  // PATCH /config reloads the project's App so the next request builds it with the new config.
  const server = createServer({ directory, getApp: apps.get, version: VERSION, reloadApp: apps.reload })
  return {
    app,
    server,
    store,
    async close() {
      await apps.dispose()
      store.close()
    },
  }
}
