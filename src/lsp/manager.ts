// The App's language servers: one per (server, root), started on the first file of its
// language, restarted once after a crash or a hang, then disabled for the session with a
// notice. Every wait a tool sees is bounded by the caller's deadline: a server still starting
// when it passes keeps starting in the background for the next write. Shut down with the App.
// An npm-based built-in found nowhere is installed into the cache first (process/npm.ts), once,
// with a notice; a failed install disables it for the session, like a second crash.
import path from "node:path"
import type { Diagnostic } from "vscode-languageserver-protocol"
import type { LspConfig } from "../config"
import { isInstalled, npmInstall, type Exec } from "../process"
import type { LspClient } from "./client"
import { findBinary, findRoot, installRoots, isFile, languageId, ownTsserver, serverDefs, type ServerDef } from "./servers"

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
  /** Servers that did not report on this version before the deadline. */
  late: string[]
  /** One-time notices (a server disabled after failing twice). */
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
   * Sends the file's text to every server for it (starting them if needed) and waits, until
   * `deadline` aborts, for their report on this version. Never rejects.
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
  install?: string
  failures: number
  client?: LspClient
  starting?: Promise<LspClient | undefined>
  state: ServerState
  error?: string
  notified: boolean
  /** The "being installed" notice was given. */
  installNoted?: boolean
}

const START_TIMEOUT = 45_000

export function createLspManager(deps: LspManagerDeps): LspManager {
  const defs = serverDefs(deps.config)
  const slots = new Map<string, Slot>()
  const missing = new Set<string>()
  let closed = false
  const kill = new AbortController()
  const directory = path.resolve(deps.directory)

  const defsFor = (file: string) => {
    const ext = path.extname(file).toLowerCase()
    return defs.filter((d) => d.extensions.includes(ext))
  }

  function slotFor(def: ServerDef, file: string): Slot | undefined {
    const root = findRoot(file, def.markers, directory)
    const key = `${def.id}\0${root}`
    let slot = slots.get(key)
    if (slot) return slot
    if (missing.has(key)) return undefined
    if (deps.refuse) {
      // Listed (GET /lsp says why), never started, never installed.
      slot = { def, root, failures: 2, state: "disabled", error: deps.refuse, notified: true }
      slots.set(key, slot)
      return slot
    }
    let binary = findBinary(def.command[0]!, { root, top: directory, pathEnv: deps.env.PATH, local: deps.trusted })
    let install: string | undefined
    if (!binary && def.npm && deps.download) {
      const where = path.join(deps.download.cacheDir, "lsp", "npm", def.id)
      const cached = path.join(where, "node_modules", ".bin", def.command[0]!)
      if (isInstalled(where) && isFile(cached)) binary = cached
      else if (deps.download.enabled) [binary, install] = [cached, where]
    }
    if (!binary) {
      missing.add(key)
      return undefined
    }
    slot = { def: { ...def, command: [binary, ...def.command.slice(1)] }, root, install, failures: 0, state: "starting", notified: false }
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

  /** Installs the slot's npm packages (once per cache folder); false, with the slot disabled, when that fails. */
  async function installed(slot: Slot): Promise<boolean> {
    const packages = slot.def.npm ?? []
    const label = `the ${slot.def.id} language server (${packages.join(", ")})`
    try {
      deps.progress?.(`Installing ${label} with npm into ${slot.install}…`)
      const ms = await npmInstall({
        root: slot.install!,
        packages,
        label,
        hint: `Install ${packages[0]} yourself, or set WRIGHT_DISABLE_LSP_DOWNLOAD=1.`,
        exec: deps.installExec ?? deps.exec,
        cwd: slot.install!,
        ignoreScripts: true,
        abort: kill.signal,
      })
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

  function notice(slot: Slot): string[] {
    if (slot.install && !slot.installNoted && slot.state !== "disabled") {
      slot.installNoted = true
      return [`The ${slot.def.id} language server was not found, so it is being installed with npm (${slot.def.npm?.join(", ")}) into wright's cache, once; its diagnostics start when it is ready. WRIGHT_DISABLE_LSP_DOWNLOAD=1 turns this off.`]
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
      const result: TouchResult = { file, diagnostics: [], late: [], notices: [] }
      const work = defsFor(file).map(async (def) => {
        const slot = slotFor(def, file)
        if (!slot) return
        const installing = slot.install !== undefined
        const client = await ready(slot, deadline)
        // An install that finished within the bound is still told, once.
        if (installing && !slot.install && !slot.installNoted && slot.state !== "disabled") {
          slot.installNoted = true
          result.notices.push(`The ${def.id} language server was not found, so it was installed with npm (${def.npm?.join(", ")}) into wright's cache, once. WRIGHT_DISABLE_LSP_DOWNLOAD=1 turns this off.`)
        }
        result.notices.push(...notice(slot))
        // While installing, or just after an install that used up most of the bound, "did not report
        // within N ms" would blame the server for npm's time: the install notice says what happened.
        if (!client) {
          if (slot.state !== "disabled" && !installing && !slot.install) result.late.push(def.id)
          return
        }
        const got = await client.touch(file, deadline)
        result.notices.push(...notice(slot))
        if (got !== "timeout") result.diagnostics.push(...got)
        else if (!installing) result.late.push(def.id)
      })
      await Promise.all(work)
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
