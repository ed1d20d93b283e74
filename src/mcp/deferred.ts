// Deferred MCP tools: when the MCP tools' definitions would take more than `mcp.max_tool_share`
// of the model's context, they are not sent. The model gets `mcp_tool_search` instead, which
// lists the MCP tools matching a query and loads them: from the next step on, the loaded ones
// are sent like any tool. What a session loaded is read back from its own history (the search
// calls' metadata), so it survives a restart and a compaction that keeps the calls.
import { z } from "zod"
import { defineTool, type Tool } from "../tool"

export const TOOL_SEARCH_ID = "mcp_tool_search"

/** Rough tokens of one tool definition as the provider gets it (about four characters a token). */
export function definitionTokens(tool: Tool): number {
  return Math.ceil(JSON.stringify({ name: tool.id, description: tool.description, parameters: tool.jsonSchema }).length / 4)
}

export interface DeferInput {
  /** The step's tools; MCP ones beyond the budget are taken out and the search tool put in. */
  tools: Map<string, Tool>
  /** The MCP server a tool comes from; undefined for every other tool. */
  serverOf(tool: Tool): string | undefined
  /** The model's context window in tokens (0: unknown, nothing is deferred). */
  context: number
  /** `mcp.max_tool_share` (default 0.1). */
  share: number
  /** Tool ids the session's searches loaded; called only when tools are deferred (it walks the history). */
  loaded(): ReadonlySet<string>
}

/** Applies the budget to `tools` in place; returns the deferred tools (empty when everything fits). */
export function deferMcpTools(input: DeferInput): Tool[] {
  const mcp = [...input.tools.values()].filter((t) => input.serverOf(t) !== undefined)
  if (!mcp.length || input.context <= 0) return []
  const total = mcp.reduce((sum, t) => sum + definitionTokens(t), 0)
  if (total <= input.share * input.context) return []
  const loaded = input.loaded()
  const deferred = mcp.filter((t) => !loaded.has(t.id))
  for (const t of deferred) input.tools.delete(t.id)
  const servers = [...new Set(deferred.map((t) => input.serverOf(t)!))]
  input.tools.set(TOOL_SEARCH_ID, toolSearch(deferred, mcp.length, servers))
  return deferred
}

/** The ids loaded by completed `mcp_tool_search` calls in these messages' parts. */
export function loadedTools(messages: { parts: { type: string; tool?: string; state?: unknown }[] }[]): Set<string> {
  const out = new Set<string>()
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type !== "tool" || p.tool !== TOOL_SEARCH_ID) continue
      const state = p.state as { status?: string; metadata?: { loaded?: unknown } }
      if (state.status !== "completed" || !Array.isArray(state.metadata?.loaded)) continue
      for (const id of state.metadata.loaded) if (typeof id === "string") out.add(id)
    }
  }
  return out
}

/** Ranks tools for a query: every word that appears in the name counts three, in the description one. */
export function searchTools(tools: Tool[], query: string, limit: number): Tool[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
  const exact = tools.find((t) => t.id.toLowerCase() === query.trim().toLowerCase())
  if (exact) return [exact]
  const scored = tools
    .map((t) => {
      const name = t.id.toLowerCase()
      const description = t.description.toLowerCase()
      let score = 0
      for (const w of words) score += (name.includes(w) ? 3 : 0) + (description.includes(w) ? 1 : 0)
      return { t, score }
    })
    .filter((x) => x.score > 0)
  scored.sort((a, b) => b.score - a.score || a.t.id.localeCompare(b.t.id))
  return scored.slice(0, limit).map((x) => x.t)
}

function toolSearch(deferred: Tool[], total: number, servers: string[]): Tool {
  const tool = defineTool({
    id: TOOL_SEARCH_ID,
    description:
      `${deferred.length} of ${total} tools from MCP servers (${servers.slice(0, 12).join(", ")}${servers.length > 12 ? ", …" : ""}) are not loaded, to save context. ` +
      "Search them by what you need (keywords, or a tool's exact name): the matching tools are listed with their descriptions and loaded, " +
      "so you can call them from your next step on. Search before saying a capability is missing.",
    parameters: z.object({
      query: z.string().describe("Keywords describing the capability, or an exact tool name"),
      limit: z.number().int().min(1).max(25).optional().describe("Most tools to load (default 5)"),
    }),
    async execute(args) {
      const found = searchTools(deferred, args.query, args.limit ?? 5)
      if (!found.length) {
        return { title: `No MCP tool for "${args.query}"`, output: `No deferred MCP tool matches "${args.query}". Try other keywords.`, metadata: { loaded: [] } }
      }
      const lines = found.map((t) => {
        const params = Object.keys((t.jsonSchema.properties as Record<string, unknown> | undefined) ?? {})
        const description = t.description.length > 300 ? `${t.description.slice(0, 300)}…` : t.description
        return `- ${t.id}(${params.join(", ")}): ${description}`
      })
      return {
        title: `${found.length} MCP tool${found.length === 1 ? "" : "s"} for "${args.query}"`,
        output: `Loaded; call them in your next step:\n${lines.join("\n")}`,
        metadata: { loaded: found.map((t) => t.id) },
      }
    },
  })
  return tool as unknown as Tool
}
