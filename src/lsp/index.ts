// Code intelligence for the files tools write: formatters, then language-server diagnostics,
// reported back into the tool's result through the file writer's afterWrite (never by the
// tools themselves), published as `lsp.diagnostics`, and the `lsp` tool's queries. Servers
// start lazily on the first file of their language: a session that writes no file loads no
// JSON-RPC code and starts no process. Nothing here blocks a tool beyond `lsp.timeout`.
import { existsSync } from "node:fs"
import path from "node:path"
import type { Config } from "../config"
import type { Exec } from "../process"
import { createFormatters } from "./format"
import { createLspManager, type LspManager } from "./manager"
import { errorBlock, formatNote, lateNote } from "./report"
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
  /** Publishes `lsp.diagnostics` and `lsp.updated` on the App's bus. */
  publish(event: { type: "lsp.diagnostics"; properties: { file: string; errors: number; warnings: number } } | { type: "lsp.updated"; properties: Record<string, never> }): void
  /** How long a server may take to answer initialize before it counts as hung (tests shorten it). */
  startTimeout?: number
}

export function createCodeIntel(deps: CodeIntelDeps) {
  const directory = path.resolve(deps.directory)
  const lspConfig = deps.config.lsp
  const timeout = (lspConfig && typeof lspConfig === "object" && typeof lspConfig.timeout === "number" ? lspConfig.timeout : undefined) ?? DEFAULT_TIMEOUT
  const manager: LspManager = createLspManager({
    config: lspConfig,
    exec: deps.exec,
    directory,
    env: deps.env,
    trusted: deps.trusted,
    startTimeout: deps.startTimeout,
    onStatus: () => deps.publish({ type: "lsp.updated", properties: {} }),
  })
  const formatters = createFormatters({ config: deps.config.formatter, exec: deps.exec, directory, env: deps.env, trusted: deps.trusted })

  /** The afterWrite subscriber: format each changed file, then report its errors. Never throws. */
  async function afterWrite(files: string[]): Promise<string> {
    const present = files.filter((f) => existsSync(f))
    let notes = ""
    for (const file of present) {
      const outcome = await formatters.format(file)
      if (outcome.kind === "failed") notes += `\n\nThe formatter ${outcome.formatter} failed on ${path.relative(directory, file) || file} (${outcome.error}); the file was kept as written.`
      if (outcome.kind === "changed") {
        const { structuredPatch } = await import("diff")
        notes += formatNote(file, outcome.formatter, structuredPatch(file, file, outcome.before, outcome.after, "", "", { context: 0 }).hunks, directory)
      }
    }
    const checked = present.filter((f) => manager.handles(f))
    if (checked.length === 0) return notes
    const deadline = AbortSignal.timeout(timeout)
    const results = await Promise.all(checked.map((f) => manager.touch(f, deadline)))
    for (const r of results) {
      const errors = r.diagnostics.filter((d) => (d.severity ?? 1) === 1).length
      deps.publish({ type: "lsp.diagnostics", properties: { file: r.file, errors, warnings: r.diagnostics.filter((d) => d.severity === 2).length } })
      for (const n of r.notices) notes += `\n\n${n}`
      notes += errorBlock(r.file, r.diagnostics, files.length === 1 ? "this file" : path.relative(directory, r.file) || r.file)
      if (r.late.length > 0) notes += lateNote(r.file, r.late, timeout, directory)
    }
    return notes
  }

  const queries: LspQueries = createQueries(manager, timeout)
  return {
    afterWrite,
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
