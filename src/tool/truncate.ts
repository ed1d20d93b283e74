import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { Id } from "../util"

export interface TruncateOptions {
  maxLines: number
  maxBytes: number
  /** "head" keeps the first lines (default); "tail" keeps the last ones (shell output). */
  direction?: "head" | "tail"
  outputDir: string
  canDelegate: boolean
}

export interface Truncated {
  content: string
  truncated: boolean
  outputPath?: string
}

/**
 * The one truncation policy for tool output: at most `maxLines` lines and `maxBytes` bytes
 * reach the model; the full text is saved to a file whose path the model is told.
 */
export function truncateOutput(text: string, opts: TruncateOptions): Truncated {
  const lines = text.split("\n")
  const bytes = Buffer.byteLength(text, "utf8")
  if (lines.length <= opts.maxLines && bytes <= opts.maxBytes) return { content: text, truncated: false }

  const tail = opts.direction === "tail"
  const kept: string[] = []
  let size = 0
  for (let i = 0; i < lines.length && kept.length < opts.maxLines; i++) {
    const line = lines[tail ? lines.length - 1 - i : i]!
    const lineBytes = Buffer.byteLength(line, "utf8") + 1
    if (size + lineBytes > opts.maxBytes) break
    kept.push(line)
    size += lineBytes
  }
  if (tail) kept.reverse()

  mkdirSync(opts.outputDir, { recursive: true })
  const outputPath = path.join(opts.outputDir, Id.ascending("tool"))
  writeFileSync(outputPath, text)

  const removedLines = lines.length - kept.length
  const hint = opts.canDelegate
    ? `Use the Task tool to have the explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself.`
    : `Use Grep to search the full content or Read with offset/limit to view specific sections.`
  const note = `...${removedLines} lines truncated...\n\nThe full output was saved to: ${outputPath}\n${hint}`
  const content = tail ? `${note}\n\n${kept.join("\n")}` : `${kept.join("\n")}\n\n${note}`
  return { content, truncated: true, outputPath }
}
