// Replaying the event log into an SSE stream: where a client asks to resume (`Last-Event-ID`,
// else `?after=`), and what it gets (the logged events after that id, or `server.resync`).
import type { Context } from "hono"
import { BadRequestError } from "../protocol"
import type { Replay } from "../storage"
import type { SseSink } from "./sse"

/**
 * The seq a client resumes after: the `Last-Event-ID` header (EventSource sends it when it
 * reconnects), else `?after=`; undefined for a fresh stream. Not a whole number: 400.
 */
export function resumeAfter(c: Context, after: string | undefined): number | undefined {
  const header = c.req.header("last-event-id")
  const [value, name] = header !== undefined && header !== "" ? [header, "the Last-Event-ID header"] : [after, "after"]
  if (value === undefined || value === "") return undefined
  if (!/^\d{1,15}$/.test(value.trim())) throw new BadRequestError({ message: `${name}: not an event id (a whole number from an event's id:): ${value.slice(0, 40)}` })
  return Number(value.trim())
}

/**
 * Sends a replay: each event as first sent, with its seq as `id:`; or one `server.resync`
 * whose id is the log's head, so the client reloads and resumes from there.
 */
export function sendReplay(sink: SseSink, replay: Replay, wrap: (json: string, directory?: string) => string = (json) => json) {
  if (replay.resync) {
    const event = { type: "server.resync", properties: { reason: replay.reason, ...(replay.sessions ? { sessions: replay.sessions } : {}) } }
    return sink.frame(wrap(JSON.stringify(event)), replay.head)
  }
  for (const e of replay.events) sink.frame(wrap(e.json, e.directory), e.seq)
}
