// The App's language servers: one per (server, root), started on the first file of its
// language, restarted once after a crash or a hang, then disabled for the session with a
// notice. A tool waits only for a warm server (connected and answering), and only about as
// long as its recent answers took, never beyond the caller's deadline; a server that is
// installing, starting or restarting is not waited for: its report on the file comes later
// (TouchResult.later). Shut down with the App. An npm-based built-in found nowhere is installed
// into the cache in the background (process/npm.ts), once per pinned version, with a notice;
// a failed install disables it for the session and is remembered for a day.
import path from "node:path"
import type { Diagnostic } from "vscode-languageserver-protocol"
import type { LspConfig } from "../config"
import { rememberedFailure, type Exec } from "../process"
import { installPlan, type InstallPlan } from "./install"
import type { LspClient } from "./client"
import { findBinary, handlesFile, installRoots, isFile, languageId, ownTsserver, rootFor, serverDefs, type ServerDef } from "./servers"

export type ServerState = "starting" | "connected" | "error" | "disabled"

/** One server of GET /lsp (OpenCode's LSPStatus, plus why it is in error). */
export interface ServerStatus {
  id: string
  name: string
  root: string
  status: "connected" | "error"
  error?: string
  /** It runs in wright's sandbox without network (an untrusted folder). */
  sandboxed?: boolean
}

export interface TouchResult {
  file: string
  /** Diagnostics per server that handles the file; missing when it did not report in time. */
  diagnostics: Diagnostic[]
  /** Warm servers that did not report on this version within the wait: their report comes in `later`. */
  late: string[]
  /** Servers not ready (installing, starting, restarting): not waited for; their report comes in `later`. */
  pending: string[]
  /** One-time notices (a server being installed, disabled after failing twice). */
  notices: string[]
  /**
   * What the late and pending servers say about this version once they report (or give up),
   * one entry per server: its diagnostics, or undefined when it never reported, and any
   * notice (an install that failed). Resolves within LATE_LIMIT; never rejects.
   */
  later: Promise<LateReport[]>
}

export interface LateReport {
  server: string
  diagnostics?: Diagnostic[]
  notices: string[]
}

export interface LspManagerDeps {
  config: LspConfig | undefined
  exec: Exec
  /** The project directory: roots are never above it. */
  directory: string
  env: NodeJS.ProcessEnv
  /** The project's own config and binaries apply (config/trust.ts): its node_modules/.bin may run. */
  trusted: boolean
  /** How long a server may take to answer initialize before it counts as hung (ms). */
  startTimeout?: number
  /**
   * Where npm-based servers found nowhere else are installed (`<cache>/lsp/npm/<id>`), and
   * whether they may be (WRIGHT_DISABLE_LSP_DOWNLOAD turns it off). Undefined: never.
   */
  download?: { cacheDir: string; enabled: boolean }
  /** Told when an install starts and ends; must not throw. */
  progress?(line: string): void
  onStatus?(): void
  /** Runs npm for installs into the cache (wright's own action, with install scripts off); default `exec`. */
  installExec?: Exec
  /**
   * Holds an install until it may start (the App: once no tool call has run for a moment, see
   * util/idle.ts), so npm's seconds of CPU do not compete with the steps of a busy loop. Default: at once.
   */
  installWhen?(start: () => void): void
  /** Servers run sandboxed (without network); GET /lsp says so. */
  sandboxed?: boolean
  /** Why no server may run here at all (untrusted, and no sandbox); undefined: they may. */
  refuse?: string
  /** A directory a sandboxed server must be able to read (the TypeScript it is handed). Must not throw. */
  allowRead?(dir: string): void
}

export interface LspManager {
  /** Whether config leaves any server at all. */
  any(): boolean
  /** Running servers that do not watch node_modules reload their projects (packages were installed). Never rejects. */
  reload(): Promise<void>
  /** Whether any server handles this file's extension (no process started). */
  handles(file: string): boolean
  /**
   * Sends the file's text to every server for it (starting them in the background if needed)
   * and waits for the warm ones' report on this version: about as long as their recent answers
   * took, never after `deadline` aborts. Never rejects.
   */
  touch(file: string, deadline: AbortSignal): Promise<TouchResult>
  /**
   * Starts the file's servers in the background and opens the file in them (a read of it), so
   * that the first write finds them ready and the project loaded. Returns at once; never throws.
   */
  warm(file: string): void
  /** The running clients for a file, started if needed (for the lsp tool); rejects when none can start. */
  clientsFor(file: string, deadline: AbortSignal): Promise<LspClient[]>
  /** Every client started so far and alive. */
  clients(): LspClient[]
  status(): ServerStatus[]
  /** Latest diagnostics of every file any server reported on. */
  diagnostics(): Record<string, Diagnostic[]>
  shutdown(): Promise<void>
}

