import path from "node:path"
import { z } from "zod"
import DESCRIPTION from "./grep.txt"
import { assertInsideProject, capOutput, resolveTarget, rulePatterns, statOrUndefined } from "./fs-util"
import { BASE_FLAGS, ripgrep } from "./ripgrep"
import { oneLine, projectPath, textOf } from "./summary"
import { defineTool } from "./tool"

const LIMIT = 100
const MAX_LINE = 2000

export const GrepParameters = z.object({
  pattern: z.string().min(1).describe("The regular expression to search for in file contents (ripgrep syntax)"),
  path: z.string().optional().describe("The directory (or file) to search in. Defaults to the project directory."),
  include: z.string().optional().describe('Only search files whose names match this glob, e.g. "*.js" or "*.{ts,tsx}"'),
})
export type GrepParameters = z.infer<typeof GrepParameters>

interface Match {
  file: string
  line: number
  text: string
}

export const grepTool = defineTool({
  id: "grep",
  description: DESCRIPTION,
  parameters: GrepParameters,
  summary(input, _state, project) {
    const pattern = textOf(input.pattern)
    const where = projectPath(textOf(input.path) ?? ".", project)
    const include = textOf(input.include)
    const title = `Grep${pattern ? ` "${oneLine(pattern, 80)}"` : ""}${where === "." ? "" : ` in ${where}`}${include ? ` (${include})` : ""}`
    return { title, kind: "search", locations: [{ path: where }] }
  },
  async execute(args, ctx) {
    const target = resolveTarget(ctx, args.path ?? ".")
    const info = await statOrUndefined(target.abs)
    if (!info) throw new Error(`Search path not found: ${target.abs}. Pass an existing directory or file as path, or omit it.`)
    const isDir = info.isDirectory()
    await assertInsideProject(ctx, target, isDir ? "directory" : "file")
    await ctx.ask({
      permission: "grep",
      patterns: [args.pattern],
      always: ["*"],
      metadata: { pattern: args.pattern, path: target.abs, include: args.include },
    })
    // Searching one file reads it: the read rules for it (the `.env` default among them) apply.
    if (!isDir) await ctx.ask({ permission: "read", patterns: rulePatterns(ctx, target.input), always: ["*"], metadata: { filepath: target.abs } })

    const cwd = isDir ? target.abs : path.dirname(target.abs)
    const flags = ["--json", ...(args.include ? [`--glob=${args.include}`] : []), ...BASE_FLAGS]
    const matches: Match[] = []
    let more = false
    await ripgrep({
      exec: ctx.services.exec,
      cwd,
      args: [...flags, "--", args.pattern, ...(isDir ? [] : [path.basename(target.abs)])],
      signal: ctx.abort,
      onLine(line) {
        const match = parseMatch(line, cwd)
        if (!match) return
        if (matches.length === LIMIT) {
          more = true
          return false
        }
        matches.push(match)
      },
    })
    if (matches.length === 0) return { title: args.pattern, output: "No files found", metadata: { matches: 0, truncated: false } }

    const out = [`Found ${matches.length} matches${more ? " (more matches available)" : ""}`]
    let current = ""
    for (const m of matches) {
      if (m.file !== current) {
        if (current) out.push("")
        current = m.file
        out.push(`${m.file}:`)
      }
      out.push(`  Line ${m.line}: ${m.text}`)
    }
    if (more) {
      out.push("", `(Results are truncated: showing first ${LIMIT} matches. Consider using a more specific path, pattern or include.)`)
    }
    const cut = capOutput(ctx, out.join("\n"))
    return {
      title: args.pattern,
      output: cut.output,
      metadata: { matches: matches.length, truncated: more || cut.truncated, ...(cut.outputPath ? { outputPath: cut.outputPath } : {}) },
    }
  },
})

interface RgText {
  text?: string
  bytes?: string
}

function decode(v: RgText | undefined): string {
  if (!v) return ""
  return v.text ?? Buffer.from(v.bytes ?? "", "base64").toString("utf8")
}

function parseMatch(line: string, cwd: string): Match | undefined {
  if (!line.startsWith('{"type":"match"')) return
  const data = (JSON.parse(line) as { data: { path: RgText; lines: RgText; line_number: number } }).data
  let text = decode(data.lines).replace(/\r?\n$/, "")
  if (text.length > MAX_LINE) text = `${text.slice(0, MAX_LINE)}... (line truncated to ${MAX_LINE} chars)`
  return { file: path.resolve(cwd, decode(data.path)), line: data.line_number, text }
}
