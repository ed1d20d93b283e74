// Snapshots at step boundaries. A step's "before" track starts right after its provider
// request went out (never before it) and runs while the model streams; its tools wait for
// it before they run. After the step's tools settled, a second track (free when nothing
// touched the worktree) gives the "after" tree, and a patch part records what changed. That
// second track runs in the background: the next step's track (and its tools) wait for it, and
// the run is idle only once it is written. Steps nobody's write or process touched cost
// nothing: the store returns the last tree without asking git.
// Sessions running at once share the worktree and the store, so a step's patch keeps only the
// files its own session changed: the files its tools wrote when it ran no process, else
// everything that changed less what other sessions' tools wrote meanwhile (two sessions'
// commands running at the same time cannot be told apart). A subtask's changes are also its
// parent's. The session's diff is kept between steps, so a step's session.diff costs only the
// files that step changed. A checkpoint (before a command that discards work) tracks the whole
// tree mid-step and cuts the step there: it writes one patch per part, so what appeared between
// the step's start and the command (written by nobody wright knows of) is not the step's to undo,
// and the command's own patch starts from the tree just before it.
import path from "node:path"
import type { Bus } from "../bus"
import type { FileDiff, MessageWithParts, PatchPart, Session } from "../protocol"
import { fileDiff, filesFrom, statesAt, type SnapshotStore, type State, type StepPatch, type TrackResult } from "../snapshot"
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
  /**
   * Contract: the file writer (`files`, absolute) or the spawner (undefined: a process may
   * change anything) reports a touch by `sessionID`'s tool call (undefined: nobody's, e.g. an
   * MCP server starting). Marks the store; the open steps of that session and its parents count
   * it as theirs. Never throws.
   */
  touch(files: string[] | undefined, sessionID: string | undefined): void
  /** Resolves once every step's patch of the session is written. Never rejects. */
  settled(sessionID: string): Promise<void>
  /**
   * Contract: called before a command that may discard uncommitted work runs. Tracks the whole
   * worktree now (a scan: edits nobody reported, another process's, are in it), and cuts the open
   * steps of the session and its parents there: each step's patch is written in two, so undoing
   * the step brings back every file as it was just before the command. Resolves the track, or
   * undefined when snapshots are off. Never rejects.
   */
  checkpoint(sessionID: string): Promise<TrackResult | undefined>
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

/** Sessions whose diff is kept between steps. */
const DIFF_CACHE_SESSIONS = 16

/** A session's diff as of the patches `keys` names (one key per patch: its part, trees and files). */
interface DiffState {
  keys: string[]
  /** Absolute path → its state before and after those patches, and their FileDiff (undefined: the same). */
  files: Map<string, { before: State; after: State; diff: FileDiff | undefined }>
}

/** What one open step's session did, and what others wrote, while it ran. */
interface StepRecord {
  sessionID: string
  /** Files its session's tools wrote, or "any" once one of its processes ran. */
  own: Set<string> | "any"
  /** Files other sessions' tools wrote meanwhile. */
  foreign: Set<string>
  /** Its tools settled: only others' writes are recorded now, until its last track. */
  ended: boolean
  /** Its first track (or its last cut), once done (undefined: not yet, or snapshots are off). */
  start?: TrackResult
  /** Resolves when its first track is done. */
  started?: Promise<void>
  /** The parts a checkpoint cut off, oldest first; the last part runs from the last cut to the end. */
  cuts: { start: TrackResult; end: TrackResult; own: Set<string> | "any"; foreign: Set<string> }[]
}

