import { createReadStream } from "node:fs"
import { readdir, readFile, stat } from "node:fs/promises"
import path from "node:path"
import { Readable } from "node:stream"
import { z } from "zod"
import DESCRIPTION from "./read.txt"
import {
  assertInsideProject,
  attachmentMime,
  isBinaryFile,
  nearNames,
  relativePath,
  resolveTarget,
  rulePatterns,
  statOrUndefined,
} from "./fs-util"
import { lineNumber, projectPath, textOf } from "./summary"
import { defineTool, type ToolContext, type ToolResult } from "./tool"
import { lazyModule } from "../util"

// Loaded with the first ranged read, not at start-up.
const readline = lazyModule<typeof import("node:readline")>("node:readline")

const DEFAULT_LIMIT = 2000
const MAX_LINE = 2000
const MAX_BYTES = 50 * 1024
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"]

export const ReadParameters = z.object({
  filePath: z.string().min(1).describe("The path of the file or directory to read (absolute, or relative to the project directory)"),
  offset: z.coerce.number().int().min(1).optional().describe("The line number to start reading from (1-indexed)"),
  limit: z.coerce.number().int().min(1).optional().describe(`The maximum number of lines to read (defaults to ${DEFAULT_LIMIT})`),
})
export type ReadParameters = z.infer<typeof ReadParameters>

export const readTool = defineTool({
  id: "read",
  description: DESCRIPTION,
  parameters: ReadParameters,
  summary(input, _state, project) {
    const file = textOf(input.filePath)
    if (!file) return { title: "Read", kind: "read", locations: [] }
    const shown = projectPath(file, project)
    const offset = lineNumber(input.offset)
    const limit = lineNumber(input.limit)
    const range = offset && limit ? `:${offset}-${offset + limit - 1}` : offset ? `:${offset}` : limit ? `:1-${limit}` : ""
    return { title: `Read ${shown}${range}`, kind: "read", locations: [{ path: shown, ...(offset ? { line: offset } : {}) }] }
  },
  async execute(args, ctx) {
    const target = resolveTarget(ctx, args.filePath)
    const file = target.abs
    const info = await statOrUndefined(file)
    await assertInsideProject(ctx, target, info?.isDirectory() ? "directory" : "file")
    const title = relativePath(ctx, file)
    await ctx.ask({ permission: "read", patterns: rulePatterns(ctx, args.filePath), always: ["*"], metadata: { filepath: file } })
    ctx.abort.throwIfAborted()

    if (!info) {
      const near = await nearNames(file)
      throw new Error(`File not found: ${file}${near.length ? `\n\nDid you mean one of these?\n${near.join("\n")}` : ""}`)
    }
    if (info.isDirectory()) return readDirectory(file, title, args)

    const mime = attachmentMime(file)
    if (mime) {
      if (info.size > MAX_ATTACHMENT_BYTES) {
        throw new Error(`${file} is too large to attach (${(info.size / 1048576).toFixed(1)} MB; the limit is 10 MB).`)
      }
      const msg = `${mime === "application/pdf" ? "PDF" : "Image"} read successfully`
      const data = await readFile(file)
      return {
        title,
        output: msg,
        metadata: { preview: msg, truncated: false, loaded: [] },
        attachments: [{ mime, url: `data:${mime};base64,${data.toString("base64")}`, filename: path.basename(file) }],
      }
    }
    if (await isBinaryFile(file, info.size)) throw new Error(`Cannot read binary file: ${file}`)

    const offset = args.offset ?? 1
    // An editor that attached its buffers has the text the user sees, unsaved changes included.
    const buffer = await ctx.services.files.readText(file, ctx.sessionID, ctx.abort)
    const page = await readLines(buffer === undefined ? file : { text: buffer }, offset, args.limit ?? DEFAULT_LIMIT, ctx.abort)
    if (offset > page.count && !(page.count === 0 && offset === 1)) {
      throw new Error(`Offset ${offset} is out of range: ${file} has ${page.count} lines. Use an offset between 1 and ${page.count}.`)
    }

    const last = offset + page.lines.length - 1
    let footer: string
    if (page.capped) footer = `(Output capped at 50 KB. Showing lines ${offset}-${last}. Use offset=${last + 1} to continue.)`
    else if (page.more) footer = `(Showing lines ${offset}-${last} of ${page.count}. Use offset=${last + 1} to continue.)`
    else footer = `(End of file - total ${page.count} lines)`
    const numbered = page.lines.map((line, i) => `${offset + i}: ${line}`).join("\n")
    let output = `<path>${file}</path>\n<type>file</type>\n<content>\n${numbered}${numbered ? "\n\n" : ""}${footer}\n</content>`

    // The file's language servers start now, while the model reads: its first edit finds them ready.
    ctx.services.lsp?.warm?.(file)
    const loaded = await nestedInstructions(ctx, file)
    for (const item of loaded) output += `\n\n<system-reminder>Instructions from: ${item.path}\n${item.content}</system-reminder>`

    return {
      title,
      output,
      metadata: {
        preview: page.lines.slice(0, 20).join("\n"),
        truncated: page.more || page.capped,
        loaded: loaded.map((item) => item.path),
      },
    }
  },
})

