import { readFile } from "node:fs/promises"
import { z } from "zod"
import DESCRIPTION from "./edit.txt"
import { applyEdit } from "./edit/engine"
import { assertInsideProject, fileDiff, isBinaryFile, nearNames, relativePath, resolveTarget, rulePatterns, statOrUndefined } from "./fs-util"
import { firstChangedLine, metadataOf, projectPath, textOf } from "./summary"
import { defineTool } from "./tool"

export const EditParameters = z.object({
  filePath: z.string().min(1).describe("The path of the file to modify (absolute, or relative to the project directory)"),
  oldString: z.string().describe("The exact text to replace; empty to create a new file with newString as its content"),
  newString: z.string().describe("The text to replace it with (must differ from oldString)"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence of oldString (default false)"),
})
export type EditParameters = z.infer<typeof EditParameters>

export const editTool = defineTool({
  id: "edit",
  description: DESCRIPTION,
  parameters: EditParameters,
  summary(input, state, project) {
    const file = textOf(input.filePath)
    if (!file) return { title: "Edit", kind: "edit", locations: [] }
    const shown = projectPath(file, project)
    // Where the change landed is known once the edit has been made (the diff in its metadata).
    const line = firstChangedLine(metadataOf(state).diff)
    return { title: `Edit ${shown}`, kind: "edit", locations: [{ path: shown, ...(line ? { line } : {}) }] }
  },
  async execute(args, ctx) {
    const target = resolveTarget(ctx, args.filePath)
    const file = target.abs
    const roots = await assertInsideProject(ctx, target, "file")
    const rel = relativePath(ctx, file)

    // Read, replace and write under one lock: parallel edits of a file apply one after another.
    return ctx.services.files.lock([target.real], async () => {
      const info = await statOrUndefined(file)
      let before: string | null = null
      let after: string
      let matcher = "create"
      let count = 1
      if (!info) {
        if (args.oldString !== "") {
          const near = await nearNames(file)
          throw new Error(
            `File not found: ${file}${near.length ? `\n\nDid you mean one of these?\n${near.join("\n")}` : ""}\n` +
              `To create a new file, call edit with an empty oldString, or use the write tool.`,
          )
        }
        after = args.newString
      } else {
        if (info.isDirectory()) throw new Error(`${file} is a directory. Give the path of a file inside it.`)
        if (await isBinaryFile(file, info.size)) throw new Error(`Cannot edit binary file: ${file}`)
        before = (await ctx.services.files.readText(file, ctx.sessionID, ctx.abort)) ?? (await readFile(file, "utf8"))
        if (args.oldString === "" && (before === "" || before === "\uFEFF")) {
          after = before + args.newString
        } else {
          const result = applyEdit(before, args.oldString, args.newString, args.replaceAll)
          after = result.text
          matcher = result.matcher
          count = result.count
        }
      }
      const { diff, additions, deletions } = fileDiff(file, before ?? "", after)

      await ctx.ask({ permission: "edit", patterns: rulePatterns(ctx, args.filePath), always: ["*"], metadata: { filepath: file, diff } })
      ctx.abort.throwIfAborted()
      const notes = await ctx.services.files.write({ roots, file, data: after }, ctx.sessionID)

      return {
        title: rel,
        output: `Edit applied successfully.${notes}`,
        metadata: { diff, filepath: file, additions, deletions, matcher, replacements: count },
      }
    })
  },
})
