import os from "node:os"
import path from "node:path"
import type { Config } from "../config"
import { createServer } from "../server"
import { createApps } from "../session"
import { databasePath, openStore } from "../storage"
import { silentLogger, type Logger, type RootLogger } from "../util"
import { VERSION } from "./ui"

/**
 * The core of one process: the database, an App per project directory, and the HTTP
 * server in front of them. Front ends talk to `server.fetch` (in-process) or a port.
 * Requests may name the start directory (and what is inside it), `allowDirs`, the global
 * config's `server.directories` and projects that already have sessions; nothing else.
 */
export async function startCore(opts: { directory: string; overrides?: Partial<Config>; env?: NodeJS.ProcessEnv; allowDirs?: string[]; log?: RootLogger; progress?: (line: string) => void }) {
  const env = opts.env ?? process.env
  const log: Logger = opts.log ?? silentLogger
  const store = openStore(databasePath(env))
  // Plugins get an SDK client over this process's server, which exists once the first App does.
  let serverFetch: ((req: Request) => Response | Promise<Response>) | undefined
  const apps = createApps({ store, env, overrides: opts.overrides, version: VERSION, log, progress: opts.progress, serverFetch: () => serverFetch })
  const directory = path.resolve(opts.directory)
  // Fail fast on config errors, before any command output.
  const app = await apps.get(directory)
  opts.log?.fallbackLevel(app.config.logLevel)
  // `startup`: whether this process came from bin/wright's startup snapshot or loaded the ESM build.
  const startup = process.execArgv.includes("--snapshot-blob") ? "snapshot" : "esm"
  log.child({ service: "core" }).info("wright started", { version: VERSION, pid: process.pid, directory, trusted: app.trust.trusted, startup })
  const home = env.HOME || os.homedir()
  const configured = (app.userConfig.server?.directories ?? []).map((d) => path.resolve(home, d.replace(/^~(?=$|\/)/, home)))
  // PATCH /config reloads the project's App so the next request builds it with the new config.
  const server = createServer({
    directory,
    getApp: apps.get,
    version: VERSION,
    reloadApp: apps.reload,
    allowedDirectories: [...(opts.allowDirs ?? []).map((d) => path.resolve(d)), ...configured],
    isKnownProject: (dir) => store.sessions.list({ directory: dir, limit: 1 }).length > 0,
    // The newest sessions' directories: enough for a project list without a new storage query.
    projects: () => [...new Set(store.sessions.list({ roots: true, limit: 500 }).map((s) => s.directory))],
  })
  serverFetch = (req) => server.fetch(req)
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
