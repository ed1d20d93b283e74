import { z } from "zod"
import DESCRIPTION from "./lsp.txt"
import { assertInsideProject, relativePath, resolveTarget, rulePatterns, statOrUndefined } from "./fs-util"
import { projectPath, textOf } from "./summary"
import { defineTool } from "./tool"

// Off unless enabled, as OpenCode gates it (OPENCODE_EXPERIMENTAL_LSP_TOOL; wright also reads
// WRIGHT_EXPERIMENTAL_LSP_TOOL). The servers are asked through ctx.services.lsp, never directly.

export const LspOperation = z.enum(["goToDefinition", "findReferences", "hover", "documentSymbol", "workspaceSymbol"])

export const LspParameters = z.object({
  operation: LspOperation.describe("What to ask the language server"),
  filePath: z.string().min(1).describe("The file to ask about (absolute, or relative to the project directory)"),
  line: z.number().int().min(1).optional().describe("1-based line of the symbol (goToDefinition, findReferences, hover)"),
  character: z.number().int().min(1).optional().describe("1-based column of the symbol (goToDefinition, findReferences, hover)"),
  query: z.string().optional().describe("The symbol name to search for (workspaceSymbol)"),
})
export type LspParameters = z.infer<typeof LspParameters>

const POSITIONAL = new Set(["goToDefinition", "findReferences", "hover"])

export const lspTool = defineTool({
  id: "lsp",
  description: DESCRIPTION,
  parameters: LspParameters,
  summary(input, _state, project) {
    const file = textOf(input.filePath)
    const op = textOf(input.operation) ?? "query"
    if (!file) return { title: `LSP ${op}`, kind: "search", locations: [] }
    const shown = projectPath(file, project)
    const line = typeof input.line === "number" ? input.line : undefined
    return { title: `LSP ${op} ${shown}${line ? `:${line}` : ""}`, kind: "search", locations: [{ path: shown, ...(line ? { line } : {}) }] }
  },
  async execute(args, ctx) {
    const lsp = ctx.services.lsp
    if (!lsp) throw new Error("No language servers are available in this session (lsp: false in config).")
    if (POSITIONAL.has(args.operation) && (args.line === undefined || args.character === undefined)) {
      throw new Error(`${args.operation} needs line and character (1-based). Give the position of the symbol.`)
    }
    const target = resolveTarget(ctx, args.filePath)
    await assertInsideProject(ctx, target, "file")
    if (!(await statOrUndefined(target.abs))?.isFile()) throw new Error(`File not found: ${target.abs}`)
    await ctx.ask({ permission: "lsp", patterns: rulePatterns(ctx, args.filePath), always: ["*"], metadata: { operation: args.operation, filepath: target.abs } })
    const results = await lsp.query({ operation: args.operation, file: target.abs, line: args.line, character: args.character, query: args.query }, ctx.abort)
    const rel = relativePath(ctx, target.abs)
    const title = `${args.operation} ${rel}${args.line ? `:${args.line}:${args.character}` : ""}`
    if (results.length === 0) return { title, output: `No results found for ${args.operation}.`, metadata: { results: [] } }
    return { title, output: JSON.stringify(results, null, 2), metadata: { results } }
  },
})
