// The `lsp` tool's questions to the servers of a file: definition, references, hover,
// document and workspace symbols. Positions come in 1-based (as editors show them) and go to
// the server 0-based. Every request is bounded; a server that cannot answer is an error the
// model reads, never a hang.
import { pathToFileURL } from "node:url"
import type { LspManager } from "./manager"

export type LspOperation = "goToDefinition" | "findReferences" | "hover" | "documentSymbol" | "workspaceSymbol"

export interface LspQueries {
  /** Runs one operation against the file's servers; resolves with their answers (empty when none found). Rejects with a readable error. */
  query(input: { operation: LspOperation; file: string; line?: number; character?: number; query?: string }, signal: AbortSignal): Promise<unknown[]>
  /** A tool read `file`: its servers start (and open it) in the background. Returns at once; never throws. */
  warm(file: string): void
}

/** A query may wait for a cold server to load the project; the user can still cancel the call. */
const QUERY_TIMEOUT = 60_000

const METHOD: Record<LspOperation, string> = {
  goToDefinition: "textDocument/definition",
  findReferences: "textDocument/references",
  hover: "textDocument/hover",
  documentSymbol: "textDocument/documentSymbol",
  workspaceSymbol: "workspace/symbol",
}

export function createQueries(manager: LspManager, timeout: number): LspQueries {
  return {
    warm: (file) => manager.warm(file),
    async query(input, signal) {
      const startBound = AbortSignal.any([signal, AbortSignal.timeout(Math.max(timeout, QUERY_TIMEOUT))])
      const clients = await manager.clientsFor(input.file, startBound)
      const uri = pathToFileURL(input.file).href
      const position = { line: Math.max(0, (input.line ?? 1) - 1), character: Math.max(0, (input.character ?? 1) - 1) }
      const params =
        input.operation === "workspaceSymbol" ? { query: input.query ?? "" }
        : input.operation === "documentSymbol" ? { textDocument: { uri } }
        : input.operation === "findReferences" ? { textDocument: { uri }, position, context: { includeDeclaration: true } }
        : { textDocument: { uri }, position }
      const answers = await Promise.all(
        clients.map(async (c) => {
          await c.open(input.file)
          return c.request<unknown>(METHOD[input.operation], params, Math.max(timeout, QUERY_TIMEOUT))
        }),
      )
      return answers.flatMap((a) => (a === null || a === undefined ? [] : Array.isArray(a) ? a : [a]))
    },
  }
}
