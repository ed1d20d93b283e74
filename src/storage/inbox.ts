// A session's inbox: prompts sent while the session was busy, kept until the process running
// the session delivers them. Any process may add, edit or withdraw an item; only the lease
// holder delivers, and `claim` marks an item delivered in the same statement that picks it, so
// an item is delivered once and an edit racing a delivery either lands before it or is refused.
import type { Delivery, InboxItem, PromptInput, SessionCommandInput } from "../protocol"
import type { DB } from "./database"

/** What an item delivers: a prompt as sent, or a command expanded at delivery. */
export interface InboxEntry {
  id: string
  sessionID: string
  delivery: Delivery
  prompt: PromptInput
  command?: SessionCommandInput
  time: { created: number }
}

/** `missing`: no such item in the session; `delivered`: it was delivered already. */
export type InboxChange = "ok" | "missing" | "delivered"

export function createInboxStore(db: DB) {
  const q = {
    insert: db.prepare(`INSERT INTO inbox (id, session_id, delivery, data, time_created) VALUES (?, ?, ?, ?, ?)`),
    pending: db.prepare(`SELECT * FROM inbox WHERE session_id = ? AND time_delivered IS NULL ORDER BY id`),
    get: db.prepare(`SELECT * FROM inbox WHERE id = ? AND session_id = ?`),
    update: db.prepare(`UPDATE inbox SET delivery = ?, data = ? WHERE id = ? AND time_delivered IS NULL`),
    remove: db.prepare(`DELETE FROM inbox WHERE id = ? AND session_id = ? AND time_delivered IS NULL`),
    first: db.prepare(`SELECT * FROM inbox WHERE session_id = ? AND time_delivered IS NULL AND (? IS NULL OR delivery = ?) ORDER BY id LIMIT 1`),
    any: db.prepare(`SELECT 1 FROM inbox WHERE session_id = ? AND time_delivered IS NULL AND (? IS NULL OR delivery = ?) LIMIT 1`).pluck(),
    mark: db.prepare(`UPDATE inbox SET time_delivered = ? WHERE id = ? AND time_delivered IS NULL`),
    delivered: db.prepare(`UPDATE inbox SET message_id = ? WHERE id = ?`),
    turns: db.prepare(`SELECT message_id FROM inbox WHERE session_id = ? AND delivery = 'queue' AND message_id IS NOT NULL AND message_id != ''`).pluck(),
    // One row per session with pending items: a fingerprint of its list, for followers.
    summary: db.prepare(`SELECT session_id, group_concat(id || ':' || delivery || ':' || length(data), ',') AS sig FROM inbox WHERE time_delivered IS NULL GROUP BY session_id`),
  }
  type Row = { id: string; session_id: string; delivery: Delivery; data: string; time_created: number; time_delivered: number | null; message_id: string | null }
  const toEntry = (r: Row): InboxEntry => {
    const data = JSON.parse(r.data) as { prompt: PromptInput; command?: SessionCommandInput }
    return { id: r.id, sessionID: r.session_id, delivery: r.delivery, prompt: data.prompt, ...(data.command ? { command: data.command } : {}), time: { created: r.time_created } }
  }
  const data = (e: Pick<InboxEntry, "prompt" | "command">) => JSON.stringify(e.command ? { prompt: e.prompt, command: e.command } : { prompt: e.prompt })

  const claim = db.transaction((sessionID: string, delivery: Delivery | undefined): InboxEntry | undefined => {
    const row = q.first.get(sessionID, delivery ?? null, delivery ?? null) as Row | undefined
    if (!row) return undefined
    q.mark.run(Date.now(), row.id)
    return toEntry(row)
  })
  const change = db.transaction((sessionID: string, id: string, edit: (e: InboxEntry) => InboxEntry): InboxChange => {
    const row = q.get.get(id, sessionID) as Row | undefined
    if (!row) return "missing"
    if (row.time_delivered !== null) return "delivered"
    const next = edit(toEntry(row))
    q.update.run(next.delivery, data(next), id)
    return "ok"
  })

  return {
    add(e: InboxEntry) {
      q.insert.run(e.id, e.sessionID, e.delivery, data(e), e.time.created)
    },
    /** Items not delivered yet, oldest first. */
    pending: (sessionID: string): InboxEntry[] => (q.pending.all(sessionID) as Row[]).map(toEntry),
    /** Edits an item that is still pending. */
    update: (sessionID: string, id: string, edit: (e: InboxEntry) => InboxEntry): InboxChange => change.immediate(sessionID, id, edit),
    /** Withdraws an item that is still pending. */
    remove(sessionID: string, id: string): InboxChange {
      if (q.remove.run(id, sessionID).changes) return "ok"
      return q.get.get(id, sessionID) ? "delivered" : "missing"
    },
    /** Takes the oldest pending item (of `delivery`, when given) and marks it delivered; undefined: none. */
    // Every step asks: a plain read first, the write transaction only when there is something to take.
    claim: (sessionID: string, delivery?: Delivery): InboxEntry | undefined =>
      q.any.get(sessionID, delivery ?? null, delivery ?? null) ? claim.immediate(sessionID, delivery) : undefined,
    /** Records the user message a delivered item became ("": its delivery failed). */
    delivered(id: string, messageID: string) {
      q.delivered.run(messageID, id)
    },
    /** The user message an item became ("" when its delivery failed; absent while it waits); undefined: no such item. */
    messageOf(sessionID: string, id: string): { delivered: boolean; messageID?: string } | undefined {
      const row = q.get.get(id, sessionID) as Row | undefined
      if (!row) return undefined
      return { delivered: row.time_delivered !== null, ...(row.message_id !== null ? { messageID: row.message_id } : {}) }
    },
    /** The user messages queued items became: each began a turn of its own. */
    turns: (sessionID: string): Set<string> => new Set(q.turns.all(sessionID) as string[]),
    /** A fingerprint of each session's pending list: what a follower compares to see changes. */
    summary: (): Map<string, string> => new Map((q.summary.all() as { session_id: string; sig: string }[]).map((r) => [r.session_id, r.sig])),
  }
}

export type InboxStore = ReturnType<typeof createInboxStore>

/** The API's view of an entry. */
export function inboxItem(e: InboxEntry): InboxItem {
  if (e.command) {
    const text = `/${e.command.command}${e.command.arguments ? ` ${e.command.arguments}` : ""}`
    return {
      id: e.id,
      sessionID: e.sessionID,
      delivery: e.delivery,
      parts: [{ type: "text", text }, ...(e.command.parts ?? [])],
      ...(e.command.agent ? { agent: e.command.agent } : {}),
      command: { name: e.command.command, arguments: e.command.arguments ?? "" },
      time: e.time,
    }
  }
  return {
    id: e.id,
    sessionID: e.sessionID,
    delivery: e.delivery,
    parts: e.prompt.parts,
    ...(e.prompt.agent ? { agent: e.prompt.agent } : {}),
    ...(e.prompt.model ? { model: e.prompt.model } : {}),
    time: e.time,
  }
}
