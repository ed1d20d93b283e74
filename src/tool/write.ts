import { readFile } from "node:fs/promises"
import { z } from "zod"
import DESCRIPTION from "./write.txt"
import { assertInsideProject, detectEol, fileDiff, relativePath, resolveTarget, rulePatterns, splitBom, statOrUndefined, toEol, withBom } from "./fs-util"
import { firstChangedLine, metadataOf, projectPath, textOf } from "./summary"
import { defineTool } from "./tool"

export const WriteParameters = z.object({
  filePath: z.string().min(1).describe("The path of the file to write (absolute, or relative to the project directory)"),
  content: z.string().describe("The complete content of the file"),
})
export type WriteParameters = z.infer<typeof WriteParameters>

export const writeTool = defineTool({
  id: "write",
  description: DESCRIPTION,
  parameters: WriteParameters,
  summary(input, state, project) {
    const file = textOf(input.filePath)
    if (!file) return { title: "Write", kind: "edit", locations: [] }
    const shown = projectPath(file, project)
    const line = firstChangedLine(metadataOf(state).diff)
    return { title: `Write ${shown}`, kind: "edit", locations: [{ path: shown, ...(line ? { line } : {}) }] }
  },
  async execute(args, ctx) {
    const target = resolveTarget(ctx, args.filePath)
    const file = target.abs
    const roots = await assertInsideProject(ctx, target, "file")
    const rel = relativePath(ctx, file)

    return ctx.services.files.lock([target.real], async () => {
      const info = await statOrUndefined(file)
      if (info?.isDirectory()) throw new Error(`${file} is a directory. Give the path of a file inside it.`)
      const before = info ? ((await ctx.services.files.readText(file, ctx.sessionID, ctx.abort)) ?? (await readFile(file, "utf8"))) : null
      const after = before === null ? args.content : keepFormat(before, args.content)
      const { diff, additions, deletions } = fileDiff(file, before ?? "", after)

      await ctx.ask({ permission: "edit", patterns: rulePatterns(ctx, args.filePath), always: ["*"], metadata: { filepath: file, diff } })
      ctx.abort.throwIfAborted()
      const notes = await ctx.services.files.write({ roots, file, data: after }, ctx.sessionID)

      return {
        title: rel,
        output: `Wrote file successfully.${notes}`,
        metadata: { diff, filepath: file, additions, deletions, exists: before !== null },
      }
    })
  },
})

/** Overwriting keeps what the model cannot see: the file's BOM and its line endings. */
function keepFormat(before: string, content: string): string {
  const old = splitBom(before)
  const next = old.text.includes("\n") ? toEol(content, detectEol(old.text)) : content
  return withBom(next, old.bom)
}
