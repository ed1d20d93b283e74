// Helpers shared by the file tools: where a path points, the external-directory ask,
// binary sniffing, mime types, BOM and line endings, diffs, and output truncation.
import { open, readdir, stat } from "node:fs/promises"
import path from "node:path"
import { lazyModule, mimeOf } from "../util"
import { externalDirectoryAsk, pathPatterns, resolveReal } from "../permission"
import type { ToolContext } from "./tool"
import { truncateOutput } from "./truncate"

export interface Target {
  /** The path as the model wrote it. */
  input: string
  /** Absolute path (relative input resolves against ctx.directory): what the tool opens. */
  abs: string
  /** With symlinks resolved: the key of the per-file lock. */
  real: string
}

const jsdiff = lazyModule<typeof import("diff")>("diff")

export function resolveTarget(ctx: ToolContext, p: string): Target {
  const abs = path.resolve(ctx.directory, p)
  return { input: p, abs, real: resolveReal(p, ctx.directory) }
}

/** The path as permission patterns and titles show it: relative to the worktree, `/` separated. */
export function relativePath(ctx: ToolContext, abs: string): string {
  return path.relative(ctx.worktree, abs).split(path.sep).join("/") || "."
}

/** The patterns `p` meets path rules with: as written and with symlinks resolved (see `pathPatterns`). */
export function rulePatterns(ctx: ToolContext, p: string): string[] {
  return pathPatterns(p, { cwd: ctx.directory, worktree: ctx.worktree })
}

/**
 * Asks `external_directory` when `target`, with symlinks resolved, leaves both the project
 * directory and the worktree. Runs before the tool's own ask, so a path that leaves the
 * project is caught whatever route it takes (`../`, absolute, a symlink). Returns the roots
 * a write to `target` may land in: the project and worktree, plus the directory just allowed.
 */
export async function assertInsideProject(ctx: ToolContext, target: Target, kind: "file" | "directory"): Promise<string[]> {
  const roots = [ctx.directory, ctx.worktree]
  const isDir = kind === "directory"
  const ask = externalDirectoryAsk(target.input, { cwd: ctx.directory, project: ctx.directory, isDir })
  if (!ask) return roots
  if (ctx.worktree !== ctx.directory && !externalDirectoryAsk(target.input, { cwd: ctx.directory, project: ctx.worktree, isDir })) return roots
  await ctx.ask(ask)
  return [...roots, ask.metadata.parentDir]
}

export async function statOrUndefined(p: string) {
  try {
    return await stat(p)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return undefined
    throw err
  }
}

const BINARY_EXTENSIONS = new Set(
  (
    ".zip .tar .gz .tgz .bz2 .xz .zst .7z .rar .exe .dll .so .dylib .class .jar .war .doc .docx .xls .xlsx " +
    ".ppt .pptx .odt .ods .odp .bin .dat .obj .o .a .lib .wasm .pyc .pyo .sqlite .db .ico .mp3 .mp4 .mov .avi " +
    ".mkv .wav .flac .ogg .ttf .otf .woff .woff2 .psd"
  ).split(" "),
)

/** Binary by extension, or by a NUL byte / more than 30% control bytes in the first 4 KB. */
export async function isBinaryFile(file: string, size: number): Promise<boolean> {
  if (BINARY_EXTENSIONS.has(path.extname(file).toLowerCase())) return true
  if (size === 0) return false
  const fh = await open(file, "r")
  try {
    const sample = Buffer.alloc(Math.min(4096, size))
    const { bytesRead } = await fh.read(sample, 0, sample.length, 0)
    let control = 0
    for (let i = 0; i < bytesRead; i++) {
      const b = sample[i]!
      if (b === 0) return true
      if (b < 9 || (b > 13 && b < 32)) control++
    }
    return bytesRead > 0 && control / bytesRead > 0.3
  } finally {
    await fh.close()
  }
}

const ATTACHABLE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "application/pdf"])

/** The mime type of files the model receives as attachments (images, PDF); undefined for others. */
export function attachmentMime(file: string): string | undefined {
  const mime = mimeOf(file)
  return mime && ATTACHABLE.has(mime) ? mime : undefined
}

const BOM = "\uFEFF"

export function splitBom(text: string): { bom: boolean; text: string } {
  return text.startsWith(BOM) ? { bom: true, text: text.slice(1) } : { bom: false, text }
}

export function withBom(text: string, bom: boolean): string {
  return bom && !text.startsWith(BOM) ? BOM + text : text
}

/** The file's line ending: CRLF when most of its line breaks are CRLF. */
export function detectEol(text: string): "\r\n" | "\n" {
  const crlf = text.match(/\r\n/g)?.length ?? 0
  const lf = text.match(/\n/g)?.length ?? 0
  return crlf > 0 && crlf * 2 >= lf ? "\r\n" : "\n"
}

export function toEol(text: string, eol: "\r\n" | "\n"): string {
  const lf = text.replace(/\r\n/g, "\n")
  return eol === "\n" ? lf : lf.replace(/\n/g, "\r\n")
}

/** Text as a diff should show it: no BOM, LF line endings. */
function forDiff(text: string): string {
  return splitBom(text).text.replace(/\r\n/g, "\n")
}

export interface FileDiff {
  diff: string
  additions: number
  deletions: number
}

export function fileDiff(file: string, before: string, after: string): FileDiff {
  const a = forDiff(before)
  const b = forDiff(after)
  const { createTwoFilesPatch, structuredPatch } = jsdiff()
  const diff = createTwoFilesPatch(file, file, a, b)
  let additions = 0
  let deletions = 0
  for (const hunk of structuredPatch(file, file, a, b).hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++
      else if (line.startsWith("-")) deletions++
    }
  }
  return { diff, additions, deletions }
}

/** Up to three names in the same directory that look like the missing one. */
export async function nearNames(file: string): Promise<string[]> {
  const dir = path.dirname(file)
  const base = path.basename(file).toLowerCase()
  const stem = base.replace(/\.[^.]*$/, "")
  try {
    const names = await readdir(dir)
    return names
      .filter((name) => {
        const n = name.toLowerCase()
        return n.includes(base) || base.includes(n) || (stem.length > 0 && n.replace(/\.[^.]*$/, "") === stem)
      })
      .slice(0, 3)
      .map((name) => path.join(dir, name))
  } catch {
    return []
  }
}

/**
 * Runs the shared truncation policy on a tool's output for tools that report their own
 * `metadata.truncated` (result limits), so the byte/line caps still apply.
 */
export function capOutput(ctx: ToolContext, output: string): { output: string; truncated: boolean; outputPath?: string } {
  const cut = truncateOutput(output, { ...ctx.limits, outputDir: ctx.outputDir, canDelegate: ctx.canDelegate })
  return { output: cut.content, truncated: cut.truncated, outputPath: cut.outputPath }
}
