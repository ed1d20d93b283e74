// A session's inbox (storage/inbox.ts): prompts sent while the session is busy, here or in
// another process. The process running the session delivers them: steering items at each step
// boundary (the loop's `steer` hook, before the next model request), queued items one turn at a
// time when the loop would go idle (the runner's `next`). Every change is published as
// `session.inbox.updated`; changes other processes commit are picked up by `follow`.
import type { Bus } from "../bus"
import { InboxDeliveredError, NotFoundError, type Delivery, type InboxItem, type InboxItemUpdate, type PromptInput, type SessionCommandInput } from "../protocol"
import { inboxItem, type InboxEntry, type InboxStore } from "../storage"
import { Id, type Logger } from "../util"
import { sleep } from "./retry"

export interface InboxDeps {
  store: InboxStore
  bus: Bus
  log?: Logger
  /**
   * Contract: stores the entry's prompt as a user message (a command is expanded first) without
   * running the loop; resolves with the message id. May reject (a hook blocked it, a bad agent):
   * the item is then delivered as failed and the error reaches clients as session.error.
   */
  deliver(entry: InboxEntry): Promise<string>
}

export function createInbox(deps: InboxDeps) {
  const { store, bus } = deps
  let seen = new Map<string, string>()
  // Runs started for the inbox alone: their first step boundary delivers the oldest item.
  const first = new Set<string>()

  function publish(sessionID: string) {
    bus.publish("session.inbox.updated", { sessionID, items: list(sessionID) })
    seen = store.summary()
  }
  const list = (sessionID: string): InboxItem[] => store.pending(sessionID).map(inboxItem)

  async function deliver(entry: InboxEntry) {
    try {
      const messageID = await deps.deliver(entry)
      store.delivered(entry.id, messageID)
    } catch (error) {
      store.delivered(entry.id, "")
      deps.log?.warn("an inbox item could not be delivered", { sessionID: entry.sessionID, item: entry.id, error })
      bus.publish("session.error", { sessionID: entry.sessionID, error: { name: "UnknownError", data: { message: `The prompt sent while the session was busy could not be delivered: ${(error as Error).message}` } } })
    }
  }

  /** A database busy past its timeout leaves the item for the next step boundary. */
  function claim(sessionID: string, delivery?: Delivery): InboxEntry | undefined {
    try {
      return store.claim(sessionID, delivery)
    } catch (error) {
      deps.log?.warn("reading the inbox failed", { sessionID, error })
      return undefined
    }
  }

  /** The runner's `next`: delivers the oldest pending item as a new turn; false when there is none. Must not reject. */
  async function next(sessionID: string): Promise<boolean> {
    const e = claim(sessionID)
    if (!e) return false
    await deliver(e)
    publish(sessionID)
    return true
  }

  function fail(sessionID: string, itemID: string, what: "missing" | "delivered"): never {
    if (what === "missing") throw new NotFoundError({ message: `Inbox item not found in session ${sessionID}: ${itemID}` })
    throw new InboxDeliveredError({ sessionID, itemID, message: `Inbox item ${itemID} was already delivered to session ${sessionID}: it can no longer be edited or withdrawn` })
  }

  return {
    /** Pending items, in the order they are delivered within their kind. */
    list,
    pending: (sessionID: string) => store.pending(sessionID).length > 0,
    /** The user messages that began a turn of their own (delivered queued items). */
    turns: (sessionID: string) => store.turns(sessionID),
    /** Stores a prompt (or a command, expanded at delivery) for the process running the session. */
    put(sessionID: string, delivery: Delivery, prompt: PromptInput, command?: SessionCommandInput): InboxItem {
      const { delivery: _, noReply: __, ...rest } = prompt
      const entry: InboxEntry = { id: Id.ascending("inb"), sessionID, delivery, prompt: rest, ...(command ? { command: { ...command, delivery: undefined } } : {}), time: { created: Date.now() } }
      store.add(entry)
      publish(sessionID)
      return inboxItem(entry)
    },
    /** Edits a pending item; new parts turn a command into a plain prompt. NotFound / InboxDelivered otherwise. */
    update(sessionID: string, itemID: string, body: InboxItemUpdate): InboxItem {
      let next: InboxEntry | undefined
      const result = store.update(sessionID, itemID, (e) => {
        next = {
          ...e,
          delivery: body.delivery ?? e.delivery,
          ...(body.parts ? { prompt: { ...e.prompt, parts: body.parts, ...(e.command?.agent ? { agent: e.command.agent } : {}) }, command: undefined } : {}),
        }
        if (!next.command) delete next.command
        return next
      })
      if (result !== "ok") fail(sessionID, itemID, result)
      publish(sessionID)
      return inboxItem(next!)
    },
    /** Withdraws a pending item. NotFound / InboxDelivered otherwise. */
    remove(sessionID: string, itemID: string) {
      const result = store.remove(sessionID, itemID)
      if (result !== "ok") fail(sessionID, itemID, result)
      publish(sessionID)
    },
    /** The next run of the session was started to deliver its inbox: it delivers the oldest item first, whatever its kind. */
    deliverFirst(sessionID: string) {
      first.add(sessionID)
    },
    /** The loop's `steer` hook: delivers every pending steering item, oldest first. Must not reject. */
    async steer(sessionID: string): Promise<void> {
      if (first.delete(sessionID)) await next(sessionID)
      let any = false
      for (let e = claim(sessionID, "steer"); e; e = claim(sessionID, "steer")) {
        any = true
        await deliver(e)
      }
      if (any) publish(sessionID)
    },
    next,
    /** Republishes the lists other processes changed (called when another connection committed). Must not throw. */
    follow() {
      try {
        const now = store.summary()
        const changed = new Set<string>()
        for (const [id, sig] of now) if (seen.get(id) !== sig) changed.add(id)
        for (const id of seen.keys()) if (!now.has(id)) changed.add(id)
        seen = now
        for (const id of changed) bus.publish("session.inbox.updated", { sessionID: id, items: list(id) })
      } catch (error) {
        deps.log?.warn("following the inbox failed", { error })
      }
    },
    /**
     * Resolves with the user message an item became, once delivered (by any process); rejects
     * with NotFound when it was withdrawn, or when `abort` fires. `poll` runs before each look.
     */
    async delivered(sessionID: string, itemID: string, abort: AbortSignal, poll?: () => void): Promise<string> {
      for (;;) {
        poll?.()
        const state = store.messageOf(sessionID, itemID)
        if (!state) throw new NotFoundError({ message: `Inbox item ${itemID} was withdrawn before it was delivered` })
        if (state.messageID === "") throw new NotFoundError({ message: `Inbox item ${itemID} could not be delivered (see the session's error)` })
        if (state.delivered && state.messageID) return state.messageID
        await sleep(100, abort)
      }
    },
  }
}

export type Inbox = ReturnType<typeof createInbox>
