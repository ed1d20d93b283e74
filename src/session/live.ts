// The live registry: what each running wright process is doing, for `wright ps`. Every App
// keeps one small JSON file in the global data dir (`live/<pid>-<hash>.json`) listing the
// sessions it ran with their state (working, waiting for a permission or a question, idle,
// failed), rewritten shortly after each change and removed when the App is disposed. A reader
// trusts a file only while its pid runs on this machine, so a crashed process's sessions are
// never shown as running. The database says the rest (title, model, cost).
import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { Bus } from "../bus"
import { pidAlive } from "../storage"

export type LiveState = "working" | "waiting" | "idle" | "failed"

export interface LiveSession {
  state: LiveState
  /** What the session waits for (state "waiting"). */
  waiting?: "permission" | "question"
  /** When it entered this state (ms). */
  since: number
}

export interface LiveFile {
  pid: number
  hostname: string
  /** The App's project directory. */
  directory: string
  started: number
  sessions: Record<string, LiveSession>
}

const liveDir = (dataDir: string) => path.join(dataDir, "live")

/** How long after a change the file is rewritten (changes in between are written together). */
const WRITE_MS = 100

/**
 * Keeps this App's file up to date from its bus. Contract: never throws (a file that cannot
 * be written only leaves `wright ps` less informed). `dispose` removes the file.
 */
export function createLiveRegistry(opts: { bus: Bus; dataDir: string; directory: string; now?: () => number }) {
  const now = opts.now ?? Date.now
  const file = path.join(liveDir(opts.dataDir), `${process.pid}-${createHash("sha256").update(opts.directory).digest("hex").slice(0, 12)}.json`)
  const sessions = new Map<string, LiveSession & { asks: Map<string, "permission" | "question">; failed: boolean; busy: boolean }>()
  let timer: NodeJS.Timeout | undefined
  let disposed = false
  const started = now()

  const entry = (id: string) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = { state: "idle", since: now(), asks: new Map(), failed: false, busy: false }))
    return s
  }
  function update(id: string) {
    const s = entry(id)
    const ask = [...s.asks.values()].at(-1)
    const state: LiveState = ask ? "waiting" : s.busy ? "working" : s.failed ? "failed" : "idle"
    if (state !== s.state || ask !== s.waiting) Object.assign(s, { state, waiting: ask, since: now() })
    schedule()
  }
  function schedule() {
    if (timer || disposed) return
    timer = setTimeout(write, WRITE_MS)
    timer.unref()
  }
  function write() {
    timer = undefined
    if (disposed) return
    const out: LiveFile = { pid: process.pid, hostname: os.hostname(), directory: opts.directory, started, sessions: {} }
    for (const [id, s] of sessions) out.sessions[id] = { state: s.state, ...(s.waiting ? { waiting: s.waiting } : {}), since: s.since }
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
      const tmp = `${file}.${process.pid}.tmp`
      writeFileSync(tmp, JSON.stringify(out), { mode: 0o600 })
      renameSync(tmp, file)
    } catch {
      // Read-only data dir: `wright ps` just does not see this process.
    }
  }

  const offs = [
    opts.bus.subscribe("session.status", ({ properties: { sessionID, status } }) => {
      // Another process runs it (its lease): that process reports it, not this one.
      if (status.type === "busy" && status.holder) return
      const busy = status.type !== "idle"
      // Idle news of a session this process never ran (another process's run ended) is not ours either.
      if (!busy && !sessions.has(sessionID)) return
      const s = entry(sessionID)
      if (busy && !s.busy) s.failed = false
      s.busy = busy
      update(sessionID)
    }),
    opts.bus.subscribe("session.error", ({ properties: { sessionID, error } }) => {
      if (!sessionID || !error || error.name === "MessageAbortedError") return
      entry(sessionID).failed = true
      update(sessionID)
    }),
    opts.bus.subscribe("permission.asked", ({ properties: req }) => (entry(req.sessionID).asks.set(req.id, "permission"), update(req.sessionID))),
    opts.bus.subscribe("permission.replied", ({ properties: e }) => (entry(e.sessionID).asks.delete(e.requestID), update(e.sessionID))),
    opts.bus.subscribe("question.asked", ({ properties: req }) => (entry(req.sessionID).asks.set(req.id, "question"), update(req.sessionID))),
    opts.bus.subscribe("question.replied", ({ properties: e }) => (entry(e.sessionID).asks.delete(e.requestID), update(e.sessionID))),
    opts.bus.subscribe("question.rejected", ({ properties: e }) => (entry(e.sessionID).asks.delete(e.requestID), update(e.sessionID))),
    opts.bus.subscribe("session.deleted", ({ properties: e }) => (sessions.delete(e.sessionID), schedule())),
  ]

  return {
    dispose() {
      disposed = true
      if (timer) clearTimeout(timer)
      for (const off of offs) off()
      rmSync(file, { force: true })
    },
  }
}

/** The files of live wright processes on this machine; those of dead ones are removed. */
export function readLive(dataDir: string, alive: (pid: number) => boolean = pidAlive): LiveFile[] {
  const dir = liveDir(dataDir)
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"))
  } catch {
    return []
  }
  const host = os.hostname()
  const out: LiveFile[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    let live: LiveFile
    try {
      live = JSON.parse(readFileSync(file, "utf8")) as LiveFile
    } catch {
      continue
    }
    if (live.hostname !== host) continue
    if (live.pid === process.pid || alive(live.pid)) out.push(live)
    else rmSync(file, { force: true })
  }
  return out
}
