// Forking: a new, independent session holding a copy of another's conversation up to and
// including one message. Every message and part gets a new id (in the same order), so the
// copies never collide with the originals; the fork has no parent and runs on its own.
import { NotFoundError, type Message, type Part, type Session } from "../protocol"
import { Id } from "../util"
import type { History } from "./history"
import { visibleMessages } from "./revert"
import type { SessionService } from "./service"

export interface ForkDeps {
  sessions: SessionService
  history: History
}

/** `Title` → `Title (fork #1)`; `Title (fork #1)` → `Title (fork #2)`. */
export function forkTitle(title: string): string {
  const m = /^(.*) \(fork #(\d+)\)$/.exec(title)
  return m ? `${m[1]} (fork #${Number(m[2]) + 1})` : `${title} (fork #1)`
}

/**
 * Copies the visible messages of `sessionID` that come before `messageID` (all of them
 * without it) into a new session, as OpenCode does: forking "at" a message lets the user
 * take that turn again differently.
 */
export function fork(deps: ForkDeps, sessionID: string, input: { messageID?: string } = {}): Session {
  const source = deps.sessions.get(sessionID)
  const messages = visibleMessages(source, deps.history.messages(sessionID))
  let end = messages.length
  if (input.messageID) {
    const at = messages.findIndex((m) => m.info.id === input.messageID)
    if (at === -1) throw new NotFoundError({ message: `Message not found in session ${sessionID}: ${input.messageID}` })
    end = at
  }

  const created = deps.sessions.create({ title: forkTitle(source.title), ...(source.permission ? { permission: source.permission } : {}) })
  const ids = new Map<string, string>()
  for (const { info, parts } of messages.slice(0, end)) {
    const id = Id.ascending("msg")
    ids.set(info.id, id)
    const copy: Message =
      info.role === "assistant" ? { ...info, id, sessionID: created.id, parentID: ids.get(info.parentID) ?? info.parentID } : { ...info, id, sessionID: created.id }
    deps.history.putMessage(copy)
    for (const part of parts) deps.history.putPart({ ...structuredClone(part), id: Id.ascending("prt"), sessionID: created.id, messageID: id } as Part)
  }
  return deps.sessions.get(created.id)
}
