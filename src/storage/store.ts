import type { Message, MessageWithParts, Part, Session, Todo } from "../protocol"
import type { DB } from "./database"
import { createEventLog, type EventLogOptions } from "./event-log"

export interface SessionQuery {
  projectID?: string
  directory?: string
  parentID?: string | null
  /** Only sessions without a parent. */
  roots?: boolean
  search?: string
  limit?: number
  archived?: boolean
}

/**
 * Repositories over the four tables. Rows keep the whole object as JSON in `data`, plus the
 * columns we filter and sort on. Every write is its own statement (or transaction), so
 * whatever returned before a crash is on disk.
 */
/**
 * Gives a tool state an `output` read from disk each time it is read (not kept in memory).
 * JSON.stringify, spread and structuredClone all read it, so callers see a plain string;
 * assigning replaces it with a plain value.
 */
function lazyOutput(state: object, read: () => string) {
  Object.defineProperty(state, "output", {
    enumerable: true,
    configurable: true,
    get: read,
    set(value: string) {
      Object.defineProperty(state, "output", { value, enumerable: true, configurable: true, writable: true })
    },
  })
}

/** True when a part's tool output was left on disk at load (it is cleared for the model). */
export function outputOnDisk(part: Part): boolean {
  return part.type === "tool" && typeof Object.getOwnPropertyDescriptor(part.state, "output")?.get === "function"
}

