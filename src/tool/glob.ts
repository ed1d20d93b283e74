import { stat } from "node:fs/promises"
import path from "node:path"
import { z } from "zod"
import DESCRIPTION from "./glob.txt"
import { assertInsideProject, capOutput, relativePath, resolveTarget, statOrUndefined } from "./fs-util"
import { BASE_FLAGS, ripgrep } from "./ripgrep"
import { oneLine, projectPath, textOf } from "./summary"
import { defineTool } from "./tool"

const LIMIT = 100

export const GlobParameters = z.object({
  pattern: z.string().min(1).describe('The glob pattern to match files against, e.g. "**/*.ts" or "src/**/*.test.ts"'),
  path: z
    .string()
    .optional()
    .describe("The directory to search in. Omit it to search the project directory (do not pass \"undefined\" or \"null\")."),
})
export type GlobParameters = z.infer<typeof GlobParameters>

export const globTool = defineTool({
  id: "glob",
  description: DESCRIPTION,
  parameters: GlobParameters,
  summary(input, _state, project) {
    const pattern = textOf(input.pattern)
    const where = projectPath(textOf(input.path) ?? ".", project)
    const title = `Glob${pattern ? ` "${oneLine(pattern, 80)}"` : ""}${where === "." ? "" : ` in ${where}`}`
    return { title, kind: "search", locations: [{ path: where }] }
  },
  async execute(args, ctx) {
    const target = resolveTarget(ctx, args.path ?? ".")
    const info = await statOrUndefined(target.abs)
    if (!info) throw new Error(`Directory not found: ${target.abs}. Pass an existing directory as path, or omit path to search the project.`)
    if (!info.isDirectory()) throw new Error(`glob path must be a directory, but ${target.abs} is a file. Use read to open a file.`)
    await assertInsideProject(ctx, target, "directory")
    await ctx.ask({ permission: "glob", patterns: [args.pattern], always: ["*"], metadata: { pattern: args.pattern, path: target.abs } })

    const found: string[] = []
    // The user's glob first: for rg the later glob wins, so `!.git` must come after it.
    await ripgrep({
      exec: ctx.services.exec,
      cwd: target.abs,
      args: ["--files", `--glob=${args.pattern}`, ...BASE_FLAGS],
      signal: ctx.abort,
      onLine: (line) => void (line && found.push(path.join(target.abs, line))),
    })
    const files = await newestFirst(found, ctx.abort)
    const truncated = files.length > LIMIT
    const shown = files.slice(0, LIMIT)

    const lines = shown.length === 0 ? ["No files found"] : [...shown]
    if (truncated) {
      lines.push("", `(Results are truncated: showing first ${LIMIT} results. Consider using a more specific path or pattern.)`)
    }
    const cut = capOutput(ctx, lines.join("\n"))
    return {
      title: relativePath(ctx, target.abs),
      output: cut.output,
      metadata: { count: shown.length, truncated: truncated || cut.truncated, ...(cut.outputPath ? { outputPath: cut.outputPath } : {}) },
    }
  },
})

/** Sorts by modification time, newest first (then by path, so ties are stable). */
async function newestFirst(files: string[], signal: AbortSignal): Promise<string[]> {
  const times = new Map<string, number>()
  for (let i = 0; i < files.length; i += 128) {
    signal.throwIfAborted()
    const batch = files.slice(i, i + 128)
    const stats = await Promise.all(batch.map((f) => stat(f).then((s) => s.mtimeMs, () => 0)))
    batch.forEach((f, j) => times.set(f, stats[j]!))
  }
  return [...files].sort((a, b) => times.get(b)! - times.get(a)! || a.localeCompare(b))
}
