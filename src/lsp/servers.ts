// Which language servers exist: the built-ins (used where their binary is found) and the ones
// config names in OpenCode's `lsp` format. A server owns a set of extensions and finds its root
// by walking up from the file to the nearest marker, never above the project's worktree.
import { existsSync, realpathSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import type { LspConfig } from "../config"

export interface ServerDef {
  id: string
  extensions: string[]
  /** Files or folders whose presence marks a project root; empty: the project directory. */
  markers: string[]
  /** The command, argv[0] a bare name to look up or an absolute path. */
  command: string[]
  env?: Record<string, string>
  initialization?: Record<string, unknown>
  /**
   * npm packages that provide `command[0]` as a bin, installed into the cache when the binary
   * is found nowhere else (built-ins only; see manager.ts). Pinned: each set of versions gets
   * its own cache folder, installed once, and a new wright release with new pins installs anew.
   */
  npm?: string[]
  /** How diagnostics are asked for when the server's pushes cannot be trusted (see client.ts). */
  pull?: "tsserver"
  /**
   * typescript-language-server: in an untrusted folder it is handed the TypeScript installed
   * beside it (`tsserver.path`), never the workspace's (manager.ts).
   */
  ownTypescript?: boolean
  builtin: boolean
}

const BUILTIN: Omit<ServerDef, "builtin">[] = [
  {
    id: "typescript",
    extensions: [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"],
    markers: ["package-lock.json", "bun.lockb", "bun.lock", "pnpm-lock.yaml", "yarn.lock", "tsconfig.json", "jsconfig.json", "package.json"],
    command: ["typescript-language-server", "--stdio"],
    npm: ["typescript-language-server@5.3.0", "typescript@5.9.3"],
    pull: "tsserver",
    ownTypescript: true,
    // One tsserver, not a syntax server beside the semantic one (two parsing the same libs on a
    // busy machine doubled a cold start); no typings downloads; node_modules is not watched (see
    // client.ts: tsserver walked every folder under it before it answered).
    initialization: { tsserver: { useSyntaxServer: "never" }, disableAutomaticTypingAcquisition: true },
  },
  {
    id: "pyright",
    extensions: [".py", ".pyi"],
    markers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "pyrightconfig.json"],
    command: ["pyright-langserver", "--stdio"],
    npm: ["pyright@1.1.414"],
  },
  { id: "gopls", extensions: [".go"], markers: ["go.work", "go.mod", "go.sum"], command: ["gopls"] },
  { id: "rust", extensions: [".rs"], markers: ["Cargo.toml", "Cargo.lock"], command: ["rust-analyzer"] },
  {
    id: "clangd",
    extensions: [".c", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++"],
    markers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"],
    command: ["clangd", "--background-index", "--clang-tidy"],
  },
  { id: "bash", extensions: [".sh", ".bash", ".zsh", ".ksh"], markers: [], command: ["bash-language-server", "start"], npm: ["bash-language-server@5.8.1"] },
]

const LANGUAGE: Record<string, string> = {
  ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
  ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
  ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c",
  ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".h++": "cpp",
  ".sh": "shellscript", ".bash": "shellscript", ".zsh": "shellscript", ".ksh": "shellscript",
}

export function languageId(file: string): string {
  const ext = path.extname(file).toLowerCase()
  return LANGUAGE[ext] ?? (ext.slice(1) || "plaintext")
}

/**
 * The servers config leaves: `false` none; otherwise the built-ins with config's entries laid
 * over them by id (`disabled` drops one; a new id needs `command` and `extensions`).
 */
export function serverDefs(config: LspConfig | undefined): ServerDef[] {
  if (config === false) return []
  const out = new Map<string, ServerDef>(BUILTIN.map((s) => [s.id, { ...s, builtin: true }]))
  if (config && config !== true) {
    for (const [id, entry] of Object.entries(config)) {
      if (typeof entry !== "object") continue
      if (entry.disabled) {
        out.delete(id)
        continue
      }
      const base = out.get(id)
      const command = entry.command ?? base?.command
      const extensions = entry.extensions ?? base?.extensions
      if (!command?.length || !extensions?.length) continue
      out.set(id, {
        id,
        command,
        extensions: extensions.map((e) => (e.startsWith(".") ? e : `.${e}`)),
        markers: base && !entry.command ? base.markers : [],
        env: entry.env,
        initialization: entry.initialization ?? base?.initialization,
        ...(base?.pull && !entry.command ? { pull: base.pull } : {}),
        ...(base?.ownTypescript && !entry.command ? { ownTypescript: true } : {}),
        ...(base?.npm && !entry.command ? { npm: base.npm } : {}),
        builtin: false,
      })
    }
  }
  return [...out.values()]
}

/** The nearest directory from `file`'s up to `top` holding one of `markers`; `top` when none (or no markers). */
export function findRoot(file: string, markers: string[], top: string): string {
  if (markers.length === 0) return top
  let dir = path.dirname(file)
  for (;;) {
    if (markers.some((m) => existsSync(path.join(dir, m)))) return dir
    if (dir === top || !isInside(top, dir)) return top
    const up = path.dirname(dir)
    if (up === dir) return top
    dir = up
  }
}

/**
 * Where `name` runs from: an absolute path as given; else the nearest `node_modules/.bin` from
 * `root` up to `top` (only when `local`: in an untrusted folder the project's own binaries do
 * not run), else the first directory on `PATH`. Undefined when nowhere.
 */
export function findBinary(name: string, opts: { root: string; top: string; pathEnv?: string; local: boolean }): string | undefined {
  if (path.isAbsolute(name)) return isFile(name) ? name : undefined
  if (name.includes("/")) {
    const p = path.resolve(opts.root, name)
    return opts.local && isFile(p) ? p : undefined
  }
  if (opts.local) {
    for (let dir = opts.root; ; dir = path.dirname(dir)) {
      const p = path.join(dir, "node_modules", ".bin", name)
      if (isFile(p)) return p
      if (dir === opts.top || !isInside(opts.top, dir) || path.dirname(dir) === dir) break
    }
  }
  for (const dir of (opts.pathEnv ?? "").split(path.delimiter)) {
    if (!dir) continue
    const p = path.join(dir, name)
    if (isFile(p)) return p
  }
  return undefined
}

/**
 * The tsserver.js of the TypeScript that the server at `binary` resolves for itself (Node's
 * lookup from its real path, as typescript-language-server's bundled fallback does), unless it
 * lies inside `project`: that one is the project's code. Undefined when there is none.
 */
export function ownTsserver(binary: string, project: string): string | undefined {
  try {
    const real = realpathSync(binary)
    const lib = path.dirname(createRequire(real).resolve("typescript"))
    const tsserver = realpathSync(path.join(lib, "tsserver.js"))
    return isInside(realpathSync(project), tsserver) ? undefined : tsserver
  } catch {
    return undefined
  }
}

/**
 * The folders a tool's install lives in: up to the last node_modules (the whole tree it loads
 * from), else its folder, both as given (what is executed) and with links resolved (what is read).
 */
export function installRoots(binary: string): string[] {
  const root = (p: string) => {
    const parts = p.split(path.sep)
    const at = parts.lastIndexOf("node_modules")
    return at > 0 ? parts.slice(0, at + 1).join(path.sep) : path.dirname(p)
  }
  let real = binary
  try {
    real = realpathSync(binary)
  } catch {
    // Not there yet (an install to come): the given path says where it will be.
  }
  return [...new Set([root(binary), root(real)])]
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}
