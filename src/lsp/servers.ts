// Which language servers exist: the built-ins (used where their binary is found) and the ones
// config names in OpenCode's `lsp` format. A server owns a set of extensions and finds its root
// by walking up from the file to the nearest marker, never above the project's worktree.
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import type { LspConfig } from "../config"
import { BUILTIN_SERVERS, LANGUAGE_IDS, type ServerDef } from "./catalog"

export type { ServerDef } from "./catalog"

export function languageId(file: string): string {
  const ext = path.extname(file).toLowerCase()
  return LANGUAGE_IDS[ext] ?? LANGUAGE_IDS[path.basename(file).toLowerCase()] ?? (ext.slice(1) || "plaintext")
}

/** Whether `def` handles `file`: by extension, or by whole name for entries without a dot (`Dockerfile`). */
export function handlesFile(def: Pick<ServerDef, "extensions">, file: string): boolean {
  const ext = path.extname(file).toLowerCase()
  const base = path.basename(file)
  return def.extensions.some((e) => (e.startsWith(".") ? e === ext : e === base))
}

/**
 * The root `def` runs in for `file`: the nearest marker folder up to `top`, else `top`. Undefined
 * when the server does not apply there: a `strict` one with no marker found, or one whose
 * `exclude` marker is found first (TypeScript in a Deno project).
 */
export function rootFor(def: Pick<ServerDef, "markers" | "strict" | "exclude">, file: string, top: string): string | undefined {
  if (def.exclude?.length && findMarker(file, def.exclude, top) !== undefined) return undefined
  const found = findMarker(file, def.markers, top)
  if (found !== undefined) return found
  return def.strict ? undefined : top
}

/**
 * The servers config leaves: `false` none; otherwise the built-ins with config's entries laid
 * over them by id (`disabled` drops one; a new id needs `command` and `extensions`).
 */
export function serverDefs(config: LspConfig | undefined): ServerDef[] {
  if (config === false) return []
  const out = new Map<string, ServerDef>(BUILTIN_SERVERS.map((s) => [s.id, { ...s, builtin: true }]))
  if (config && config !== true) {
    for (const [id, entry] of Object.entries(config)) {
      if (typeof entry !== "object") continue
      if (entry.disabled) {
        out.delete(id)
        continue
      }
      const base = out.get(id)
      const command = entry.command ?? base?.command
      const extensions = entry.extensions?.map((e) => (e.startsWith(".") ? e : `.${e}`)) ?? base?.extensions
      if (!command?.length || !extensions?.length) continue
      // Config that keeps the built-in's command keeps how it is found, rooted and installed.
      const { markers, pull, ownTypescript, npm, go, pip, rustup, strict, exclude } = base && !entry.command ? base : { markers: [] as string[] }
      out.set(id, {
        id,
        command,
        extensions,
        markers,
        env: entry.env,
        initialization: entry.initialization ?? base?.initialization,
        ...definedOnly({ pull, ownTypescript, npm, go, pip, rustup, strict, exclude }),
        builtin: false,
      })
    }
  }
  return [...out.values()]
}

function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** The nearest directory from `file`'s up to `top` holding one of `markers`; `top` when none (or no markers). */
export function findRoot(file: string, markers: string[], top: string): string {
  return findMarker(file, markers, top) ?? top
}

/** The nearest directory from `file`'s up to `top` holding one of `markers` (`*.csproj`: any file so named); undefined when none. */
function findMarker(file: string, markers: string[], top: string): string | undefined {
  if (markers.length === 0) return undefined
  const exact = markers.filter((m) => !m.startsWith("*"))
  const suffixes = markers.filter((m) => m.startsWith("*")).map((m) => m.slice(1))
  let dir = path.dirname(file)
  for (;;) {
    if (exact.some((m) => existsSync(path.join(dir, m)))) return dir
    if (suffixes.length && listing(dir).some((name) => suffixes.some((s) => name.endsWith(s)))) return dir
    if (dir === top || !isInside(top, dir)) return undefined
    const up = path.dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
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
