import { z } from "zod"
import DESCRIPTION from "./apply-patch.txt"
import { assertInsideProject, fileDiff, relativePath, resolveTarget, rulePatterns } from "./fs-util"
import { commitPatch, parsePatch, planPatch, type PlannedChange } from "./patch-engine"
import { defineTool, type ToolContext } from "./tool"

export const ApplyPatchParameters = z.object({
  patchText: z.string().describe("The full patch, from `*** Begin Patch` to `*** End Patch`"),
})
export type ApplyPatchParameters = z.infer<typeof ApplyPatchParameters>

export const applyPatchTool = defineTool({
  id: "apply_patch",
  description: DESCRIPTION,
  parameters: ApplyPatchParameters,
  async execute(args, ctx) {
    const ops = parsePatch(args.patchText)
    // Paths are checked before planning reads any file, so nothing outside the project is
    // opened (or quoted in a verification error) without the external_directory answer.
    const named = ops.flatMap((op) => (op.type === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path]))
    const targets = named.map((p) => resolveTarget(ctx, p))
    const seen = new Set<string>()
    const roots = new Set<string>()
    for (const target of targets) {
      if (seen.has(target.abs)) continue
      seen.add(target.abs)
      for (const root of await assertInsideProject(ctx, target, "file")) roots.add(root)
    }
    const plan = await planPatch(ops, ctx.directory)

    const files = plan.map((c) => describe(ctx, c))
    const diff = files.map((f) => f.diff).join("\n")
    const paths = plan.flatMap((c) => (c.moveTo ? [c.path, c.moveTo] : [c.path]))
    const shown = [...new Set(paths.map((p) => relativePath(ctx, p)))]
    await ctx.ask({
      permission: "edit",
      patterns: [...new Set(paths.flatMap((p) => rulePatterns(ctx, p)))],
      always: ["*"],
      metadata: { filepath: shown.join(", "), diff, files },
    })
    ctx.abort.throwIfAborted()

    // Plan again under the locks of every file touched, so a concurrent edit is not lost,
    // then write all or nothing.
    const keys = [...new Set(targets.map((t) => t.real))].sort()
    await withLocks(ctx, keys, async () => commitPatch(await planPatch(ops, ctx.directory), undefined, [...roots]))

    const summary = plan.map((c) => {
      const letter = c.type === "add" ? "A" : c.type === "delete" ? "D" : "M"
      return `${letter} ${relativePath(ctx, c.moveTo ?? c.path)}`
    })
    const output = `Success. Updated the following files:\n${summary.join("\n")}`
    return {
      title: summary.length === 1 ? summary[0]!.slice(2) : `${summary.length} files`,
      output,
      metadata: { diff, files },
    }
  },
})

function describe(ctx: ToolContext, c: PlannedChange) {
  const shown = c.moveTo ?? c.path
  const { diff, additions, deletions } = fileDiff(shown, c.before ?? "", c.after ?? "")
  return {
    filePath: c.path,
    relativePath: relativePath(ctx, shown),
    type: c.type,
    diff,
    additions,
    deletions,
    ...(c.moveTo ? { movePath: c.moveTo } : {}),
  }
}

function withLocks<T>(ctx: ToolContext, keys: string[], fn: () => Promise<T>): Promise<T> {
  if (keys.length === 0) return fn()
  const [first, ...rest] = keys
  return ctx.services.withFileLock(first!, () => withLocks(ctx, rest, fn))
}
