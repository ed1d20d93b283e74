// Where plugins and custom tools come from, in load order: `plugin/`/`plugins/` and
// `tool/`/`tools/` (*.js, *.ts) in each config folder (global first, then the project's
// .opencode/ and .wright/), and the `plugin` config list (npm specs, file:// URLs). A
// project folder of an untrusted project contributes nothing, and each file it held back is
// named, so the user knows what `wright trust` would load.
import { readdirSync, statSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

export type SourceKind = "file" | "npm" | "url"

export interface PluginSource {
  kind: SourceKind
  /** The name the user sees: the file's base name, or the npm spec. */
  name: string
  /** A path (file, url) or the spec (npm). */
  target: string
  options?: Record<string, unknown>
  /** Where it was named: a config folder, or "config" for the `plugin` list. */
  origin: string
}

export interface ToolSource {
  /** The file's base name without extension: the tool's name (or its prefix). */
  name: string
  file: string
  origin: string
}

export interface Sources {
  plugins: PluginSource[]
  tools: ToolSource[]
  /** Files an untrusted project has that were not loaded, one line each. */
  held: string[]
}

const CODE = /\.(m?js|ts)$/

export function findSources(input: { dirs: string[]; untrusted: string[]; plugin?: (string | [string, Record<string, unknown>])[]; directory: string }): Sources {
  const out: Sources = { plugins: [], tools: [], held: [] }
  for (const dir of input.dirs) {
    const held = input.untrusted.includes(dir)
    for (const sub of ["plugin", "plugins"]) {
      for (const file of codeFiles(path.join(dir, sub))) {
        if (held) out.held.push(`${path.relative(input.directory, file) || file}: a plugin (runs code)`)
        else out.plugins.push({ kind: "file", name: path.basename(file).replace(CODE, ""), target: file, origin: dir })
      }
    }
    for (const sub of ["tool", "tools"]) {
      for (const file of codeFiles(path.join(dir, sub))) {
        if (held) out.held.push(`${path.relative(input.directory, file) || file}: a custom tool (runs code)`)
        else out.tools.push({ name: path.basename(file).replace(CODE, ""), file, origin: dir })
      }
    }
  }
  const seen = new Set<string>()
  for (const item of input.plugin ?? []) {
    const [spec, options] = typeof item === "string" ? [item, undefined] : item
    if (seen.has(spec)) continue
    seen.add(spec)
    if (spec.startsWith("file://")) {
      const target = fileURLToPath(spec)
      out.plugins.push({ kind: "url", name: path.basename(target).replace(CODE, ""), target, options, origin: "config" })
    } else out.plugins.push({ kind: "npm", name: spec, target: spec, options, origin: "config" })
  }
  return out
}

function codeFiles(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => CODE.test(n) && !n.endsWith(".d.ts"))
    .sort()
    .map((n) => path.join(dir, n))
    .filter((f) => {
      try {
        return statSync(f).isFile()
      } catch {
        return false
      }
    })
}
