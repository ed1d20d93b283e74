// Message-level undo. `revert` marks a point in a session (a message, or a part inside one):
// the messages from there on are hidden but kept, so `unrevert` can bring them back. The
// next prompt (or user shell) commits the revert by deleting what was hidden. Restoring
// files belongs to snapshots, not here.
import type { Bus } from "../bus"
import { NotFoundError, sessionNotFound, type MessageWithParts, type Session, type SessionRevertInput } from "../protocol"
import type { Store } from "../storage"
import type { History } from "./history"
import type { Runner } from "./runner"

export interface RevertDeps {
  store: Store
  bus: Bus
  history: History
}

function getSession(store: Store, sessionID: string): Session {
  const session = store.sessions.get(sessionID)
  if (!session) throw sessionNotFound(sessionID)
  return session
}

function save(deps: RevertDeps, session: Session): Session {
  deps.store.sessions.put(session)
  deps.bus.publish("session.updated", { sessionID: session.id, info: session })
  return session
}

/**
 * Marks the revert point. Reverting a whole message reverts the prompt that led to it; a
 * part keeps the parts before it, unless none of them is text or a tool call. 409 when busy.
 */
export function revert(deps: RevertDeps & { runner: Runner }, sessionID: string, input: SessionRevertInput): Session {
  const session = getSession(deps.store, sessionID)
  deps.runner.assertIdle(sessionID)
  const messages = deps.history.messages(sessionID)
  const index = messages.findIndex((m) => m.info.id === input.messageID)
  if (index === -1) throw new NotFoundError({ message: `Message not found in session ${sessionID}: ${input.messageID}` })
  const target = messages[index]!
  const promptID = lastUserAtOrBefore(messages, index) ?? target.info.id

  let point: { messageID: string; partID?: string } = { messageID: promptID }
  if (input.partID) {
    const at = target.parts.findIndex((p) => p.id === input.partID)
    if (at === -1) throw new NotFoundError({ message: `Part not found in message ${input.messageID}: ${input.partID}` })
    const useful = target.parts.slice(0, at).some((p) => p.type === "text" || p.type === "tool")
    if (useful) point = { messageID: target.info.id, partID: input.partID }
  }
  return save(deps, { ...session, revert: point, time: { ...session.time, updated: Date.now() } })
}

/** Clears the revert point: the hidden messages show again. 409 when busy. */
export function unrevert(deps: RevertDeps & { runner: Runner }, sessionID: string): Session {
  const session = getSession(deps.store, sessionID)
  deps.runner.assertIdle(sessionID)
  if (!session.revert) return session
  const { revert: _cleared, ...rest } = session
  return save(deps, { ...rest, time: { ...session.time, updated: Date.now() } })
}

/** The messages a client sees: everything before the revert point (and the parts before a part point). */
export function visibleMessages(session: Session, messages: MessageWithParts[]): MessageWithParts[] {
  const point = session.revert
  if (!point) return messages
  const index = messages.findIndex((m) => m.info.id === point.messageID)
  if (index === -1) return messages.filter((m) => m.info.id < point.messageID)
  if (!point.partID) return messages.slice(0, index)
  const target = messages[index]!
  const cut = target.parts.findIndex((p) => p.id === point.partID)
  return [...messages.slice(0, index), { info: target.info, parts: cut === -1 ? target.parts : target.parts.slice(0, cut) }]
}

/**
 * Commits a pending revert: permanently deletes the hidden messages and parts and clears
 * the point. Called before a new prompt or user shell is stored; a no-op without a revert.
 */
export function cleanupRevert(deps: RevertDeps, sessionID: string): void {
  const session = deps.store.sessions.get(sessionID)
  const point = session?.revert
  if (!session || !point) return
  const messages = deps.history.messages(sessionID)
  const index = messages.findIndex((m) => m.info.id === point.messageID)
  const keepWhole = point.partID && index !== -1
  const doomed = messages.filter((m, i) => (index === -1 ? m.info.id >= point.messageID : keepWhole ? i > index : i >= index))
  if (keepWhole) {
    const target = messages[index]!
    const cut = target.parts.findIndex((p) => p.id === point.partID)
    if (cut !== -1) for (const p of target.parts.slice(cut)) deps.history.removePart(sessionID, target.info.id, p.id)
  }
  for (const m of doomed.map((m) => m.info.id)) deps.history.removeMessage(sessionID, m)
  const { revert: _committed, ...rest } = session
  save(deps, { ...rest, time: { ...session.time, updated: Date.now() } })
}

function lastUserAtOrBefore(messages: MessageWithParts[], index: number): string | undefined {
  for (let i = index; i >= 0; i--) if (messages[i]!.info.role === "user") return messages[i]!.info.id
  return undefined
}
