import { z } from "zod"
import { EventEnvelope, GlobalEvent, HealthInfo } from "../../protocol"
import type { App } from "../../session"
import { route } from "../route"
import { resumeAfter, sendReplay } from "../replay"
import { eventJson, sseResponse } from "../sse"

const resumeQuery = {
  after: z.string().optional().describe("resume after this event id (when the Last-Event-ID header cannot be sent): the logged events after it are sent first"),
}
const RESUME = " Each logged (session) event carries its seq as `id:`; a client that sends `Last-Event-ID` (or `?after=`) first gets the logged events after it, or `server.resync` when they are gone."

/** How often a session's stream looks for events other processes logged (SQLite data_version). */
const TAIL_MS = 250

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
    summary: "Server-sent events of every project, each as {directory, payload}: server.connected first, heartbeats every 10 s." + RESUME,
    tags: ["global"],
    global: true,
    response: GlobalEvent,
    query: z.object(resumeQuery),
    handler: async ({ c, server, query }) => {
      const directoryOf = new WeakMap<object, string>()
      const wrap = (json: string, directory = server.directory) => `{"directory":${JSON.stringify(directory)},"payload":${json}}`
      const format = (event: object) => wrap(eventJson(event), directoryOf.get(event))
      const after = resumeAfter(c, query.after)
      // Every App of this process shares the store, and with it the log (none when the
      // default project cannot load: the stream goes on without ids).
      const log = await server.getApp(server.directory).then((a) => a.store.events, () => undefined)
      return sseResponse(
        AbortSignal.any([c.req.raw.signal, server.signal]),
        (_send, _end, sink) => {
          if (after !== undefined && log?.enabled) sendReplay(sink, log.replay(after), wrap)
          const send = sink.send
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
          return () => subscriptions.forEach((off) => off())
        },
        { format, ...logIds(log, after) },
      )
    },
  }),
  route({
    method: "get",
    path: "/event",
    operationId: "event.subscribe",
    summary: "Server-sent events of one project: server.connected first, then every bus event, heartbeats every 10 s; ends after server.instance.disposed." + RESUME,
    tags: ["event"],
    response: EventEnvelope,
    query: z.object({
      coalesce: z.enum(["true", "false"]).optional().describe("merge consecutive text deltas of one part into one event (same final text, fewer events)"),
      ...resumeQuery,
    }),
    handler: ({ app, c, server, query }) => {
      const after = resumeAfter(c, query.after)
      const log = app.store.events
      return sseResponse(
        AbortSignal.any([c.req.raw.signal, server.signal]),
        (send, end, sink) => {
          // Synchronous from the replay to the subscription: nothing is published in between,
          // and what was published before has its seq (replay writes the log's queue first).
          if (after !== undefined && log.enabled) sendReplay(sink, log.replay(after, { directory: app.directory }))
          return app.bus.subscribeAll((event) => {
            send(event)
            // The project was reloaded: this App publishes no more; the client reconnects to the new one.
            if (event.type === "server.instance.disposed") end()
          })
        },
        { coalesce: query.coalesce === "true", log: app.log, ...logIds(log, after) },
      )
    },
  }),
  route({
    method: "get",
    path: "/session/:id/event",
    operationId: "session.event",
    summary:
      "Server-sent events of one session, read from the event log: server.connected, the logged events after `after` (or Last-Event-ID; none without either), then each event as it is logged, by this or another process. Each carries its seq as `id:`; `server.resync` when the asked ones are gone.",
    tags: ["session"],
    response: EventEnvelope,
    query: z.object(resumeQuery),
    handler: ({ app, c, server, query, params }) => {
      const sessionID = params.id!
      app.sessions.get(sessionID)
      const log = app.store.events
      const resume = resumeAfter(c, query.after)
      return sseResponse(
        AbortSignal.any([c.req.raw.signal, server.signal]),
        (_send, _end, sink) => {
          let after = resume ?? log.head()
          const pull = () => {
            const replay = log.replay(after, { sessionID })
            sendReplay(sink, replay)
            after = replay.resync ? replay.head : replay.events.at(-1)?.seq ?? after
          }
          if (resume !== undefined) pull()
          // This process's events: right after each write of the log. Other processes': when
          // the database changed under us.
          const offFlush = log.onFlush(pull)
          let version = app.store.db.pragma("data_version", { simple: true })
          const tail = setInterval(() => {
            const now = app.store.db.pragma("data_version", { simple: true })
            if (now !== version) (version = now), pull()
          }, TAIL_MS)
          tail.unref()
          return () => {
            offFlush()
            clearInterval(tail)
          }
        },
        { log: app.log, connectedId: resume === undefined ? () => log.head() : undefined },
      )
    },
  }),
]

/** The stream options that give live events their seq as `id:` (a fresh stream's first frame gets the head). */
function logIds(log: App["store"]["events"] | undefined, after: number | undefined) {
  if (!log?.enabled) return {}
  return { ticketOf: log.ticketOf, idOf: log.seqOfTicket, beforeFlush: log.flush, connectedId: after === undefined ? () => log.head() : undefined }
}
