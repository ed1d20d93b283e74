// Shapes what the model reads from a finished shell command: the tail of the output (long
// output is cut from the front, the full text saved), then a <shell_metadata> block with the
// notes that matter (timeout, abort, exit code, signal).
import type { ShellRunResult } from "./shell-run"
import type { ToolContext } from "./tool"
import { truncateOutput } from "./truncate"

export interface ShapedOutput {
  output: string
  truncated: boolean
  outputPath?: string
}

/** `sandboxNote`: what the OS sandbox had to do with the command (see shell-sandbox.ts). */
export function shapeShellOutput(run: ShellRunResult, ctx: Pick<ToolContext, "limits" | "outputDir" | "canDelegate">, timeout: number, sandboxNote?: string): ShapedOutput {
  const body = run.spilledTo
    ? { ...cutSpilled(run.text, run.totalLines, run.spilledTo, ctx), outputPath: run.spilledTo }
    : run.text === ""
      ? { content: "(no output)", truncated: false, outputPath: undefined }
      : truncateOutput(run.text, { ...ctx.limits, direction: "tail", outputDir: ctx.outputDir, canDelegate: ctx.canDelegate })

  const notes: string[] = []
  if (run.timedOut)
    notes.push(
      `shell tool terminated command after exceeding timeout ${timeout} ms. If the command needs longer and is not waiting for input, retry with a larger timeout.`,
    )
  if (run.aborted) notes.push("User aborted the command")
  if (run.exit !== null && run.exit !== 0) notes.push(`Exit code: ${run.exit}`)
  if (run.signal) notes.push(`Terminated by signal: ${run.signal}`)
  if (sandboxNote) notes.push(sandboxNote)

  const output = notes.length
    ? `${body.content.replace(/\n+$/, "")}\n\n<shell_metadata>\n${notes.join("\n")}\n</shell_metadata>`
    : body.content
  return { output, truncated: body.truncated, outputPath: body.outputPath }
}

/**
 * The output already sits in full in `savedPath`; only its tail is in memory. Same policy and
 * note as `truncateOutput` (which needs the whole text, so it cannot be used here).
 */
function cutSpilled(tail: string, totalLines: number, savedPath: string, ctx: Pick<ToolContext, "limits" | "canDelegate">) {
  const { maxLines, maxBytes } = ctx.limits
  const lines = tail.split("\n")
  const kept: string[] = []
  let size = 0
  for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
    const bytes = Buffer.byteLength(lines[i]!) + 1
    if (size + bytes > maxBytes) break
    kept.push(lines[i]!)
    size += bytes
  }
  // A last line longer than the whole budget: show its end rather than nothing.
  if (kept.length === 0) kept.push("…" + Buffer.from(lines[lines.length - 1]!).subarray(-maxBytes).toString())
  kept.reverse()

  const hint = ctx.canDelegate
    ? `Use the Task tool to have the explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself.`
    : `Use Grep to search the full content or Read with offset/limit to view specific sections.`
  const note = `...${totalLines - kept.length} lines truncated...\n\nThe full output was saved to: ${savedPath}\n${hint}`
  return { content: `${note}\n\n${kept.join("\n")}`, truncated: true }
}
