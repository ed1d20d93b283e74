import type { Tool, ToolContext, ToolResult } from "./tool"
import { parseArguments } from "./tool"
import { truncateOutput } from "./truncate"

export interface ToolRegistry {
  all(): Tool[]
  get(id: string): Tool | undefined
  /** The tools offered to a model: GPT-family models get apply_patch instead of edit/write, as OpenCode does. */
  forModel(modelID: string): Tool[]
  /** Adds or replaces a tool (tools built after the registry: task, MCP). */
  add(tool: Tool): void
  remove(id: string): void
}

export function usesApplyPatch(modelID: string): boolean {
  const id = modelID.toLowerCase()
  return id.includes("gpt-") && !id.includes("oss") && !id.includes("gpt-4")
}

export function createToolRegistry(tools: Tool[]): ToolRegistry {
  const byId = new Map(tools.map((t) => [t.id, t]))
  return {
    all: () => [...byId.values()],
    get: (id) => byId.get(id),
    add: (tool) => void byId.set(tool.id, tool),
    remove: (id) => void byId.delete(id),
    forModel(modelID) {
      const patch = usesApplyPatch(modelID)
      return [...byId.values()].filter((t) => {
        if (t.id === "apply_patch") return patch
        if (t.id === "edit" || t.id === "write") return !patch
        return true
      })
    },
  }
}

/** Validates the model's arguments, runs the tool, and applies the shared truncation policy. */
export async function runTool(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const args = parseArguments(tool, input)
  const result = await tool.execute(args, ctx)
  if (result.metadata.truncated !== undefined) return result
  const cut = truncateOutput(result.output, { ...ctx.limits, outputDir: ctx.outputDir, canDelegate: ctx.canDelegate })
  return {
    ...result,
    output: cut.content,
    metadata: { ...result.metadata, truncated: cut.truncated, ...(cut.outputPath ? { outputPath: cut.outputPath } : {}) },
  }
}
