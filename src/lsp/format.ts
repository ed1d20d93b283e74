// Formatters run after a write, by extension. A built-in applies only where the project uses
// it (prettier when package.json depends on it, biome with a biome.json, ruff or black named in
// pyproject.toml, clang-format with a .clang-format, standardrb with a .standard.yml, …) or,
// for a language with one usual formatter (gofmt, shfmt, rubocop, mix, zig, dart, …), when it
// is installed; plus
// any from config in OpenCode's `formatter` format (`$FILE` in `command`). A formatter that
// fails leaves the file as it was written and says why; it never throws.
import { existsSync, readFileSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import path from "node:path"
import type { FormatterConfig } from "../config"
import type { Exec } from "../process"
import { findBinary } from "./servers"

export interface FormatterDef {
  id: string
  command: string[]
  extensions: string[]
  environment?: Record<string, string>
  /** Exit codes that mean it formatted the file (rubocop exits 1 when offenses it cannot fix remain); default [0]. */
  okExit?: number[]
  /** Whether it applies to this project (built-ins); config entries always do. */
  enabled(ctx: ProjectProbe): boolean
}

/** What the built-ins look at to decide whether the project uses them. */
export interface ProjectProbe {
  directory: string
  which(name: string): string | undefined
}

export type FormatOutcome =
  | { kind: "unchanged" }
  | { kind: "changed"; formatter: string; before: string; after: string }
  | { kind: "failed"; formatter: string; error: string }

const WEB = [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".html", ".htm", ".css", ".scss", ".sass", ".less", ".vue", ".svelte", ".json", ".jsonc", ".yaml", ".yml", ".xml", ".md", ".mdx", ".graphql", ".gql"]
const RUBY = [".rb", ".rake", ".gemspec", ".ru"]
const FORMAT_TIMEOUT = 10_000
const onPath = (name: string) => (p: ProjectProbe) => !!p.which(name)
const has = (p: ProjectProbe, name: string) => existsSync(path.join(p.directory, name))
const read = (p: ProjectProbe, name: string) => readText(path.join(p.directory, name))

const BUILTIN: FormatterDef[] = [
  { id: "prettier", command: ["prettier", "--write", "$FILE"], extensions: WEB, enabled: (p) => dependsOn(p.directory, "prettier") && !!p.which("prettier") },
  {
    id: "biome",
    command: ["biome", "format", "--write", "$FILE"],
    extensions: WEB,
    enabled: (p) => (has(p, "biome.json") || has(p, "biome.jsonc")) && !!p.which("biome"),
  },
  { id: "gofmt", command: ["gofmt", "-w", "$FILE"], extensions: [".go"], enabled: onPath("gofmt") },
  { id: "rustfmt", command: ["rustfmt", "$FILE"], extensions: [".rs"], enabled: (p) => has(p, "Cargo.toml") && !!p.which("rustfmt") },
  {
    id: "ruff",
    command: ["ruff", "format", "$FILE"],
    extensions: [".py", ".pyi"],
    enabled: (p) => (pyproject(p.directory).includes("[tool.ruff") || has(p, "ruff.toml") || has(p, ".ruff.toml") || /\bruff\b/.test(read(p, "requirements.txt"))) && !!p.which("ruff"),
  },
  { id: "black", command: ["black", "--quiet", "$FILE"], extensions: [".py", ".pyi"], enabled: (p) => pyproject(p.directory).includes("[tool.black") && !!p.which("black") },
  // uv's formatter (ruff inside) for uv projects that do not set up ruff themselves.
  { id: "uv", command: ["uv", "format", "--", "$FILE"], extensions: [".py", ".pyi"], enabled: (p) => has(p, "uv.lock") && !pyproject(p.directory).includes("[tool.ruff") && !!p.which("uv") },
  { id: "shfmt", command: ["shfmt", "-w", "$FILE"], extensions: [".sh", ".bash"], enabled: onPath("shfmt") },
  {
    id: "clang-format",
    command: ["clang-format", "-i", "$FILE"],
    extensions: [".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ino"],
    enabled: (p) => has(p, ".clang-format") && !!p.which("clang-format"),
  },
  { id: "rubocop", command: ["rubocop", "--autocorrect", "$FILE"], extensions: RUBY, okExit: [0, 1], enabled: (p) => !has(p, ".standard.yml") && !!p.which("rubocop") },
  { id: "standardrb", command: ["standardrb", "--fix", "$FILE"], extensions: RUBY, okExit: [0, 1], enabled: (p) => has(p, ".standard.yml") && !!p.which("standardrb") },
  { id: "htmlbeautifier", command: ["htmlbeautifier", "$FILE"], extensions: [".erb"], enabled: onPath("htmlbeautifier") },
  // Laravel's pint lives in the project's vendor/bin: project code, so only in a trusted folder (findBinary).
  { id: "pint", command: ["vendor/bin/pint", "$FILE"], extensions: [".php"], enabled: (p) => /"laravel\/pint"/.test(read(p, "composer.json")) },
  { id: "mix", command: ["mix", "format", "$FILE"], extensions: [".ex", ".exs", ".eex", ".heex", ".leex", ".neex", ".sface"], enabled: onPath("mix") },
  { id: "zig", command: ["zig", "fmt", "$FILE"], extensions: [".zig", ".zon"], enabled: onPath("zig") },
  { id: "ktlint", command: ["ktlint", "-F", "$FILE"], extensions: [".kt", ".kts"], enabled: onPath("ktlint") },
  { id: "dart", command: ["dart", "format", "$FILE"], extensions: [".dart"], enabled: onPath("dart") },
  { id: "ocamlformat", command: ["ocamlformat", "-i", "$FILE"], extensions: [".ml", ".mli"], enabled: (p) => has(p, ".ocamlformat") && !!p.which("ocamlformat") },
  { id: "terraform", command: ["terraform", "fmt", "$FILE"], extensions: [".tf", ".tfvars"], enabled: onPath("terraform") },
  { id: "latexindent", command: ["latexindent", "-w", "-s", "$FILE"], extensions: [".tex"], enabled: onPath("latexindent") },
  { id: "gleam", command: ["gleam", "format", "$FILE"], extensions: [".gleam"], enabled: onPath("gleam") },
  { id: "nixfmt", command: ["nixfmt", "$FILE"], extensions: [".nix"], enabled: onPath("nixfmt") },
  { id: "ormolu", command: ["ormolu", "-i", "$FILE"], extensions: [".hs"], enabled: onPath("ormolu") },
  { id: "cljfmt", command: ["cljfmt", "fix", "--quiet", "$FILE"], extensions: [".clj", ".cljs", ".cljc", ".edn"], enabled: onPath("cljfmt") },
  { id: "dfmt", command: ["dfmt", "-i", "$FILE"], extensions: [".d"], enabled: onPath("dfmt") },
  { id: "air", command: ["air", "format", "$FILE"], extensions: [".R", ".r"], enabled: onPath("air") },
  { id: "stylua", command: ["stylua", "$FILE"], extensions: [".lua"], enabled: (p) => (has(p, "stylua.toml") || has(p, ".stylua.toml")) && !!p.which("stylua") },
]

export interface FormatterStatus {
  name: string
  extensions: string[]
  enabled: boolean
}

export interface Formatters {
  /** Formats `file` in place with every formatter for its extension, in order. Never throws. */
  format(file: string): Promise<FormatOutcome>
  /** Whether a formatter applies to this file (refused or not). */
  handles(file: string): boolean
  /** GET /formatter: every known formatter and whether it applies here. */
  status(): FormatterStatus[]
}

export interface FormattersDeps {
  config: FormatterConfig | undefined
  exec: Exec
  directory: string
  env: NodeJS.ProcessEnv
  /** The project's own node_modules/.bin may run (config/trust.ts). */
  trusted: boolean
  /** Why no formatter may run here (untrusted, and no sandbox); undefined: they may. */
  refuse?: string
}

export function createFormatters(deps: FormattersDeps): Formatters {
  const directory = path.resolve(deps.directory)
  const which = (name: string) => findBinary(name, { root: directory, top: directory, pathEnv: deps.env.PATH, local: deps.trusted })
  const probe: ProjectProbe = { directory, which }
  const defs = formatterDefs(deps.config)
  const enabled = new Map<string, boolean>()
  const isEnabled = (d: FormatterDef) => {
    let on = enabled.get(d.id)
    if (on === undefined) enabled.set(d.id, (on = d.enabled(probe)))
    return on
  }

  async function run(def: FormatterDef, file: string): Promise<string | undefined> {
    const argv = def.command.map((a) => a.replaceAll("$FILE", file))
    const found = which(argv[0]!)
    // Untrusted: only what PATH finds, never a path into the project.
    if (!found && !deps.trusted) return `${argv[0]} was not found on PATH`
    argv[0] = found ?? argv[0]!
    const child = await deps.exec(argv, { cwd: directory, env: def.environment, timeout: FORMAT_TIMEOUT })
    let err = ""
    child.stdout.resume()
    child.stderr.on("data", (b: Buffer) => (err = (err + b.toString()).slice(-2000)))
    const exit = await child.done
    if (exit.timedOut) return `timed out after ${FORMAT_TIMEOUT} ms`
    if (!(def.okExit ?? [0]).includes(exit.code ?? -1)) return `exit ${exit.code ?? exit.signal}${err.trim() ? `: ${err.trim().split("\n").slice(0, 6).join("\n")}` : ""}`
    return undefined
  }

  return {
    async format(file) {
      const ext = path.extname(file).toLowerCase()
      if (deps.refuse) return { kind: "unchanged" }
      const matching = defs.filter((d) => d.extensions.includes(ext) && isEnabled(d))
      if (matching.length === 0) return { kind: "unchanged" }
      const before = await readFile(file, "utf8").catch(() => undefined)
      if (before === undefined) return { kind: "unchanged" }
      for (const def of matching) {
        const error = await run(def, file).catch((e: Error) => `could not start: ${e.message}`)
        if (error !== undefined) {
          // Keep the file exactly as the tool wrote it.
          if ((await readFile(file, "utf8").catch(() => before)) !== before) await writeFile(file, before).catch(() => {})
          return { kind: "failed", formatter: def.id, error }
        }
      }
      const after = await readFile(file, "utf8").catch(() => before)
      return after === before ? { kind: "unchanged" } : { kind: "changed", formatter: matching.map((d) => d.id).join(", "), before, after }
    },
    handles: (file) => defs.some((d) => d.extensions.includes(path.extname(file).toLowerCase()) && isEnabled(d)),
    status: () => defs.map((d) => ({ name: d.id, extensions: d.extensions, enabled: !deps.refuse && isEnabled(d) })),
  }
}

/** `false`: none; otherwise the built-ins with config's entries laid over them by name. */
export function formatterDefs(config: FormatterConfig | undefined): FormatterDef[] {
  if (config === false) return []
  const out = new Map(BUILTIN.map((d) => [d.id, d]))
  if (config && config !== true) {
    for (const [id, entry] of Object.entries(config)) {
      if (entry.disabled) {
        out.delete(id)
        continue
      }
      const base = out.get(id)
      const command = entry.command ?? base?.command
      const extensions = (entry.extensions ?? base?.extensions)?.map((e) => (e.startsWith(".") ? e : `.${e}`))
      if (!command?.length || !extensions?.length) continue
      out.set(id, { id, command, extensions, environment: entry.environment, enabled: entry.command ? () => true : (base?.enabled ?? (() => true)) })
    }
  }
  return [...out.values()]
}

function dependsOn(directory: string, name: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(directory, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>
    return !!(pkg.dependencies?.[name] ?? pkg.devDependencies?.[name] ?? pkg.peerDependencies?.[name])
  } catch {
    return false
  }
}

function pyproject(directory: string): string {
  return readText(path.join(directory, "pyproject.toml"))
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return ""
  }
}
