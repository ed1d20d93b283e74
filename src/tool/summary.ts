import type { ToolState, ToolSummary } from "../protocol"
import type { Tool } from "./tool"

/**
 * The summary of a call: the tool's own `summary()`, or for tools without one (MCP tools,
 * an unknown name) the tool's name as title and kind "other". Never throws.
 */
export function summarize(tool: Tool | undefined, name: string, input: Record<string, unknown>, state: ToolState, project: { directory: string; worktree: string }): ToolSummary {
  if (tool?.summary) {
    try {
      return tool.summary(input, state, project)
    } catch {
      // A summary is cosmetic: a bad input must not break the call; fall through.
    }
  }
  return { title: name, kind: "other", locations: [] }
}
