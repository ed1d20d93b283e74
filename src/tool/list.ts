import path from "node:path"
import { z } from "zod"
import DESCRIPTION from "./list.txt"
import { assertInsideProject, capOutput, relativePath, resolveTarget, statOrUndefined } from "./fs-util"
import { BASE_FLAGS, ripgrep } from "./ripgrep"
import { projectPath, textOf } from "./summary"
import { defineTool } from "./tool"

const LIMIT = 100

/** Folders that are almost never worth listing: dependencies, build output, caches, virtualenvs. */
export const LIST_SKIPPED = [
  "node_modules", ".git", "dist", "build", "target", "vendor", "__pycache__", ".venv", "venv",
  ".next", ".nuxt", ".svelte-kit", ".turbo", ".cache", "coverage", ".nyc_output", ".gradle", ".idea",
  "obj", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".zig-cache", "zig-out",
]

export const ListParameters = z.object({
  path: z.string().optional().describe("The directory to list. Defaults to the project directory."),
  ignore: z.array(z.string()).optional().describe('Extra glob patterns to leave out, e.g. ["*.log", "fixtures/"]'),
})
export type ListParameters = z.infer<typeof ListParameters>

export const listTool = defineTool({
  id: "list",
  description: DESCRIPTION,
  parameters: ListParameters,
  summary(input, _state, project) {
    const where = projectPath(textOf(input.path) ?? ".", project)
    return { title: `List ${where}`, kind: "search", locations: [{ path: where }] }
  },
  async execute(args, ctx) {
    const target = resolveTarget(ctx, args.path ?? ".")
    const info = await statOrUndefined(target.abs)
    if (!info) throw new Error(`Directory not found: ${target.abs}. Pass an existing directory as path, or omit it.`)
    if (!info.isDirectory()) throw new Error(`list path must be a directory, but ${target.abs} is a file. Use read to open it.`)
    await assertInsideProject(ctx, target, "directory")
    await ctx.ask({ permission: "list", patterns: [...new Set([target.abs, target.real])], always: ["*"], metadata: { path: target.abs } })

    const globs = [...LIST_SKIPPED.map((d) => `--glob=!${d}/`), ...(args.ignore ?? []).map((g) => `--glob=!${g}`)]
    const files: string[] = []
    let truncated = false
    await ripgrep({
      exec: ctx.services.exec,
      cwd: target.abs,
      // sorted so a listing cut at the limit is the same every time
      args: ["--files", "--sort=path", ...BASE_FLAGS, ...globs],
      signal: ctx.abort,
      onLine(line) {
        if (!line) return
        if (files.length === LIMIT) {
          truncated = true
          return false
        }
        files.push(line)
      },
    })

    let output = renderTree(target.abs, files)
    if (truncated) output += `\n\n(Showing the first ${LIMIT} files. Pass a more specific path or ignore patterns to see the rest.)`
    const cut = capOutput(ctx, output)
    return {
      title: relativePath(ctx, target.abs),
      output: cut.output,
      metadata: { count: files.length, truncated: truncated || cut.truncated, ...(cut.outputPath ? { outputPath: cut.outputPath } : {}) },
    }
  },
})

interface Node {
  dirs: Map<string, Node>
  files: string[]
}

function renderTree(root: string, files: string[]): string {
  const top: Node = { dirs: new Map(), files: [] }
  for (const file of files) {
    const parts = file.split(/[\\/]/)
    let node = top
    for (const dir of parts.slice(0, -1)) {
      let next = node.dirs.get(dir)
      if (!next) node.dirs.set(dir, (next = { dirs: new Map(), files: [] }))
      node = next
    }
    node.files.push(parts[parts.length - 1]!)
  }
  const out = [`${root.endsWith(path.sep) ? root : root + path.sep}`]
  const walk = (node: Node, depth: number) => {
    const indent = "  ".repeat(depth)
    for (const name of [...node.dirs.keys()].sort()) {
      out.push(`${indent}${name}/`)
      walk(node.dirs.get(name)!, depth + 1)
    }
    for (const name of [...node.files].sort()) out.push(`${indent}${name}`)
  }
  walk(top, 1)
  return out.join("\n")
}
