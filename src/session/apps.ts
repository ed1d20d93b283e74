import path from "node:path"
import type { Store } from "../storage"
import { createApp, type App, type AppOptions } from "./app"

/**
 * The Apps of one process, one per project directory: built on first use, rebuilt after a
 * reload (a config change), dropped when building fails so the next request tries again.
 */
export function createApps(opts: Omit<AppOptions, "directory"> & { store: Store }) {
  const apps = new Map<string, Promise<App>>()
  return {
    get(directory: string): Promise<App> {
      const dir = path.resolve(directory)
      let app = apps.get(dir)
      if (!app) {
        app = createApp({ ...opts, directory: dir })
        app.catch(() => apps.delete(dir))
        apps.set(dir, app)
      }
      return app
    },
    /** Forgets a project's App (disposing it); the next request builds a new one. */
    async reload(directory: string) {
      const dir = path.resolve(directory)
      const old = apps.get(dir)
      apps.delete(dir)
      await (await old?.catch(() => undefined))?.dispose()
    },
    async dispose() {
      const all = [...apps.values()]
      apps.clear()
      for (const a of all) await (await a.catch(() => undefined))?.dispose()
    },
  }
}
export type Apps = ReturnType<typeof createApps>