async function readDirectory(dir: string, title: string, args: ReadParameters): Promise<ToolResult> {
  const dirents = await readdir(dir, { withFileTypes: true })
  const entries = await Promise.all(
    dirents.map(async (d) => {
      if (d.isDirectory()) return `${d.name}/`
      if (!d.isSymbolicLink()) return d.name
      const s = await stat(path.join(dir, d.name)).catch(() => undefined)
      return s?.isDirectory() ? `${d.name}/` : d.name
    }),
  )
  entries.sort((a, b) => a.localeCompare(b))
  const start = (args.offset ?? 1) - 1
  const shown = entries.slice(start, start + (args.limit ?? DEFAULT_LIMIT))
  const more = start + shown.length < entries.length
  const footer = more
    ? `(Showing ${shown.length} of ${entries.length} entries. Use offset=${start + shown.length + 1} to continue.)`
    : `(${entries.length} entries)`
  return {
    title,
    output: [`<path>${dir}</path>`, `<type>directory</type>`, `<entries>`, ...shown, "", footer, `</entries>`].join("\n"),
    metadata: { preview: shown.slice(0, 20).join("\n"), truncated: more, loaded: [] },
  }
}

interface Page {
  lines: string[]
  /** Lines in the whole file. */
  count: number
  /** More lines follow the page. */
  more: boolean
  /** The page stopped at the byte cap rather than the line limit. */
  capped: boolean
}

/** A page of a file on disk, or of a text already in hand (`{text}`), split into lines as readline does. */
async function readLines(source: string | { text: string }, offset: number, limit: number, signal: AbortSignal): Promise<Page> {
  const stream = typeof source === "string" ? createReadStream(source, { encoding: "utf8" }) : Readable.from([source.text])
  const rl = readline().createInterface({ input: stream, crlfDelay: Infinity })
  const page: Page = { lines: [], count: 0, more: false, capped: false }
  let bytes = 0
  try {
    for await (let text of rl) {
      if (page.count === 0 && text.startsWith("\uFEFF")) text = text.slice(1)
      page.count++
      if (page.count % 10000 === 0) signal.throwIfAborted()
      if (page.count < offset || page.capped) continue
      if (page.lines.length >= limit) {
        page.more = true
        continue
      }
      const line = text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}... (line truncated to ${MAX_LINE} chars)` : text
      // counted with its "N: " prefix, so the page itself stays within the cap
      const size = Buffer.byteLength(line, "utf8") + String(page.count).length + 3
      if (bytes + size > MAX_BYTES) {
        page.capped = page.more = true
        continue
      }
      page.lines.push(line)
      bytes += size
    }
  } finally {
    rl.close()
    stream.destroy()
  }
  return page
}

/**
 * AGENTS.md / CLAUDE.md of the directories between the worktree (exclusive) and the file's
 * directory (inclusive), outermost first, minus those the model already has in this message.
 */
async function nestedInstructions(ctx: ToolContext, file: string): Promise<{ path: string; content: string }[]> {
  const rel = path.relative(ctx.worktree, path.dirname(file))
  if (!rel || rel.startsWith("..") || path.isAbsolute(rel)) return []
  const dirs: string[] = []
  let dir = ctx.worktree
  for (const part of rel.split(path.sep)) dirs.push((dir = path.join(dir, part)))

  const found: string[] = []
  for (const d of dirs) {
    for (const name of INSTRUCTION_FILES) {
      const candidate = path.join(d, name)
      if (candidate === file) break
      if ((await statOrUndefined(candidate))?.isFile()) {
        found.push(candidate)
        break
      }
    }
  }
  if (found.length === 0) return []
  const fresh = ctx.services.claimInstructions(ctx.messageID, found)
  return Promise.all(fresh.map(async (p) => ({ path: p, content: await readFile(p, "utf8") })))
}