interface Slot {
  def: ServerDef
  root: string
  /** Where its packages go when they must be installed first; cleared once they are there. */
  install?: InstallPlan
  failures: number
  client?: LspClient
  starting?: Promise<LspClient | undefined>
  state: ServerState
  error?: string
  notified: boolean
  /** The "being installed" notice was given. */
  installNoted?: boolean
  /** How long its last answers to a touch took (ms), newest last. */
  answers: number[]
}

const START_TIMEOUT = 45_000
/** How long a report that a tool did not wait for is still waited for in the background. */
const LATE_LIMIT = 120_000
/** A failed install is not tried again for this long (an offline machine). */
const REMEMBER_FAILURE = 24 * 3_600_000
/** How many recent answers the wait is based on, the multiple of their median it allows, and its floor (ms). */
const ANSWERS_KEPT = 8
const WAIT_FACTOR = 4
const WAIT_FLOOR = 250

export function createLspManager(deps: LspManagerDeps): LspManager {
  const defs = serverDefs(deps.config)
  const slots = new Map<string, Slot>()
  const missing = new Set<string>()
  let closed = false
  const kill = new AbortController()
  const directory = path.resolve(deps.directory)

  const defsFor = (file: string) => defs.filter((d) => handlesFile(d, file))

  function slotFor(def: ServerDef, file: string): Slot | undefined {
    const root = rootFor(def, file, directory)
    if (root === undefined) return undefined
    const key = `${def.id}\0${root}`
    let slot = slots.get(key)
    if (slot) return slot
    if (missing.has(key)) return undefined
    if (deps.refuse) {
      // Listed (GET /lsp says why), never started, never installed.
      slot = { def, root, failures: 2, state: "disabled", error: deps.refuse, notified: true, answers: [] }
      slots.set(key, slot)
      return slot
    }
    let binary = findBinary(def.command[0]!, { root, top: directory, pathEnv: deps.env.PATH, local: deps.trusted })
    let install: InstallPlan | undefined
    const plan = !binary && deps.download ? installPlan(def, deps.download.cacheDir, deps.env.PATH) : undefined
    if (plan && deps.download) {
      if (plan.done() && isFile(plan.binary)) binary = plan.binary
      else if (deps.download.enabled) {
        // An install that failed lately (offline) is not tried again on every edit or every run.
        const failure = rememberedFailure(plan.where, REMEMBER_FAILURE)
        if (failure) {
          slot = { def, root, failures: 2, state: "disabled", error: failure, notified: false, answers: [] }
          slots.set(key, slot)
          return slot
        }
        ;[binary, install] = [plan.binary, plan]
      }
    }
    if (!binary) {
      missing.add(key)
      return undefined
    }
    slot = { def: { ...def, command: [binary, ...def.command.slice(1)] }, root, install, failures: 0, state: "starting", notified: false, answers: [] }
    slots.set(key, slot)
    return slot
  }

  function start(slot: Slot): Promise<LspClient | undefined> {
    if (slot.client) return Promise.resolve(slot.client)
    if (slot.state === "disabled" || closed) return Promise.resolve(undefined)
    if (slot.starting) return slot.starting
    slot.state = "starting"
    slot.starting = (async () => {
      try {
        if (slot.install && !(await installed(slot))) return undefined
        const initialization = ownTypescript(slot)
        if (initialization === null) return undefined
        const { startClient } = await import("./client")
        const client = await startClient(
          deps.exec,
          { serverID: slot.def.id, root: slot.root, command: slot.def.command, env: slot.def.env, initialization, languageId, abort: kill.signal, pull: slot.def.pull, sandboxed: deps.sandboxed },
          deps.startTimeout ?? START_TIMEOUT,
        )
        if (closed) {
          await client.shutdown()
          return undefined
        }
        slot.client = client
        slot.state = "connected"
        slot.error = undefined
        void client.exited.then(() => {
          if (slot.client !== client || closed) return
          slot.client = undefined
          failed(slot, "the server exited")
        })
        return client
      } catch (e) {
        failed(slot, e instanceof Error ? e.message : String(e))
        return undefined
      } finally {
        slot.starting = undefined
        deps.onStatus?.()
      }
    })()
    deps.onStatus?.()
    return slot.starting
  }

  /**
   * The server's initialization options. In an untrusted folder typescript-language-server gets
   * the TypeScript installed beside it as `tsserver.path`: left to itself it prefers a
   * node_modules/typescript in the workspace or any folder above it, which is the project's
   * code. Null (the slot disabled, with the reason) when it has none of its own.
   */
  function ownTypescript(slot: Slot): Record<string, unknown> | undefined | null {
    const init = slot.def.initialization
    if (deps.trusted || !slot.def.ownTypescript) return init
    const tsserver = ownTsserver(slot.def.command[0]!, directory)
    if (!tsserver) {
      slot.failures = 2
      slot.state = "disabled"
      slot.error = `not started: this folder is not trusted, and no TypeScript was found beside ${slot.def.command[0]} (the project's own is never used here); install typescript next to it, or trust the folder`
      return null
    }
    for (const dir of installRoots(tsserver)) deps.allowRead?.(dir)
    const ts = (init?.tsserver ?? {}) as Record<string, unknown>
    return { ...init, tsserver: { ...ts, path: tsserver } }
  }

  /** Installs the slot's server by its plan (once per cache folder), after `installWhen` lets it start; false, with the slot disabled, when that fails. */
  async function installed(slot: Slot): Promise<boolean> {
    const plan = slot.install!
    const label = `the ${slot.def.id} language server (${plan.what})`
    if (deps.installWhen && !(await idle(deps.installWhen))) return false
    try {
      deps.progress?.(`Installing ${label} with ${plan.via} into ${plan.where}…`)
      const ms = await plan.run({ exec: deps.installExec ?? deps.exec, abort: kill.signal, remember: REMEMBER_FAILURE })
      deps.progress?.(`Installed ${label}${ms === undefined ? "" : ` in ${(ms / 1000).toFixed(1)} s`}`)
      slot.install = undefined
      return !closed
    } catch (e) {
      slot.failures = 2
      slot.state = "disabled"
      slot.error = e instanceof Error ? e.message : String(e)
      deps.progress?.(slot.error)
      return false
    }
  }

  /** True once `when` lets an install start; false when the manager shut down first (nothing was started). */
  function idle(when: (start: () => void) => void): Promise<boolean> {
    if (closed) return Promise.resolve(false)
    return new Promise((resolve) => {
      const stop = () => resolve(false)
      kill.signal.addEventListener("abort", stop, { once: true })
      when(() => {
        kill.signal.removeEventListener("abort", stop)
        resolve(!closed)
      })
    })
  }

  function failed(slot: Slot, why: string) {
    slot.failures++
    slot.error = why
    slot.state = slot.failures >= 2 ? "disabled" : "error"
    deps.onStatus?.()
    // The one restart starts at once (after this start's bookkeeping), so the next write finds it up.
    if (slot.state === "error") setImmediate(() => void start(slot))
  }

  /** The slot's client, or undefined once `deadline` aborts first. */
  async function ready(slot: Slot, deadline: AbortSignal): Promise<LspClient | undefined> {
    // One restart after a crash or hang: the second failure disables it.
    let client = await race(start(slot), deadline)
    if (!client && slot.state === "error" && !deadline.aborted) client = await race(start(slot), deadline)
    return client
  }

  /** The client's report on this version of `file`, waited for up to LATE_LIMIT; its time joins the slot's recent answers. */
  function asked(slot: Slot, client: LspClient, file: string): Promise<Diagnostic[] | "timeout"> {
    const began = Date.now()
    const limit = timeLimit(LATE_LIMIT)
    return client.touch(file, AbortSignal.any([kill.signal, limit.signal])).then((got) => {
      limit.clear()
      if (got !== "timeout") slot.answers = [...slot.answers, Date.now() - began].slice(-ANSWERS_KEPT)
      return got
    })
  }

  /** How long a tool waits for a warm server: a few times its recent median, at least the floor; unbounded (the caller's deadline) before its first answer. */
  function waitFor(slot: Slot): number {
    if (slot.answers.length === 0) return LATE_LIMIT
    const sorted = [...slot.answers].sort((a, b) => a - b)
    // The lower median: with few answers the first (a cold project load) must not set the bound.
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!
    return Math.max(WAIT_FLOOR, WAIT_FACTOR * median)
  }

  function notice(slot: Slot): string[] {
    if (slot.install && !slot.installNoted && slot.state !== "disabled") {
      slot.installNoted = true
      const { via, what } = slot.install
      return [`The ${slot.def.id} language server was not found, so it is being installed with ${via} (${what}) into wright's cache, once; its diagnostics start when it is ready. WRIGHT_DISABLE_LSP_DOWNLOAD=1 turns this off.`]
    }
    if (slot.state !== "disabled" || slot.notified) return []
    slot.notified = true
    if (slot.error?.startsWith("not started")) return [`The ${slot.def.id} language server was ${slot.error}.`]
    if (slot.error?.startsWith("Could not install")) return [`${slot.error} No diagnostics from the ${slot.def.id} language server in this session.`]
    return [`The ${slot.def.id} language server failed twice (${slot.error}) and is disabled for this session; no diagnostics from it.`]
  }

  return {
    handles: (file) => defsFor(file).length > 0,
    any: () => defs.length > 0,
    async reload() {
      await Promise.all([...slots.values()].map((s) => s.client?.reload()))
    },
    async touch(file, deadline) {
      const later: Promise<LateReport | undefined>[] = []
      const result: TouchResult = { file, diagnostics: [], late: [], pending: [], notices: [], later: Promise.resolve([]) }
      const work = defsFor(file).map(async (def) => {
        const slot = slotFor(def, file)
        if (!slot) return
        const client = slot.client
        if (!client) {
          if (slot.state === "disabled") {
            result.notices.push(...notice(slot))
            return
          }
          // Installing, starting or restarting: the tool does not wait; the report follows.
          const installing = slot.install
          result.notices.push(...notice(slot))
          result.pending.push(def.id)
          later.push(
            start(slot).then(async (first): Promise<LateReport> => {
              // A start that failed once is retried once (failed()): its outcome is the report.
              const started = first ?? (slot.state === "error" ? await start(slot) : undefined)
              if (!started) return { server: def.id, notices: notice(slot) }
              const installed = installing ? [`The ${def.id} language server was installed with ${installing.via} (${installing.what}) into wright's cache.`] : []
              const got = await asked(slot, started, file)
              return { server: def.id, notices: [...installed, ...notice(slot)], ...(got === "timeout" ? {} : { diagnostics: got }) }
            }),
          )
          return
        }
        const answer = asked(slot, client, file)
        const limit = timeLimit(waitFor(slot))
        const got = await race(answer, AbortSignal.any([deadline, limit.signal]))
        limit.clear()
        if (got !== undefined && got !== "timeout") {
          result.diagnostics.push(...got)
          return
        }
        result.late.push(def.id)
        // "timeout" before the wait ended: the server died; what follows (a restart, or disabled) is the report.
        const settled = got === undefined ? answer : answer.then((a) => new Promise<typeof a>((r) => setImmediate(() => r(a))))
        later.push(settled.then((a) => ({ server: def.id, notices: notice(slot), ...(a === "timeout" ? {} : { diagnostics: a }) })))
      })
      await Promise.all(work)
      result.later = Promise.all(later.map((p) => p.catch(() => undefined))).then((all) => all.filter((r): r is LateReport => r !== undefined))
      return result
    },
    warm(file) {
      if (closed) return
      for (const def of defsFor(file)) {
        const slot = slotFor(def, file)
        if (!slot || slot.state === "disabled") continue
        void start(slot).then((client) => client?.open(file).catch(() => {}))
      }
    },
    async clientsFor(file, deadline) {
      const found = defsFor(file)
      if (found.length === 0) throw new Error(`No language server handles ${path.extname(file) || "files without an extension"} files.`)
      const clients: LspClient[] = []
      for (const def of found) {
        const slot = slotFor(def, file)
        const client = slot && (await ready(slot, deadline))
        if (client) clients.push(client)
      }
      if (clients.length === 0) throw new Error(`No language server for ${file} is available (${found.map((d) => d.id).join(", ")}: not installed, failed or still starting).`)
      return clients
    },
    clients: () => [...slots.values()].flatMap((s) => (s.client ? [s.client] : [])),
    status: () =>
      [...slots.values()]
        .filter((s) => s.state !== "starting")
        .map((s) => ({
          id: s.def.id,
          name: s.def.id,
          root: path.relative(directory, s.root) || ".",
          status: s.state === "connected" ? "connected" : "error",
          ...(s.error && s.state !== "connected" ? { error: s.error } : {}),
          ...(deps.sandboxed && !deps.refuse ? { sandboxed: true } : {}),
        })),
    diagnostics() {
      const out: Record<string, Diagnostic[]> = {}
      for (const s of slots.values()) for (const [file, d] of s.client?.diagnostics ?? []) out[file] = [...(out[file] ?? []), ...d]
      return out
    },
    async shutdown() {
      closed = true
      await Promise.all([...slots.values()].map((s) => s.client?.shutdown()))
      // Servers still starting (or hung in initialize) die with their process group.
      kill.abort()
    },
  }
}


function race<T>(p: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener("abort", onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort)
        resolve(v)
      },
      () => resolve(undefined),
    )
  })
}

/**
 * A signal that aborts after `ms`. Not AbortSignal.timeout: AbortSignal.any holds its sources
 * weakly, and on Node 20 a timeout signal referenced only from there can be collected before it
 * fires, so the wait it bounds goes on (the warm-server bound was skipped now and then). The
 * timer keeps this one alive.
 */
function timeLimit(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), ms)
  timer.unref()
  return { signal: controller.signal, clear: () => clearTimeout(timer) }
}