export function createStore(db: DB, opts: { events?: EventLogOptions } = {}) {
  const q = {
    sessionUpsert: db.prepare(
      `INSERT INTO session (id, project_id, parent_id, directory, title, time_created, time_updated, time_archived, data)
       VALUES (@id, @project_id, @parent_id, @directory, @title, @time_created, @time_updated, @time_archived, @data)
       ON CONFLICT(id) DO UPDATE SET title=excluded.title, time_updated=excluded.time_updated,
         time_archived=excluded.time_archived, data=excluded.data`,
    ),
    sessionGet: db.prepare(`SELECT data FROM session WHERE id = ?`),
    sessionDelete: db.prepare(`DELETE FROM session WHERE id = ?`),
    sessionChildren: db.prepare(`SELECT data FROM session WHERE parent_id = ? ORDER BY id`),
    messageUpsert: db.prepare(
      `INSERT INTO message (id, session_id, time_created, data) VALUES (?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET data=excluded.data`,
    ),
    messageGet: db.prepare(`SELECT data FROM message WHERE id = ?`),
    messageDelete: db.prepare(`DELETE FROM message WHERE id = ?`),
    messagesOf: db.prepare(`SELECT data FROM message WHERE session_id = ? ORDER BY id`),
    messagesNewest: db.prepare(`SELECT data FROM message WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`),
    // instr() first: only rows that look like an open assistant message are parsed as JSON.
    openStep: db.prepare(
      `SELECT 1 FROM message WHERE session_id = ? AND instr(data, '"role":"assistant"') > 0 AND instr(data, '"completed":') = 0
         AND json_extract(data, '$.role') = 'assistant' AND json_extract(data, '$.time.completed') IS NULL LIMIT 1`,
    ),
    partsOfType: db.prepare(
      `SELECT data, output FROM part WHERE session_id = ? AND instr(data, '"type":"' || ? || '"') > 0 AND json_extract(data, '$.type') = ? ORDER BY message_id, id`,
    ),
    partUpsert: db.prepare(
      `INSERT INTO part (id, message_id, session_id, data, compacted, output) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET data=excluded.data, compacted=excluded.compacted, output=excluded.output`,
    ),
    partDelete: db.prepare(`DELETE FROM part WHERE id = ?`),
    // A cleared (compacted) output is not read: the part gets a getter that reads it on demand.
    partsOfSession: db.prepare(`SELECT data, CASE WHEN compacted IS NULL THEN output END AS output FROM part WHERE session_id = ? ORDER BY message_id, id`),
    partsOfMessage: db.prepare(`SELECT data, output FROM part WHERE message_id = ? ORDER BY id`),
    partOutput: db.prepare(`SELECT output FROM part WHERE id = ?`).pluck(),
    todoDelete: db.prepare(`DELETE FROM todo WHERE session_id = ?`),
    todoInsert: db.prepare(`INSERT INTO todo (session_id, position, data) VALUES (?, ?, ?)`),
    todoGet: db.prepare(`SELECT data FROM todo WHERE session_id = ? ORDER BY position`),
  }
  const parse = <T>(row: unknown): T => JSON.parse((row as { data: string }).data) as T
  const readOutput = (id: string) => (q.partOutput.get(id) as string | null | undefined) ?? ""
  const parsePart = (row: unknown): Part => {
    const part = parse<Part>(row)
    const output = (row as { output: string | null }).output
    if (part.type === "tool" && (part.state as { output?: unknown }).output === null) {
      if (output !== null) (part.state as { output: string }).output = output
      else lazyOutput(part.state, () => readOutput(part.id))
    }
    return part
  }

  const sessions = {
    put(s: Session) {
      q.sessionUpsert.run({
        id: s.id,
        project_id: s.projectID,
        parent_id: s.parentID ?? null,
        directory: s.directory,
        title: s.title,
        time_created: s.time.created,
        time_updated: s.time.updated,
        time_archived: s.time.archived ?? null,
        data: JSON.stringify(s),
      })
    },
    get(id: string): Session | undefined {
      const row = q.sessionGet.get(id)
      return row ? parse<Session>(row) : undefined
    },
    list(query: SessionQuery = {}): Session[] {
      const where: string[] = []
      const args: unknown[] = []
      if (query.projectID !== undefined) where.push("project_id = ?"), args.push(query.projectID)
      if (query.directory !== undefined) where.push("directory = ?"), args.push(query.directory)
      if (query.parentID) where.push("parent_id = ?"), args.push(query.parentID)
      if (query.roots || query.parentID === null) where.push("parent_id IS NULL")
      if (query.search) where.push("title LIKE ? ESCAPE '\\'"), args.push(`%${query.search.replace(/[\\%_]/g, "\\$&")}%`)
      if (query.archived === false) where.push("time_archived IS NULL")
      const sql = `SELECT data FROM session ${where.length ? "WHERE " + where.join(" AND ") : ""}
        ORDER BY time_updated DESC, id ASC ${query.limit ? "LIMIT " + Math.max(0, Math.floor(query.limit)) : ""}`
      return db.prepare(sql).all(...args).map((r) => parse<Session>(r))
    },
    children(id: string): Session[] {
      return q.sessionChildren.all(id).map((r) => parse<Session>(r))
    },
    /** Deletes a session with its messages, parts, todos and child sessions. */
    remove(id: string) {
      db.transaction(() => {
        const stack = [id]
        while (stack.length) {
          const next = stack.pop()!
          for (const child of q.sessionChildren.all(next)) stack.push(parse<Session>(child).id)
          q.sessionDelete.run(next)
        }
      })()
    },
  }

  const messages = {
    put(m: Message) {
      q.messageUpsert.run(m.id, m.sessionID, m.time.created, JSON.stringify(m))
    },
    get(id: string): Message | undefined {
      const row = q.messageGet.get(id)
      return row ? parse<Message>(row) : undefined
    },
    remove(id: string) {
      q.messageDelete.run(id)
    },
    /** The newest `limit` messages before the message id `before` (all when absent), oldest first, parts with their outputs. */
    page(sessionID: string, opts: { limit: number; before?: string }): MessageWithParts[] {
      const rows = q.messagesNewest.all(sessionID, opts.before ?? "\uffff", Math.max(0, Math.floor(opts.limit)))
      return rows.reverse().map((row) => {
        const info = parse<Message>(row)
        return { info, parts: q.partsOfMessage.all(info.id).map(parsePart) }
      })
    },
    /** True when an assistant message of the session has no completion time (a step cut off, or running). */
    hasOpenStep(sessionID: string): boolean {
      return q.openStep.get(sessionID) !== undefined
    },
    /** All messages of a session with their parts, oldest first. */
    list(sessionID: string): MessageWithParts[] {
      const byMessage = new Map<string, Part[]>()
      for (const row of q.partsOfSession.all(sessionID)) {
        const part = parsePart(row)
        let list = byMessage.get(part.messageID)
        if (!list) byMessage.set(part.messageID, (list = []))
        list.push(part)
      }
      return q.messagesOf.all(sessionID).map((row) => {
        const info = parse<Message>(row)
        return { info, parts: byMessage.get(info.id) ?? [] }
      })
    },
  }

  const parts = {
    /** A tool part's output goes to its own column (`data` keeps a null in its place). */
    put(p: Part) {
      const state = p.type === "tool" ? (p.state as { output?: unknown; time?: { compacted?: number } }) : undefined
      if (!state || typeof state.output !== "string") return void q.partUpsert.run(p.id, p.messageID, p.sessionID, JSON.stringify(p), null, null)
      const output = state.output
      const data = JSON.stringify(p, function (this: unknown, key: string, value: unknown) {
        return key === "output" && this === state ? null : value
      })
      q.partUpsert.run(p.id, p.messageID, p.sessionID, data, state.time?.compacted ?? null, output)
    },
    remove(id: string) {
      q.partDelete.run(id)
    },
    /**
     * Lets a stored tool part whose output was cleared (compacted) read the output from disk
     * from now on instead of holding it; a no-op for any other part.
     */
    releaseOutput(p: Part) {
      const state = p.type === "tool" ? (p.state as { output?: unknown; time?: { compacted?: number } }) : undefined
      if (!state?.time?.compacted || typeof Object.getOwnPropertyDescriptor(state, "output")?.value !== "string") return
      lazyOutput(state, () => readOutput(p.id))
    },
    /** A session's parts of one type, in message order. */
    ofType(sessionID: string, type: Part["type"]): Part[] {
      return q.partsOfType.all(sessionID, type, type).map(parsePart)
    },
    ofMessage(messageID: string): Part[] {
      return q.partsOfMessage.all(messageID).map(parsePart)
    },
  }

  const todos = {
    set(sessionID: string, list: Todo[]) {
      db.transaction(() => {
        q.todoDelete.run(sessionID)
        list.forEach((t, i) => q.todoInsert.run(sessionID, i, JSON.stringify(t)))
      })()
    },
    get(sessionID: string): Todo[] {
      return q.todoGet.all(sessionID).map((r) => parse<Todo>(r))
    },
  }

  return { db, sessions, messages, parts, todos, events: createEventLog(db, opts.events), transaction: <T>(fn: () => T): T => db.transaction(fn)() }
}

export type Store = ReturnType<typeof createStore>
