// A framework-free model of what a remote front end shows, folded from the API's answers
// and bus events: every session known (of every project, from /global/event), their status,
// the messages of the sessions opened, pending permission asks and questions, each session's
// changed files and its queued prompts. It mutates in place and bumps `version`, so a UI
// re-renders on a number and a 2,000-message session is not copied per text delta.
import type { BusEvent, FileDiff, Message, MessageWithParts, Part, PermissionRequest, QuestionRequest, Session, SessionStatus } from "../protocol"

/** A prompt stored while the session works (GET /session/:id/inbox). */
export interface InboxItem {
  id: string
  sessionID: string
  delivery: "steer" | "queue"
  parts: { type: string; text?: string }[]
  time: { created: number }
}

export interface SessionState {
  version: number
  /** Sessions by id, with the project directory they belong to. */
  sessions: Map<string, { info: Session; directory: string }>
  status: Map<string, SessionStatus>
  /** Messages (ascending) of the sessions whose history was loaded. */
  messages: Map<string, MessageWithParts[]>
  permissions: Map<string, PermissionRequest>
  questions: Map<string, QuestionRequest>
  diffs: Map<string, FileDiff[]>
  inbox: Map<string, InboxItem[]>
}

export function createSessionState(): SessionState {
  return { version: 0, sessions: new Map(), status: new Map(), messages: new Map(), permissions: new Map(), questions: new Map(), diffs: new Map(), inbox: new Map() }
}

/** Index of the first element whose id is >= id (lists ascend by id). */
function lowerBound<T>(list: T[], id: string, idOf: (t: T) => string): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (idOf(list[mid]!) < id) lo = mid + 1
    else hi = mid
  }
  return lo
}

function upsert<T>(list: T[], item: T, idOf: (t: T) => string): void {
  const id = idOf(item)
  const at = lowerBound(list, id, idOf)
  if (list[at] && idOf(list[at]!) === id) list[at] = item
  else list.splice(at, 0, item)
}

/** Replaces the loaded history of a session (an answer of GET /session/:id/message). */
export function loadMessages(state: SessionState, sessionID: string, messages: MessageWithParts[]): void {
  state.messages.set(sessionID, [...messages].sort((a, b) => (a.info.id < b.info.id ? -1 : 1)))
  state.version++
}

export function addSessions(state: SessionState, directory: string, sessions: Session[]): void {
  for (const info of sessions) state.sessions.set(info.id, { info, directory })
  state.version++
}

function messageOf(state: SessionState, sessionID: string, messageID: string, create?: Message): MessageWithParts | undefined {
  const list = state.messages.get(sessionID)
  if (!list) return undefined
  const at = lowerBound(list, messageID, (m) => m.info.id)
  if (list[at]?.info.id === messageID) return list[at]
  if (!create) return undefined
  const made = { info: create, parts: [] as Part[] }
  list.splice(at, 0, made)
  return made
}

/**
 * Folds one bus event into the state; `directory` is the project it came from (the global
 * stream says). Returns whether anything changed. Events of sessions whose history is not
 * loaded only touch the list, the status and the prompts.
 */
export function applyEvent(state: SessionState, event: BusEvent, directory: string): boolean {
  const changed = apply(state, event, directory)
  if (changed) state.version++
  return changed
}

function apply(state: SessionState, event: BusEvent, directory: string): boolean {
  switch (event.type) {
    case "session.created":
    case "session.updated": {
      const known = state.sessions.get(event.properties.info.id)
      state.sessions.set(event.properties.info.id, { info: event.properties.info, directory: known?.directory ?? directory })
      return true
    }
    case "session.deleted":
      state.sessions.delete(event.properties.info.id)
      state.messages.delete(event.properties.info.id)
      return true
    case "session.status":
      state.status.set(event.properties.sessionID, event.properties.status)
      return true
    case "session.idle":
      state.status.set(event.properties.sessionID, { type: "idle" })
      return true
    case "session.diff":
      state.diffs.set(event.properties.sessionID, event.properties.diff)
      return true
    case "message.updated": {
      const m = messageOf(state, event.properties.sessionID, event.properties.info.id, event.properties.info)
      if (!m) return false
      m.info = event.properties.info
      return true
    }
    case "message.removed": {
      const list = state.messages.get(event.properties.sessionID)
      if (!list) return false
      const at = list.findIndex((m) => m.info.id === event.properties.messageID)
      if (at !== -1) list.splice(at, 1)
      return at !== -1
    }
    case "message.part.updated": {
      const part = event.properties.part
      const m = messageOf(state, part.sessionID, part.messageID)
      if (!m) return false
      upsert(m.parts, part, (p) => p.id)
      m.parts = [...m.parts]
      return true
    }
    case "message.part.delta": {
      const { sessionID, messageID, partID, field, delta } = event.properties
      const m = messageOf(state, sessionID, messageID)
      const at = m ? lowerBound(m.parts, partID, (p) => p.id) : -1
      const part = m?.parts[at]
      if (!m || !part || part.id !== partID) return false
      const record = part as unknown as Record<string, unknown>
      m.parts[at] = { ...part, [field]: `${typeof record[field] === "string" ? record[field] : ""}${delta}` } as Part
      m.parts = [...m.parts]
      return true
    }
    case "message.part.removed": {
      const m = messageOf(state, event.properties.sessionID, event.properties.messageID)
      if (!m) return false
      m.parts = m.parts.filter((p) => p.id !== event.properties.partID)
      return true
    }
    case "permission.asked":
      state.permissions.set(event.properties.id, event.properties)
      return true
    case "permission.replied":
      return state.permissions.delete(event.properties.requestID)
    case "question.asked":
      state.questions.set(event.properties.id, event.properties)
      return true
    case "question.replied":
    case "question.rejected":
      return state.questions.delete(event.properties.requestID)
    default: {
      // Queued prompts (the inbox): an event this protocol version may not declare yet.
      const e = event as unknown as { type: string; properties: { sessionID?: string; items?: InboxItem[] } }
      if (e.type === "session.inbox.updated" && e.properties.sessionID) {
        state.inbox.set(e.properties.sessionID, e.properties.items ?? [])
        return true
      }
      return false
    }
  }
}

/** Whether a session is working: busy here or in another process, or waiting to retry. */
export const isBusy = (state: SessionState, sessionID: string) => {
  const s = state.status.get(sessionID)
  return s !== undefined && s.type !== "idle"
}
