import { z } from "zod"
import { EventEnvelope, GlobalEvent, HealthInfo } from "../../protocol"
import type { App } from "../../session"
import { route } from "../route"
import { eventJson, sseResponse } from "../sse"

export const eventRoutes = [
  route({
    method: "get",
    path: "/global/health",
    operationId: "global.health",
    summary: "Whether the server is up, and its version",
    tags: ["global"],
    global: true,
    response: HealthInfo,
    handler: ({ server }) => ({ healthy: true, version: server.version }),
  }),
  route({
    method: "get",
    path: "/global/event",
    operationId: "global.event",
    summary: "Server-sent events of every project, each as {directory, payload}: server.connected first, heartbeats every 10 s",
    tags: ["global"],
    global: true,
    response: GlobalEvent,
    handler: ({ c, server }) => {
      const directoryOf = new WeakMap<object, string>()
      const format = (event: object) => `{"directory":${JSON.stringify(directoryOf.get(event) ?? server.directory)},"payload":${eventJson(event)}}`
      return sseResponse(
        AbortSignal.any([c.req.raw.signal, server.signal]),
        (send) => {
          const subscriptions: (() => void)[] = []
          const attach = (app: App) =>
            subscriptions.push(
              app.bus.subscribeAll((event) => {
                directoryOf.set(event, app.directory)
                send(event)
              }),
            )
          for (const app of server.apps()) attach(app)
          subscriptions.push(server.onApp(attach))
          // The default project is always part of the stream, even before any request reached it.
          server.getApp(server.directory).catch(() => {})
          return () => subscriptions.forEach((off) => off())
        },
        { format },
      )
    },
  }),
  route({
    method: "get",
    path: "/event",
    operationId: "event.subscribe",
    summary: "Server-sent events of one project: server.connected first, then every bus event, heartbeats every 10 s; ends after server.instance.disposed",
    tags: ["event"],
    response: EventEnvelope,
    query: z.object({
      coalesce: z.enum(["true", "false"]).optional().describe("merge consecutive text deltas of one part into one event (same final text, fewer events)"),
    }),
    handler: ({ app, c, server, query }) =>
      sseResponse(
        AbortSignal.any([c.req.raw.signal, server.signal]),
        (send, end) =>
          app.bus.subscribeAll((event) => {
            send(event)
            // The project was reloaded: this App publishes no more; the client reconnects to the new one.
            if (event.type === "server.instance.disposed") end()
          }),
        { coalesce: query.coalesce === "true", log: app.log },
      ),
  }),
]
