// One language server process and the JSON-RPC connection to it over stdio. It opens files
// (didOpen, then full-text didChange with a rising version), keeps the latest
// publishDiagnostics per file, and lets a caller wait for the report of one version. It never
// decides when to restart or give up (manager.ts does) and never waits without a bound.
// vscode-jsonrpc is loaded here, on the first start, so a session that touches no file never loads it.
import { readFile } from "node:fs/promises"
import path from "node:path"
import { pathToFileURL, fileURLToPath } from "node:url"
import type { Diagnostic } from "vscode-languageserver-protocol"
import type { Child, Exec } from "../process"

export interface ClientSpec {
  serverID: string
  root: string
  command: string[]
  env?: Record<string, string>
  initialization?: Record<string, unknown>
  languageId: (file: string) => string
  /** Aborting kills the server's process group (the App shutting down). */
  abort?: AbortSignal
  /**
   * "tsserver": ask typescript-language-server for the file's diagnostics (tsserver's
   * syntactic + semantic DiagnosticsSync through typescript.tsserverRequest) instead of
   * waiting for pushes: it publishes per kind, and not at all when nothing changed.
   */
  pull?: "tsserver"
  /**
   * It runs in the sandbox's own PID namespace, where wright's pid is not visible: initialize
   * then sends no processId (a server watching a pid it cannot see exits within seconds); it
   * still ends when its stdin closes or bwrap dies with wright.
   */
  sandboxed?: boolean
}

export interface LspClient {
  readonly serverID: string
  readonly root: string
  /** Resolves when the process ended (crash or shutdown); never rejects. */
  readonly exited: Promise<void>
  /** Latest diagnostics per absolute path. */
  readonly diagnostics: Map<string, Diagnostic[]>
  /**
   * Sends the file's current text (didOpen the first time, didChange after) and resolves with
   * its diagnostics once the server reported on this version; "timeout" when `signal` aborts first.
   * Never rejects.
   */
  touch(file: string, signal: AbortSignal): Promise<Diagnostic[] | "timeout">
  /** A request to the server; rejects with the server's error, or when `timeout` ms pass. */
  request<T>(method: string, params: unknown, timeout: number): Promise<T>
  /** Re-reads the project from disk where the server does not watch all of it (tsserver: node_modules). Never rejects. */
  reload(): Promise<void>
  /** Opens `file` if it is not open yet (for queries); resolves at once when it is. */
  open(file: string): Promise<void>
  /** shutdown + exit, then kills the group; resolves within about a second. */
  shutdown(): Promise<void>
}

/** How long diagnostics may keep coming after the first report for a version (TypeScript sends syntax, then semantics). */
const SETTLE_MS = 120

