import { route } from "../route"
import { sseResponse } from "../sse"

export const eventRoutes = [
  route({
    method: "get",
    path: "/event",
    operationId: "event.subscribe",
    summary: "Server-sent events of one project: server.connected first, then every bus event, heartbeats every 10 s",
    tags: ["event"],
    handler: ({ app, c }) => sseResponse(c.req.raw.signal, (send) => app.bus.subscribeAll(send)),
  }),
]
