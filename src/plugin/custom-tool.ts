// A plugin's `tool({description, args, execute})` as a wright tool. Named as OpenCode names
// them: a tool file's default export is the file's name, a named export `<file>_<export>`;
// a plugin's `tool` hook keys are the names. The call first asks permission under that name
// (so `"permission": {"mytool": "ask"}` works as for a built-in), then runs `execute` with
// the context OpenCode gives it; a string result is the output.
import { z } from "zod"
import { defineTool, Summary, type Tool } from "../tool"

export interface ToolDefinitionLike {
  description: string
  args: Record<string, z.ZodType>
  execute(args: any, ctx: any): Promise<unknown>
}

export function isToolDefinition(v: unknown): v is ToolDefinitionLike {
  if (!v || typeof v !== "object") return false
  const t = v as Record<string, unknown>
  return typeof t.description === "string" && typeof t.execute === "function" && (t.args === undefined || (typeof t.args === "object" && t.args !== null))
}

/** The tools of a tool file's exports, OpenCode's names. */
export function toolsOfModule(fileName: string, mod: Record<string, unknown>): [string, ToolDefinitionLike][] {
  const out: [string, ToolDefinitionLike][] = []
  for (const [key, value] of Object.entries(mod)) {
    if (!isToolDefinition(value)) continue
    out.push([key === "default" ? fileName : `${fileName}_${key}`, value])
  }
  return out
}

export function customTool(id: string, def: ToolDefinitionLike): Tool {
  const parameters = z.object(def.args ?? {})
  return defineTool({
    id,
    description: def.description,
    parameters,
    async execute(args, ctx) {
      await ctx.ask({ permission: id, patterns: ["*"], always: ["*"], metadata: { args } })
      let title: string | undefined
      let metadata: Record<string, unknown> = {}
      const result = await def.execute(args, {
        sessionID: ctx.sessionID,
        messageID: ctx.messageID,
        callID: ctx.callID,
        agent: ctx.agent,
        directory: ctx.directory,
        worktree: ctx.worktree,
        abort: ctx.abort,
        metadata(input: { title?: string; metadata?: Record<string, unknown> }) {
          if (input.title !== undefined) title = input.title
          if (input.metadata) metadata = { ...metadata, ...input.metadata }
          ctx.metadata(input)
        },
        ask: (req: { permission: string; patterns: string[]; always: string[]; metadata?: Record<string, unknown> }) => ctx.ask(req),
      })
      if (typeof result === "string") return { title: title ?? "", output: result, metadata }
      if (result && typeof result === "object" && "output" in result) {
        const r = result as { title?: string; output: unknown; metadata?: Record<string, unknown>; attachments?: { mime: string; url: string; filename?: string }[] }
        return { title: r.title ?? title ?? "", output: String(r.output), metadata: { ...metadata, ...r.metadata }, ...(r.attachments ? { attachments: r.attachments } : {}) }
      }
      return { title: title ?? "", output: result === undefined ? "" : typeof result === "object" ? JSON.stringify(result) : String(result), metadata }
    },
    summary(input) {
      // The tool's name and its first short string argument: what a person needs to follow along.
      const first = Object.values(input).map(Summary.textOf).find((v) => v !== undefined)
      return { title: first ? `${id} ${Summary.oneLine(first, 80)}` : id, kind: "other", locations: [] }
    },
  })
}