/** Starts the server and runs initialize; rejects when it cannot start, exits, or `startTimeout` passes first (the process is then killed). */
export async function startClient(exec: Exec, spec: ClientSpec, startTimeout: number): Promise<LspClient> {
  const loaded = await import("vscode-jsonrpc/node")
  // A CommonJS package: bundled, its exports sit on `default`.
  const rpc = loaded.default ?? loaded
  const child: Child = await exec(spec.command, { cwd: spec.root, env: spec.env, stdin: "pipe", abort: spec.abort })
  child.stderr.resume()
  let alive = true
  const exited = child.done.then(() => {
    alive = false
    for (const w of waiters) w.wake()
  })
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin!))
  conn.onError(() => {})
  conn.onClose(() => (alive = false))

  const diagnostics = new Map<string, Diagnostic[]>()
  const versions = new Map<string, number>()
  const reported = new Map<string, number>()
  const waiters = new Set<{ file: string; wake(): void }>()
  const rootUri = pathToFileURL(spec.root).href

  conn.onNotification("textDocument/publishDiagnostics", (p: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
    const file = filePath(p.uri)
    // A report for an older version than the one sent last is stale: keep waiting for ours.
    const current = versions.get(file)
    if (p.version !== undefined && p.version !== null && current !== undefined && p.version < current) return
    diagnostics.set(file, p.diagnostics)
    reported.set(file, (reported.get(file) ?? 0) + 1)
    for (const w of waiters) if (w.file === file) w.wake()
  })
  conn.onRequest("workspace/configuration", (p: { items: unknown[] }) => p.items.map(() => spec.initialization ?? {}))
  conn.onRequest("workspace/workspaceFolders", () => [{ name: path.basename(spec.root), uri: rootUri }])
  conn.onRequest("window/workDoneProgress/create", () => null)
  conn.onRequest("client/registerCapability", () => null)
  conn.onRequest("client/unregisterCapability", () => null)
  // Anything else the server asks for gets an empty answer rather than no answer.
  conn.onRequest(() => null)
  conn.onNotification(() => {})
  conn.listen()

  const kill = () => {
    conn.dispose()
    child.kill()
  }
  let capabilities: { diagnosticProvider?: unknown } = {}
  try {
    const init = await bounded(
      conn.sendRequest<{ capabilities?: typeof capabilities }>("initialize", {
        processId: spec.sandboxed ? null : process.pid,
        rootUri,
        rootPath: spec.root,
        workspaceFolders: [{ name: path.basename(spec.root), uri: rootUri }],
        initializationOptions: spec.initialization ?? {},
        capabilities: {
          window: { workDoneProgress: true },
          workspace: { configuration: true, workspaceFolders: true, didChangeWatchedFiles: { dynamicRegistration: true }, symbol: {} },
          textDocument: {
            synchronization: { didOpen: true, didChange: true, didSave: true },
            publishDiagnostics: { versionSupport: true },
            hover: { contentFormat: ["markdown", "plaintext"] },
            definition: {},
            references: {},
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
            diagnostic: { dynamicRegistration: false },
          },
        },
      }),
      startTimeout,
      `did not answer initialize within ${startTimeout} ms`,
      exited,
    )
    capabilities = init.capabilities ?? {}
    await conn.sendNotification("initialized", {})
    if (spec.initialization) await conn.sendNotification("workspace/didChangeConfiguration", { settings: spec.initialization })
    // Before any file opens: tsserver would otherwise walk every folder under node_modules
    // (the one its own lib files live in, whole seconds on a cold start) to watch it. What
    // changes there reaches it through reload() after a command changed the manifests.
    if (spec.pull === "tsserver")
      await bounded(
        conn.sendRequest("workspace/executeCommand", { command: "typescript.tsserverRequest", arguments: ["configure", { watchOptions: { excludeDirectories: ["/**/node_modules"] } }] }),
        startTimeout,
        `did not answer its first request within ${startTimeout} ms`,
        exited,
      )
  } catch (e) {
    kill()
    throw e
  }

  async function sync(file: string): Promise<void> {
    const text = await readFile(file, "utf8")
    const uri = pathToFileURL(file).href
    const version = versions.get(file)
    if (version === undefined) {
      versions.set(file, 0)
      await conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: spec.languageId(file), version: 0, text } })
    } else {
      versions.set(file, version + 1)
      await conn.sendNotification("textDocument/didChange", { textDocument: { uri, version: version + 1 }, contentChanges: [{ text }] })
    }
  }

  /** The file's diagnostics asked for, when the server can be asked; undefined: wait for its push. */
  async function pulled(file: string, signal: AbortSignal): Promise<Diagnostic[] | "timeout" | undefined> {
    const uri = pathToFileURL(file).href
    const within = (p: Promise<unknown>) => race(p, signal)
    if (spec.pull === "tsserver") {
      const ask = (kind: string) => conn.sendRequest("workspace/executeCommand", { command: "typescript.tsserverRequest", arguments: [kind, { file: uri }] })
      const got = await within(Promise.all([ask("syntacticDiagnosticsSync"), ask("semanticDiagnosticsSync")]))
      if (got === undefined) return "timeout"
      const out = (got as unknown[]).flatMap((r) => tsDiagnostics(r))
      diagnostics.set(file, out)
      return out
    }
    if (capabilities.diagnosticProvider) {
      const got = (await within(conn.sendRequest("textDocument/diagnostic", { textDocument: { uri } }))) as { kind?: string; items?: Diagnostic[] } | undefined
      if (got === undefined) return "timeout"
      if (got.kind === "full" && Array.isArray(got.items)) {
        diagnostics.set(file, got.items)
        return got.items
      }
    }
    return undefined
  }

  return {
    serverID: spec.serverID,
    root: spec.root,
    exited,
    diagnostics,
    async touch(file, signal) {
      if (!alive) return "timeout"
      if (spec.pull || capabilities.diagnosticProvider) {
        try {
          await sync(file)
          const got = await pulled(file, signal)
          if (got !== undefined) return got
        } catch {
          return "timeout"
        }
      }
      const before = reported.get(file) ?? 0
      let wake = () => {}
      const waiter = { file, wake: () => wake() }
      waiters.add(waiter)
      try {
        await sync(file)
        // Wait for the first report after this change, then let a quick follow-up (semantic after syntactic) land.
        let settle: NodeJS.Timeout | undefined
        const outcome = await new Promise<"ok" | "timeout">((resolve) => {
          const done = (r: "ok" | "timeout") => {
            clearTimeout(settle)
            signal.removeEventListener("abort", onAbort)
            resolve(r)
          }
          const onAbort = () => done((reported.get(file) ?? 0) > before ? "ok" : "timeout")
          if (signal.aborted) return onAbort()
          signal.addEventListener("abort", onAbort, { once: true })
          wake = () => {
            if (!alive) return done((reported.get(file) ?? 0) > before ? "ok" : "timeout")
            if ((reported.get(file) ?? 0) === before) return
            clearTimeout(settle)
            settle = setTimeout(() => done("ok"), SETTLE_MS)
          }
        })
        return outcome === "ok" ? (diagnostics.get(file) ?? []) : "timeout"
      } catch {
        return "timeout"
      } finally {
        waiters.delete(waiter)
      }
    },
    request: <T>(method: string, params: unknown, timeout: number) =>
      bounded(conn.sendRequest(method, params) as Promise<T>, timeout, `did not answer ${method} within ${timeout} ms`, exited),
    async open(file) {
      if (!versions.has(file)) await sync(file)
    },
    async reload() {
      if (spec.pull !== "tsserver" || !alive) return
      const ask = conn.sendRequest("workspace/executeCommand", { command: "typescript.tsserverRequest", arguments: ["reloadProjects", {}, { expectsResult: false }] })
      await bounded(ask, 30_000, "", exited).catch(() => {})
    },
    async shutdown() {
      if (alive) {
        await bounded(conn.sendRequest("shutdown"), 500, "", exited).catch(() => {})
        await conn.sendNotification("exit").catch(() => {})
      }
      kill()
      await Promise.race([exited, new Promise((r) => setTimeout(r, 1000).unref())])
    },
  }
}

