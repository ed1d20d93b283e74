// The HTTP API: OpenCode's routes on Hono. One server serves several projects; the
// `directory` query parameter or `x-opencode-directory` header picks the project's App.
// Routes only translate HTTP to App calls; errors become `{name, data}` with a status code.
// Which directories a request may name is decided here, for every caller (directories.ts);
// Host, Origin and auth wrap this app when it listens on a port (listener.ts).
import { statSync } from "node:fs"
import path from "node:path"
import { Hono } from "hono"
import { BadRequestError, UnknownError } from "../protocol"
import { createShells, type App, type Shells } from "../session"
import { directoryRule } from "./directories"
import { errorResponse } from "./error"
import { agentRoutes } from "./routes/agent"
import { authRoutes } from "./routes/auth"
import { providerLoginRoutes } from "./routes/provider-login"
import { configRoutes } from "./routes/config"
import { debugRoutes } from "./routes/debug"
import { eventRoutes } from "./routes/event"
import { fileRoutes } from "./routes/file"
import { lspRoutes } from "./routes/lsp"
import { mcpRoutes } from "./routes/mcp"
import { sessionMcpRoutes } from "./routes/session-mcp"
import { sessionEditorRoutes } from "./routes/session-editor"
import { pluginRoutes } from "./routes/plugin"
import { trustRoutes } from "./routes/trust"
import { messageRoutes } from "./routes/message"
import { inboxRoutes } from "./routes/inbox"
import { permissionRoutes } from "./routes/permission"
import { projectRoutes } from "./routes/project"
import { sessionRoutes } from "./routes/session"
import { toolRoutes } from "./routes/tool"
import { openapi, register, route, type Route, type ServerContext, type ServerEnv } from "./route"

export interface ServerOptions {
  /** The project used when a request names none. */
  directory: string
  /** Returns (creating once) the App of a project directory. */
  getApp(directory: string): Promise<App>
  /** Forgets a project's App so the next `getApp` loads it afresh (after PATCH /config). */
  reloadApp?(directory: string): Promise<void>
  version: string
  /** Trees requests may name besides `directory` (the user's --allow-dir and global `server.directories`). */
  allowedDirectories?: string[]
  /** True for a directory that already has sessions: requests may name it. */
  isKnownProject?(directory: string): boolean
  /** Directories that have sessions, most recently used first (GET /project). */
  projects?(): string[]
}

export function createServer(opts: ServerOptions) {
  const hono = new Hono<ServerEnv>()
  hono.onError((e, c) => errorResponse(e, c))
  hono.notFound((c) => c.json({ name: "NotFoundError", data: { message: `No route for ${c.req.method} ${c.req.path}` } }, 404))

  const known = new Set<App>()
  const listeners = new Set<(app: App) => void>()
  const shells = new WeakMap<App, Shells>()
  const lifetime = new AbortController()
  const context: ServerContext = {
    version: opts.version,
    directory: path.resolve(opts.directory),
    async getApp(directory) {
      const app = await opts.getApp(directory)
      if (!known.has(app)) {
        known.add(app)
        for (const fn of [...listeners]) fn(app)
      }
      return app
    },
    apps: () => [...known],
    onApp(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    shells(app) {
      let s = shells.get(app)
      if (!s) shells.set(app, (s = createShells(app)))
      return s
    },
    reloadApp: opts.reloadApp
      ? async (directory) => {
          for (const app of known) {
            if (app.directory !== path.resolve(directory)) continue
            known.delete(app)
            app.bus.publish("server.instance.disposed", { directory: app.directory })
          }
          await opts.reloadApp!(directory)
        }
      : undefined,
    signal: lifetime.signal,
    projects: opts.projects,
  }

  const routes: Route<any, any>[] = [
    route({
      method: "get",
      path: "/doc",
      operationId: "doc",
      summary: "This OpenAPI document",
      global: true,
      handler: () => openapi(routes, { title: "wright", version: opts.version }),
    }),
    ...eventRoutes,
    ...sessionRoutes,
    ...messageRoutes,
    ...inboxRoutes,
    ...permissionRoutes,
    ...configRoutes,
    ...agentRoutes,
    ...fileRoutes,
    ...toolRoutes,
    ...mcpRoutes,
    ...sessionMcpRoutes,
    ...sessionEditorRoutes,
    ...pluginRoutes,
    ...lspRoutes,
    ...trustRoutes,
    ...projectRoutes,
    ...authRoutes,
    ...providerLoginRoutes,
    ...debugRoutes,
  ]
  const globalPaths = new Set(routes.filter((r) => r.global).map((r) => r.path))
  const checkDirectory = directoryRule({ start: context.directory, allowed: opts.allowedDirectories, isKnownProject: opts.isKnownProject })

  hono.use("*", async (c, next) => {
    if (globalPaths.has(c.req.path)) return next()
    const header = c.req.header("x-opencode-directory")
    const named = c.req.query("directory") ?? (header ? safeDecode(header) : undefined)
    const directory = named === undefined ? context.directory : path.resolve(context.directory, named)
    if (named !== undefined) checkDirectory(directory)
    if (named !== undefined && !statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
      const where = c.req.query("directory") !== undefined ? "query.directory" : "header.x-opencode-directory"
      throw new BadRequestError({ message: `Invalid request: ${where}: not a directory: ${directory}`, issues: [{ path: where, message: `not a directory: ${directory}` }] })
    }
    try {
      c.set("app", await context.getApp(directory))
    } catch (e) {
      if (e instanceof Error && e.name === "ConfigError") throw e
      throw new UnknownError({ message: `Cannot open project ${directory}: ${(e as Error).message}` }, { cause: e })
    }
    await next()
  })
  register(hono, routes, context)

  return {
    hono,
    fetch: async (req: Request): Promise<Response> => hono.fetch(req),
    routes,
    /** Ends every event stream and stops running user shell commands (the Apps are the host's to dispose). */
    dispose() {
      lifetime.abort()
      for (const app of known) shells.get(app)?.abortAll()
    },
  }
}

function safeDecode(s: string) {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export type Server = ReturnType<typeof createServer>
