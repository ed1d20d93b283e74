// Undo. `revert` marks a point in a session (a message, or a part inside one): the messages
// from there on are hidden but kept, so `unrevert` can bring them back, and the files their
// steps changed are put back as they were before those steps (snapshot/restore.ts: only
// files the session changed, and only where the disk still holds what the session left). The
// next prompt (or user shell) commits the revert by deleting what was hidden; the files stay.
import type { Bus } from "../bus"
import { NotFoundError, sessionNotFound, type MessageWithParts, type Session, type SessionRevertInput } from "../protocol"
import { filesFrom, restoreFiles, statesAt, unifiedDiff, fileDiffs, type RestoreResult } from "../snapshot"
import type { Store } from "../storage"
import type { History } from "./history"
import type { Runner } from "./runner"
import { hiddenBy, patchesOf, type StepSnapshots } from "./snapshot"

export interface RevertDeps {
  store: Store
  bus: Bus
  history: History
}

type Point = { messageID: string; partID?: string }
type FileDeps = RevertDeps & { runner: Runner; snapshots: StepSnapshots }

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
export async function revert(deps: FileDeps, sessionID: string, input: SessionRevertInput): Promise<Session> {
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
  const store = deps.snapshots.store
  // The state before any undo, kept so the revert can be looked at (and as OpenCode records it).
  const snapshot = session.revert?.snapshot ?? (await store.track(sessionID))?.tree
  const moved = await moveFiles(deps, sessionID, messages, session.revert, point, input.force === true)
  const latest = getSession(deps.store, sessionID)
  return save(deps, {
    ...latest,
    revert: { ...point, ...(snapshot ? { snapshot } : {}), ...moved },
    time: { ...latest.time, updated: Date.now() },
  })
}

/** Clears the revert point: the hidden messages show again and their steps' files come back. 409 when busy. */
export async function unrevert(deps: FileDeps, sessionID: string, opts: { force?: boolean } = {}): Promise<Session> {
  const session = getSession(deps.store, sessionID)
  deps.runner.assertIdle(sessionID)
  if (!session.revert) return session
  await moveFiles(deps, sessionID, deps.history.messages(sessionID), session.revert, undefined, opts.force === true)
  const latest = getSession(deps.store, sessionID)
  const { revert: _cleared, ...rest } = latest
  return save(deps, { ...rest, time: { ...latest.time, updated: Date.now() } })
}

/**
 * Moves the files from the state under point `from` to the state under `to` (undefined: no
 * revert, every step counts). Returns what Session.revert reports.
 */
async function moveFiles(deps: FileDeps, sessionID: string, messages: MessageWithParts[], from: Point | undefined, to: Point | undefined, force: boolean) {
  const store = deps.snapshots.store
  const patches = patchesOf(messages)
  const counted = (point: Point | undefined) => (point ? patches.filter((p) => !hiddenBy(point, messages, p)).length : patches.length)
  const steps = patches.map((p) => p.step)
  const current = counted(from)
  const next = counted(to)
  const files = filesFrom(steps, Math.min(current, next))
  let result: RestoreResult = { restored: [], kept: [] }
  let diff = ""
  const notice = store.notice()
  if (files.length && !notice) {
    const expected = await statesAt(store, steps, current, files)
    const target = await statesAt(store, steps, next, files)
    result = await restoreFiles(store, files, expected, target, force)
    for (const file of result.restored) deps.bus.publish("file.edited", { file })
    // What the undo changed, as a unified diff: the restored files from the later state to the earlier.
    const lo = Math.min(current, next)
    const hi = Math.max(current, next)
    const span = steps.slice(lo, hi).map((s) => ({ ...s, files: s.files.filter((f) => result.restored.includes(f)) }))
    const diffs = result.restored.length ? await fileDiffs(store, span).catch(() => []) : []
    const undoing = next < current
    diff = unifiedDiff(undoing ? diffs.map((d) => ({ ...d, before: d.after, after: d.before, additions: d.deletions, deletions: d.additions })) : diffs)
  }
  return { ...(diff ? { diff } : {}), ...(files.length && !notice ? { restored: result.restored, kept: result.kept } : {}), ...(notice ? { notice } : {}) }
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