interface TsDiagnostic {
  start: { line: number; offset: number }
  end: { line: number; offset: number }
  text: string
  category?: string
  code?: number
}

/** tsserver's diagnostics (1-based line/offset, category) as LSP ones; whatever wraps them (a response body or not). */
function tsDiagnostics(response: unknown): Diagnostic[] {
  const body = Array.isArray(response) ? response : (response as { body?: unknown } | null)?.body
  if (!Array.isArray(body)) return []
  const severity: Record<string, 1 | 2 | 3 | 4> = { error: 1, warning: 2, suggestion: 4, message: 3 }
  return (body as TsDiagnostic[]).map((d) => ({
    range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
    message: d.text,
    severity: severity[d.category ?? "error"] ?? 1,
    ...(d.code !== undefined ? { code: d.code } : {}),
    source: "typescript",
  }))
}

/** `p`'s value, or undefined once `signal` aborts first. */
function race<T>(p: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener("abort", onAbort, { once: true })
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    )
  })
}

function filePath(uri: string): string {
  try {
    return path.resolve(fileURLToPath(uri))
  } catch {
    return uri
  }
}

/** `p`, or a rejection after `ms` or when the process exits first. */
function bounded<T>(p: Promise<T>, ms: number, message: string, exited: Promise<void>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms)
    }),
    exited.then(() => {
      throw new Error("the server exited")
    }),
  ]).finally(() => clearTimeout(timer))
}
