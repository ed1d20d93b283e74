// Code intelligence for the files tools write: formatters, then language-server diagnostics,
// reported back into the tool's result through the file writer's afterWrite (never by the
// tools themselves), published as `lsp.diagnostics`, and the `lsp` tool's queries. Servers
// start lazily on the first file of their language: a session that writes no file loads no
// JSON-RPC code and starts no process. A write waits only for a warm server, about as long as
// its recent answers took and never beyond `lsp.timeout`; what a server reports after the
// write returned (it was installing, starting, or slow) is published on the bus and kept for
// the session's next tool result (takeLate), marked as late.
import { existsSync, statSync } from "node:fs"
import path from "node:path"
import type { Config } from "../config"
import type { Exec, Sandbox } from "../process"
import { createFormatters } from "./format"
import { isolate } from "./isolation"
import { createLspManager, type LspManager } from "./manager"
import { errorBlock, formatNote, lateReport, pendingNote, slowNote } from "./report"
import { createQueries, type LspQueries } from "./query"

export { createLspManager, type LspManager, type ServerStatus, type TouchResult } from "./manager"
export { createFormatters, formatterDefs, type FormatterStatus, type Formatters } from "./format"
export { serverDefs, findRoot, findBinary } from "./servers"
export { pretty, errorBlock } from "./report"
export type { LspOperation, LspQueries } from "./query"

export const DEFAULT_TIMEOUT = 3000

export interface CodeIntelDeps {
  config: Pick<Config, "lsp" | "formatter">
  exec: Exec
  directory: string
  env: NodeJS.ProcessEnv
  /** The project's own config and binaries apply (config/trust.ts). */
  trusted: boolean
  /**
   * The App's sandbox. Untrusted, servers and formatters run only inside it, without network
   * (isolation.ts); undefined, off or unavailable: they do not run at all.
   */
  sandbox?: Sandbox
  /** Publishes `lsp.diagnostics` and `lsp.updated` on the App's bus. */
  publish(event: { type: "lsp.diagnostics"; properties: { file: string; errors: number; warnings: number } } | { type: "lsp.updated"; properties: Record<string, never> }): void
  /** How long a server may take to answer initialize before it counts as hung (tests shorten it). */
  startTimeout?: number
  /** wright's cache directory: npm-based servers found nowhere else are installed under it. Undefined: never installed. */
  cacheDir?: string
  /** Where install progress goes ("Installing the bash language server…"); must not throw. */
  progress?(line: string): void
  /** Holds a server's npm install until the App is idle (manager.ts); default: it starts at once. */
  installWhen?(start: () => void): void
}

/** WRIGHT_DISABLE_LSP_DOWNLOAD (or OpenCode's OPENCODE_DISABLE_LSP_DOWNLOAD) set to 1 or true. */
export function downloadsDisabled(env: NodeJS.ProcessEnv): boolean {
  return [env.WRIGHT_DISABLE_LSP_DOWNLOAD, env.OPENCODE_DISABLE_LSP_DOWNLOAD].some((v) => v === "1" || v?.toLowerCase() === "true")
}

