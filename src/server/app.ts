// The HTTP API: OpenCode's routes on Hono. One server serves several projects; the
// `directory` query parameter or `x-opencode-directory` header picks the project's App.
// Routes only translate HTTP to App calls; errors become `{name, data}` with a status code.
import { Hono } from "hono"
import { UnknownError } from "../protocol"
import type { App } from "../session"
import { errorResponse } from "./error"
import { agentRoutes } from "./routes/agent"
import { eventRoutes } from "./routes/event"
import { permissionRoutes } from "./routes/permission"
import { sessionRoutes } from "./routes/session"
import { openapi, register, route, type Route, type ServerEnv } from "./route"

export interface ServerOptions {
  /** The project used when a request names none. */
  directory: string
  /** Returns (creating once) the App of a project directory. */
  getApp(directory: string): Promise<App>
  version: string
}

export function createServer(opts: ServerOptions) {
  const hono = new Hono<ServerEnv>()
  hono.onError((e, c) => errorResponse(e, c))
  hono.notFound((c) => c.json({ name: "NotFoundError", data: { message: `No route for ${c.req.method} ${c.req.path}` } }, 404))

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
    ...permissionRoutes,
    ...agentRoutes,
  ]

  hono.use("*", async (c, next) => {
    const header = c.req.header("x-opencode-directory")
    const directory = c.req.query("directory") ?? (header ? decodeURIComponent(header) : opts.directory)
    try {
      c.set("app", await opts.getApp(directory))
    } catch (e) {
      if (e instanceof Error && e.name === "ConfigError") throw e
      throw new UnknownError({ message: `Cannot open project ${directory}: ${(e as Error).message}` }, { cause: e })
    }
    await next()
  })
  register(hono, routes)
  return { hono, fetch: async (req: Request): Promise<Response> => hono.fetch(req), routes }
}

export type Server = ReturnType<typeof createServer>