export function createStepSnapshots(deps: StepSnapshotsDeps): StepSnapshots {
  const { store } = deps
  const chains = new Map<string, Promise<void>>()
  const open = new Set<StepRecord>()
  // The newest sessions' diffs, for the next step's session.diff (diffState).
  const diffStates = new Map<string, DiffState>()
  const relOf = (file: string) => path.relative(store.worktree, file).split(path.sep).join("/")

  /** The session and its ancestors (a subtask's changes are its parent's too). */
  function lineage(sessionID: string): string[] {
    const out = [sessionID]
    for (let parent = deps.session(sessionID)?.parentID; parent && !out.includes(parent); parent = deps.session(parent)?.parentID) out.push(parent)
    return out
  }

  function touch(files: string[] | undefined, sessionID: string | undefined) {
    store.touch(files)
    if (!open.size) return
    const owners = sessionID ? lineage(sessionID) : []
    const paths = files?.map((f) => path.resolve(f))
    for (const step of open) {
      if (owners.includes(step.sessionID)) {
        if (step.ended) continue
        if (!paths) step.own = "any"
        else if (step.own !== "any") for (const f of paths) step.own.add(f)
      } else if (paths) for (const f of paths) step.foreign.add(f)
    }
  }

  /** Whether a worktree-relative path the step's trees differ in is the step's own change. */
  function owned(step: Pick<StepRecord, "own" | "foreign">, rel: string): boolean {
    const file = path.join(store.worktree, rel)
    return step.own === "any" ? !step.foreign.has(file) : step.own.has(file)
  }

  async function diff(sessionID: string, messageID?: string): Promise<FileDiff[]> {
    const session = deps.session(sessionID)
    // Without a revert point only the patch parts matter: a long session is not loaded for them.
    const messages = session?.revert ? deps.history.messages(sessionID) : deps.history.withParts(sessionID, "patch")
    const visible = session?.revert ? patchesOf(messages).filter((p) => !hiddenBy(session.revert!, messages, p)) : patchesOf(messages)
    const patches = visible.filter((p) => !messageID || p.turn === messageID)
    if (!patches.length) return []
    const state = await diffState(patches, messageID ? undefined : sessionID)
    const out: FileDiff[] = []
    for (const file of [...state.files.keys()].sort()) {
      const d = state.files.get(file)!.diff
      if (d) out.push(d)
    }
    return out
  }

  /**
   * Per file, its state before the first of `patches` that changed it and after the last, with
   * its FileDiff. Kept per session: when the patches it was computed for are the first of
   * `patches` (the session only went on), only the files of the newer ones are looked at, so a
   * step's `session.diff` costs what the step changed, not what the whole session did.
   */
  async function diffState(patches: PatchAt[], cacheFor: string | undefined): Promise<DiffState> {
    const keys = patches.map((p) => `${p.partID}\0${p.step.before}\0${p.step.after}\0${p.step.files.join("\0")}`)
    const cached = cacheFor ? diffStates.get(cacheFor) : undefined
    const base = cached && cached.keys.length <= keys.length && cached.keys.every((k, i) => k === keys[i]) ? cached : undefined
    const state: DiffState = { keys, files: new Map(base?.files) }
    if (!base) {
      const steps = patches.map((p) => p.step)
      const files = filesFrom(steps, 0)
      const [before, after] = await Promise.all([statesAt(store, steps, 0, files), statesAt(store, steps, steps.length, files)])
      for (const file of files) state.files.set(file, { before: before.get(file), after: after.get(file), diff: undefined })
      for (const file of files) state.files.get(file)!.diff = await fileDiff(store, file, before.get(file), after.get(file))
    } else
      for (const { step } of patches.slice(base.keys.length)) {
        const fresh = step.files.filter((f) => !state.files.has(f))
        const [before, after] = await Promise.all([store.entries(step.before, fresh.map(relOf)), store.entries(step.after, step.files.map(relOf))])
        for (const file of step.files) {
          const was: State = state.files.has(file) ? state.files.get(file)!.before : (before.get(relOf(file)) ?? null)
          const is: State = after.get(relOf(file)) ?? null
          state.files.set(file, { before: was, after: is, diff: await fileDiff(store, file, was, is) })
        }
      }
    if (cacheFor) {
      diffStates.delete(cacheFor)
      diffStates.set(cacheFor, state)
      if (diffStates.size > DIFF_CACHE_SESSIONS) diffStates.delete(diffStates.keys().next().value!)
    }
    return state
  }

  return {
    store,
    diff,
    touch,
    settled: (sessionID) => chains.get(sessionID) ?? Promise.resolve(),
    async checkpoint(sessionID) {
      const owners = lineage(sessionID)
      const steps = [...open].filter((s) => !s.ended && owners.includes(s.sessionID))
      await Promise.all(steps.map((s) => s.started))
      store.touch()
      const mid = await store.track(sessionID)
      if (!mid) return undefined
      for (const step of steps) {
        if (!step.start || step.ended) continue
        step.cuts.push({ start: step.start, end: mid, own: step.own, foreign: step.foreign })
        step.start = mid
        step.own = new Set()
        step.foreign = new Set()
      }
      return mid
    },
    begin(sessionID) {
      const previous = chains.get(sessionID) ?? Promise.resolve()
      const step: StepRecord = { sessionID, own: new Set(), foreign: new Set(), ended: false, cuts: [] }
      open.add(step)
      const first = previous
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(() => store.track(sessionID))
        .then((r) => (step.start = r))
      step.started = first.then(() => {})
      const before = first.then((r) => r?.tree)
      chains.set(
        sessionID,
        before.then(() => {}),
      )
      return {
        before,
        end(write) {
          step.ended = true
          // The step's session touched nothing: no patch, and nobody waits for its track.
          if (step.own !== "any" && !step.own.size && !step.cuts.length) {
            open.delete(step)
            return void chains.set(sessionID, Promise.resolve())
          }
          const done = first
            .then(async (tracked) => {
              if (!tracked || !step.start) return
              const end = await store.track(sessionID)
              open.delete(step)
              if (!end) return
              let changedAny = false
              for (const part of [...step.cuts, { start: step.start, end, own: step.own, foreign: step.foreign }]) {
                const changed = (part.end.tree === part.start.tree ? [] : await store.changes(part.start.tree, part.end.tree)).filter((f) => owned(part, f))
                // Files the step made or grew past max_file_size are counted, though not stored.
                const notCaptured = part.end.notCaptured.filter((f) => !part.start.notCaptured.includes(f) && owned(part, f))
                if (!changed.length && !notCaptured.length) continue
                write({
                  hash: part.start.tree,
                  files: changed.map((f) => path.join(store.worktree, f)),
                  after: part.end.tree,
                  ...(notCaptured.length ? { notCaptured } : {}),
                })
                if (changed.length) changedAny = true
              }
              if (!changedAny) return
              deps.bus.publish("session.diff", { sessionID, diff: await diff(sessionID) })
            })
            .catch(() => {})
            .finally(() => open.delete(step))
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
