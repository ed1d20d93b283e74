// Snapshots at step boundaries. A step's "before" track starts right after its provider
// request went out (never before it) and runs while the model streams; its tools wait for
// it before they run. After the step's tools settled, a second track (free when nothing
// touched the worktree) gives the "after" tree, and a patch part records what changed. That
// second track runs in the background: the next step's track (and its tools) wait for it, and
// the run is idle only once it is written. Steps nobody's write or process touched cost
// nothing: the store returns the last tree without asking git.
import path from "node:path"
import type { Bus } from "../bus"
import type { FileDiff, MessageWithParts, PatchPart, Session } from "../protocol"
import { fileDiffs, type SnapshotStore, type StepPatch } from "../snapshot"
import type { History } from "./history"

/** One step's snapshot. */
export interface StepSnapshot {
  /** The tree before the step, once tracked; undefined when snapshots are off. Never rejects. */
  before: Promise<string | undefined>
  /**
   * Contract: called once, after the step's tools settled; tracks again in the background and
   * calls `write` with the step's changes when there are any. Never throws.
   */
  end(write: (patch: Omit<PatchPart, "id" | "sessionID" | "messageID" | "type">) => void): void
}

export interface StepSnapshots {
  /** Contract: called once per step just after its provider request was made (or before a user's `!cmd`); never throws. */
  begin(sessionID: string): StepSnapshot
  /** Resolves once every step's patch of the session is written. Never rejects. */
  settled(sessionID: string): Promise<void>
  /** The session's (or one user turn's) changes per file, from its visible patches. Rejects when git fails. */
  diff(sessionID: string, messageID?: string): Promise<FileDiff[]>
  store: SnapshotStore
}

export interface StepSnapshotsDeps {
  store: SnapshotStore
  history: History
  bus: Bus
  session(sessionID: string): Session | undefined
}

export function createStepSnapshots(deps: StepSnapshotsDeps): StepSnapshots {
  const { store } = deps
  const chains = new Map<string, Promise<void>>()

  async function diff(sessionID: string, messageID?: string): Promise<FileDiff[]> {
    const messages = deps.history.messages(sessionID)
    const session = deps.session(sessionID)
    const visible = session?.revert ? patchesOf(messages).filter((p) => !hiddenBy(session.revert!, messages, p)) : patchesOf(messages)
    const steps = visible.filter((p) => !messageID || p.turn === messageID).map((p) => p.step)
    return steps.length ? fileDiffs(store, steps) : []
  }

  return {
    store,
    diff,
    settled: (sessionID) => chains.get(sessionID) ?? Promise.resolve(),
    begin(sessionID) {
      const previous = chains.get(sessionID) ?? Promise.resolve()
      const version = store.version()
      const first = previous
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(() => store.track(sessionID))
      const before = first.then((r) => r?.tree)
      chains.set(
        sessionID,
        before.then(() => {}),
      )
      return {
        before,
        end(write) {
          // Nothing touched the worktree during the step: no patch, and nobody waits for its track.
          if (store.version() === version) return void chains.set(sessionID, Promise.resolve())
          const done = first
            .then(async (start) => {
              if (!start) return
              const end = await store.track(sessionID)
              if (!end) return
              const changed = end.tree === start.tree ? [] : await store.changes(start.tree, end.tree)
              // Files the step made or grew past max_file_size are counted, though not stored.
              const notCaptured = end.notCaptured.filter((f) => !start.notCaptured.includes(f))
              if (!changed.length && !notCaptured.length) return
              write({
                hash: start.tree,
                files: changed.map((f) => path.join(store.worktree, f)),
                after: end.tree,
                ...(notCaptured.length ? { notCaptured } : {}),
              })
              if (!changed.length) return
              deps.bus.publish("session.diff", { sessionID, diff: await diff(sessionID) })
            })
            .catch(() => {})
          chains.set(sessionID, done)
        },
      }
    },
  }
}

export interface PatchAt {
  step: StepPatch
  messageID: string
  partID: string
  /** The user message whose turn the step belongs to. */
  turn: string
}

/** The session's patches with an after tree, oldest first. */
export function patchesOf(messages: MessageWithParts[]): PatchAt[] {
  const out: PatchAt[] = []
  for (const m of messages) {
    const turn = m.info.role === "assistant" ? m.info.parentID : m.info.id
    for (const p of m.parts)
      if (p.type === "patch" && p.after) out.push({ step: { before: p.hash, after: p.after, files: p.files }, messageID: m.info.id, partID: p.id, turn })
  }
  return out
}

/** Whether a revert point hides the patch (the same rule as visibleMessages). */
export function hiddenBy(point: { messageID: string; partID?: string }, messages: MessageWithParts[], patch: PatchAt): boolean {
  const index = messages.findIndex((m) => m.info.id === point.messageID)
  if (index === -1) return patch.messageID >= point.messageID
  const at = messages.findIndex((m) => m.info.id === patch.messageID)
  if (at !== index) return at > index
  if (!point.partID) return true
  const parts = messages[index]!.parts
  const cut = parts.findIndex((p) => p.id === point.partID)
  return cut !== -1 && parts.findIndex((p) => p.id === patch.partID) >= cut
}
