import { z } from "zod"
import DESCRIPTION from "./apply-patch.txt"
import { assertInsideProject, fileDiff, relativePath, resolveTarget, rulePatterns } from "./fs-util"
import { parsePatch, planPatch, type PlannedChange } from "./patch/engine"
import type { ToolState, ToolSummary } from "../protocol"
import { firstChangedLine, metadataOf, projectPath, textOf, type SummaryProject } from "./summary"
import { defineTool, type ToolContext } from "./tool"

export const ApplyPatchParameters = z.object({
  patchText: z.string().describe("The full patch, from `*** Begin Patch` to `*** End Patch`"),
})
export type ApplyPatchParameters = z.infer<typeof ApplyPatchParameters>

export const applyPatchTool = defineTool({
  id: "apply_patch",
  description: DESCRIPTION,
  parameters: ApplyPatchParameters,
  summary: patchSummary,
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
    // then write all or nothing, as one batch.
    const writer = ctx.services.files
    const notes = await writer.lock(targets.map((t) => t.real), async () => writer.commit(await planPatch(ops, ctx.directory), [...roots]))

    const summary = plan.map((c) => {
      const letter = c.type === "add" ? "A" : c.type === "delete" ? "D" : "M"
      return `${letter} ${relativePath(ctx, c.moveTo ?? c.path)}`
    })
    const output = `Success. Updated the following files:\n${summary.join("\n")}${notes}`
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

const SECTION = /^\*\*\* (Add File|Delete File|Update File|Move to):(.*)$/

/**
 * The files a patch names, read from its section headers without parsing the rest, so a
 * patch still streaming in (or one that will be rejected) is summarised all the same.
 */
function patchSummary(input: Record<string, unknown>, state: ToolState, project: SummaryProject): ToolSummary {
  const files: { op: string; path: string; moveTo?: string }[] = []
  for (const line of (textOf(input.patchText) ?? "").split("\n")) {
    const m = SECTION.exec(line.trim())
    const p = m?.[2]!.trim()
    if (!m || !p) continue
    if (m[1] !== "Move to") files.push({ op: m[1]!, path: projectPath(p, project) })
    else if (files.length > 0) files[files.length - 1]!.moveTo = projectPath(p, project)
  }
  // Once applied, each file's diff says where its first change is.
  const changed = new Map<string, number>()
  const done = metadataOf(state).files
  for (const f of Array.isArray(done) ? done : []) {
    const o = (f ?? {}) as Record<string, unknown>
    const at = textOf(o.movePath) ?? textOf(o.filePath)
    const line = firstChangedLine(o.diff)
    if (at && line) changed.set(projectPath(at, project), line)
  }
  const seen = new Set<string>()
  const locations = files
    .flatMap((f) => (f.moveTo ? [f.path, f.moveTo] : [f.path]))
    .filter((p) => !seen.has(p) && seen.add(p))
    .map((p) => ({ path: p, ...(changed.has(p) ? { line: changed.get(p)! } : {}) }))
  const only = files.length === 1 ? files[0]! : undefined
  const title = !only
    ? files.length === 0 ? "Patch" : `Patch ${files.length} files`
    : only.moveTo ? `Move ${only.path} → ${only.moveTo}`
    : `${only.op === "Add File" ? "Create" : only.op === "Delete File" ? "Delete" : "Patch"} ${only.path}`
  const kind = files.length > 0 && files.every((f) => f.op === "Delete File") ? "delete" : files.length > 0 && files.every((f) => f.moveTo) ? "move" : "edit"
  return { title, kind, locations }
}