export function createCodeIntel(deps: CodeIntelDeps) {
  const directory = path.resolve(deps.directory)
  const lspConfig = deps.config.lsp
  const timeout = (lspConfig && typeof lspConfig === "object" && typeof lspConfig.timeout === "number" ? lspConfig.timeout : undefined) ?? DEFAULT_TIMEOUT
  const isolation = isolate({ exec: deps.exec, trusted: deps.trusted, sandbox: deps.sandbox, cacheDir: deps.cacheDir, env: deps.env })
  const manager: LspManager = createLspManager({
    config: lspConfig,
    exec: isolation.lspExec,
    installExec: deps.exec,
    installWhen: deps.installWhen,
    sandboxed: isolation.sandboxed,
    refuse: isolation.refuse,
    allowRead: isolation.allowRead,
    directory,
    env: deps.env,
    trusted: deps.trusted,
    startTimeout: deps.startTimeout,
    ...(deps.cacheDir ? { download: { cacheDir: deps.cacheDir, enabled: !downloadsDisabled(deps.env) } } : {}),
    progress: deps.progress,
    onStatus: () => deps.publish({ type: "lsp.updated", properties: {} }),
  })
  const formatters = createFormatters({ config: deps.config.formatter, exec: isolation.formatExec, directory, env: deps.env, trusted: deps.trusted, refuse: isolation.refuse })
  let isolationNoted = false

  /** How project tools run here, once per App, with the first file a server or formatter would see ("" after). */
  function isolationNote(files: string[]): string {
    if (isolationNoted || !isolation.notice || !files.some((f) => manager.handles(f) || formatters.handles(f))) return ""
    isolationNoted = true
    deps.progress?.(isolation.notice)
    return `\n\n${isolation.notice}`
  }

  /** The afterWrite subscriber: format each changed file, then report its errors. Never throws. */
  async function afterWrite(files: string[], sessionID?: string): Promise<string> {
    const present = files.filter((f) => existsSync(f))
    let notes = isolationNote(present)
    for (const file of present) {
      const outcome = await formatters.format(file)
      if (outcome.kind === "failed") notes += `\n\nThe formatter ${outcome.formatter} failed on ${path.relative(directory, file) || file} (${outcome.error}); the file was kept as written.`
      if (outcome.kind === "changed") {
        const { structuredPatch } = await import("diff")
        notes += formatNote(file, outcome.formatter, structuredPatch(file, file, outcome.before, outcome.after, "", "", { context: 0 }).hunks, directory)
      }
    }
    return notes + (await diagnose(present, files.length === 1 ? "this file" : undefined, sessionID))
  }

  /** Late reports per session ("" for none known), in arrival order, until a tool result takes them. */
  const lateBySession = new Map<string, string[]>()
  /** How many touches each file had: a late report about an older version than the newest is dropped. */
  const touches = new Map<string, number>()

  /**
   * The errors of `files` that have a server, as a tool result's notes ("" for none); published
   * on the bus too. Servers not ready or slow report later, to the session's next tool result. Never throws.
   */
  async function diagnose(files: string[], label?: string, sessionID?: string): Promise<string> {
    const checked = files.filter((f) => manager.handles(f))
    if (checked.length === 0) return ""
    let notes = ""
    const deadline = AbortSignal.timeout(timeout)
    const results = await Promise.all(
      checked.map((f) => {
        touches.set(f, (touches.get(f) ?? 0) + 1)
        return manager.touch(f, deadline)
      }),
    )
    for (const r of results) {
      if ((r.pending.length === 0 && r.late.length === 0) || r.diagnostics.length > 0) publish(r.file, r.diagnostics)
      for (const n of r.notices) notes += `\n\n${n}`
      notes += errorBlock(r.file, r.diagnostics, label ?? (path.relative(directory, r.file) || r.file))
      if (r.pending.length > 0) notes += pendingNote(r.file, r.pending, directory)
      if (r.late.length > 0) notes += slowNote(r.file, r.late, directory)
      if (r.pending.length > 0 || r.late.length > 0) {
        const version = touches.get(r.file)
        void r.later.then((reports) => {
          // A newer write of the file has its own report coming.
          if (touches.get(r.file) !== version || reports.length === 0) return
          const diagnostics = reports.flatMap((x) => x.diagnostics ?? [])
          if (reports.some((x) => x.diagnostics)) publish(r.file, [...r.diagnostics, ...diagnostics])
          const text = lateReport(r.file, reports, directory)
          if (!text) return
          const key = sessionID ?? ""
          lateBySession.set(key, [...(lateBySession.get(key) ?? []), text])
        })
      }
    }
    return notes
  }

  function publish(file: string, diagnostics: { severity?: number }[]) {
    const errors = diagnostics.filter((d) => (d.severity ?? 1) === 1).length
    deps.publish({ type: "lsp.diagnostics", properties: { file, errors, warnings: diagnostics.filter((d) => d.severity === 2).length } })
  }

  /**
   * The late reports kept for `sessionID` (and for no session: a command's), as notes for the
   * tool result being finalized, then forgotten; "" for none. Never throws.
   */
  function takeLate(sessionID: string): string {
    const notes = [...(lateBySession.get(sessionID) ?? []), ...(lateBySession.get("") ?? [])]
    lateBySession.delete(sessionID)
    lateBySession.delete("")
    return notes.join("")
  }

  /** What a command's end is compared with: when the package managers' own records under node_modules last changed. */
  function commandStarted(): InstallStamp {
    return installStamp(directory)
  }

  /**
   * A command ended, having changed `files` (absolute; from the snapshot store). When it
   * installed packages (a manifest, lockfile or node_modules record changed), the servers that
   * do not watch node_modules reload their projects first. Resolves with the errors of the
   * changed files that have a server, like a write's ("" for none). Never throws.
   */
  async function commandEnded(stamp: InstallStamp, files: string[], sessionID?: string): Promise<string> {
    if (lspConfig === false) return ""
    if (installStamp(directory) !== stamp || files.some((f) => MANIFESTS.has(path.basename(f)))) await manager.reload()
    const inside = files.filter((f) => !path.relative(directory, f).startsWith("..") && manager.handles(f) && existsSync(f))
    // A command that rewrote a whole tree (a checkout, a code generator) is not checked file by file.
    const more = inside.length > MAX_COMMAND_FILES ? `\n\n${inside.length - MAX_COMMAND_FILES} more changed files were not checked for errors.` : ""
    return (await diagnose(inside.slice(0, MAX_COMMAND_FILES), undefined, sessionID)) + more
  }

  const queries: LspQueries = createQueries(manager, timeout)
  return {
    afterWrite,
    commandStarted,
    commandEnded,
    takeLate,
    /** Whether any language server could report on files (config leaves one). */
    enabled: () => lspConfig !== false && manager.any(),
    manager,
    formatters,
    queries,
    timeout,
    /** GET /lsp */
    status: () => manager.status(),
    /** GET /formatter */
    formatterStatus: () => formatters.status(),
    shutdown: () => manager.shutdown(),
  }
}

export type CodeIntel = ReturnType<typeof createCodeIntel>

/** How many of the files one command changed get checked. */
const MAX_COMMAND_FILES = 10

/** Files whose change means packages were (re)installed or the TypeScript setup changed. */
const MANIFESTS = new Set(["package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb", "tsconfig.json", "jsconfig.json"])
/** What npm, yarn, pnpm and bun rewrite in node_modules on every install. */
const INSTALL_RECORDS = [".package-lock.json", ".yarn-integrity", ".modules.yaml", ".yarn-state.yml"]

type InstallStamp = string

function installStamp(directory: string): InstallStamp {
  return INSTALL_RECORDS.map((name) => {
    try {
      return statSync(path.join(directory, "node_modules", name)).mtimeMs
    } catch {
      return 0
    }
  }).join(",")
}
