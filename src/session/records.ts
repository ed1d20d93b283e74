// A session's stored record and its events: every write of a Session (the service, titles,
// usage totals) goes through here, so `session.created` / `session.updated` always follow.
import type { Bus } from "../bus"
import type { Session } from "../protocol"
import type { Store } from "../storage"

export function createSessionRecords(deps: { store: Store; bus: Bus }) {
  function save(s: Session, event: "session.created" | "session.updated"): Session {
    deps.store.sessions.put(s)
    deps.bus.publish(event, { sessionID: s.id, info: s })
    return s
  }
  return {
    get: (id: string): Session | undefined => deps.store.sessions.get(id),
    save,
    /** Applies `change` to the stored session (and bumps `time.updated`); undefined when it is gone. */
    update(id: string, change: (s: Session) => Session): Session | undefined {
      const s = deps.store.sessions.get(id)
      if (!s) return undefined
      const next = change(s)
      return save({ ...next, time: { ...next.time, updated: Date.now() } }, "session.updated")
    },
  }
}
export type SessionRecords = ReturnType<typeof createSessionRecords>
