// Trusted folders: a cloned repository's config must not be able to start processes,
// read the user's secrets, loosen the user's rules or redirect the user's API keys until
// the user says the folder is theirs. `restrictProject` is the one place that decides
// which keys of a project's config apply in an untrusted folder; everything that starts
// processes, resolves secrets or loosens rules goes through it (or through `tightenOnly`
// for permission rules, which the agent layer applies). The trust record is kept per
// folder with a hash of every project config source, so a changed config asks again.
import { createHash } from "node:crypto"
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, statSync, writeSync } from "node:fs"
import path from "node:path"
import type { PermissionConfig } from "./permission"
import type { Config } from "./schema"
import type { Token } from "./substitute"

/** Where the project's permission rules go in an untrusted folder: they may only tighten. */
export interface RestrictedPermissions {
  permission?: PermissionConfig
  agent: Record<string, PermissionConfig>
  /** Project config folders (.wright/, .opencode/): their Markdown agents' rules may only tighten too. */
  dirs: string[]
}

export interface Trust {
  /** The folder the record is kept for (the opened project directory, symlinks resolved). */
  directory: string
  /** The project's config applies in full: the folder is trusted, or `--trust`/WRIGHT_TRUST said so. */
  trusted: boolean
  /** How it came to be trusted. */
  source?: "record" | "flag"
  /** A record exists but the config changed since the user trusted it. */
  changed: boolean
  /** What the untrusted folder's config asked for and did not get, one line each (empty: nothing to trust). */
  ignored: string[]
  /** Hash of every project config source; `wright trust` records it. */
  hash: string
  /** The permission rules held back to tighten only (untrusted folders). */
  restricted?: RestrictedPermissions
}

/** A value that reaches nobody: the text of a refused `{env:}`/`{file:}` token. */
export function describeToken(token: Token): string {
  const where = token.at.length > 0 ? ` (at ${token.at.join(".")})` : ""
  return token.kind === "env" ? `{env:${token.name}}: reads your environment${where}` : `{file:${token.name}}: reads a file outside the project${where}`
}

/** `{file:}` may read inside the project (symlinks resolved); `{env:}` never, until trusted. */
export function projectTokenPolicy(roots: string[]) {
  const real = roots.map(realOrSelf)
  return (kind: "env" | "file", target: string) => kind === "file" && real.some((root) => inside(realOrSelf(target), root))
}

const SAFE_PROVIDER_OPTIONS = new Set(["timeout", "headerTimeout", "chunkTimeout", "setCacheKey"])
const RISKY_MODEL_KEYS = ["headers", "options", "provider"]

/**
 * The part of an untrusted project's config that may apply, and what was held back.
 * `user` is what the user's own config says (the global layers) and `knownProviders` the
 * catalog's ids: together they tell the providers whose keys are the user's from the
 * project's own.
 */
export function restrictProject(project: Config, user: Config, knownProviders?: ReadonlySet<string>): { config: Config; ignored: string[]; permissions: Omit<RestrictedPermissions, "dirs"> } {
  const out: Config = { ...project }
  const ignored: string[] = []
  const permissions: Omit<RestrictedPermissions, "dirs"> = { agent: {} }

  if (project.mcp) {
    for (const [name, entry] of Object.entries(project.mcp)) {
      if (typeof entry === "number" || (entry as { enabled?: boolean }).enabled === false) continue
      const e = entry as { type?: string; command?: string[]; url?: string }
      ignored.push(e.type === "remote" ? `mcp.${name}: connects to ${e.url}` : `mcp.${name}: starts ${JSON.stringify((e.command ?? []).join(" "))}`)
    }
    delete out.mcp
  }
  if (project.permission) {
    permissions.permission = project.permission
    ignored.push(...allowRules(project.permission, "permission"))
    delete out.permission
  }
  if (project.agent) {
    const agents: NonNullable<Config["agent"]> = {}
    for (const [name, cfg] of Object.entries(project.agent)) {
      const { permission, ...rest } = cfg
      if (permission) {
        permissions.agent[name] = permission
        ignored.push(...allowRules(permission, `agent.${name}.permission`))
      }
      agents[name] = rest
    }
    out.agent = agents
  }
  if (project.provider) {
    const projectOnly = projectOnlyProviders(project.provider, user, knownProviders)
    out.provider = restrictProviders(project.provider, projectOnly, ignored)
    if (projectOnly.size > 0) dropModelsOf(out, projectOnly, ignored)
  }
  for (const key of ["plugin", "shell", "lsp", "formatter"] as const) {
    if (project[key] === undefined || (key === "lsp" || key === "formatter") && project[key] === false) continue
    const what = { plugin: `loads ${JSON.stringify(project.plugin)}`, shell: `runs commands with ${JSON.stringify(project.shell)}`, lsp: "starts the language servers it names", formatter: "runs the formatters it names" }[key]
    ignored.push(`${key}: ${what} (runs code)`)
    delete out[key]
  }
  if (project.hooks && Object.keys(project.hooks).length > 0) {
    ignored.push(`hooks: runs commands on ${Object.keys(project.hooks).join(", ")} (runs code)`)
    delete out.hooks
  }
  if (project.server) {
    if (project.server.cors) ignored.push(`server.cors: lets ${project.server.cors.join(", ")} drive the server from a browser`)
    const others = Object.keys(project.server).filter((k) => k !== "cors")
    if (others.length > 0) ignored.push(`server.${others.join("/")}: changes where the server listens`)
    delete out.server
  }
  // Who may start wright in CI is the user's to widen, not a cloned (or a fork's) checkout's.
  if (project.github?.associations) {
    ignored.push(`github.associations: lets ${project.github.associations.join(", ")} start wright from a comment`)
    out.github = { ...project.github, associations: undefined }
  }
  if (project.sandbox) out.sandbox = restrictSandbox(project.sandbox, user.sandbox ?? {}, ignored)
  if (project.websearch) {
    const held = restrictWebsearch(project.websearch, user.websearch, ignored)
    if (held) out.websearch = held
    else delete out.websearch
  }
  if (project.instructions) {
    const urls = project.instructions.filter((i) => /^https?:\/\//i.test(i) || path.isAbsolute(i) || i.startsWith("~") || i.split(/[\\/]/).includes(".."))
    for (const i of urls) ignored.push(`instructions: ${JSON.stringify(i)} is outside the project`)
    out.instructions = project.instructions.filter((i) => !urls.includes(i))
  }
  if (project.skills) {
    const far = [...(project.skills.urls ?? []), ...(project.skills.paths ?? []).filter((p) => path.isAbsolute(p) || p.startsWith("~") || p.split(/[\\/]/).includes(".."))]
    for (const s of far) ignored.push(`skills: ${JSON.stringify(s)} is outside the project`)
    out.skills = { paths: project.skills.paths?.filter((p) => !far.includes(p)), urls: undefined }
  }
  return { config: out, ignored, permissions }
}

const STRICTNESS = { off: 0, "workspace-write": 1, "read-only": 2 } as const

/** A project may only tighten the sandbox: a stricter mode, no network, required; never extra writable paths. */
function restrictSandbox(project: NonNullable<Config["sandbox"]>, user: NonNullable<Config["sandbox"]>, ignored: string[]): Config["sandbox"] {
  const out = { ...project }
  if (out.mode !== undefined && STRICTNESS[out.mode] < STRICTNESS[user.mode ?? "workspace-write"]) {
    ignored.push(`sandbox.mode: ${JSON.stringify(out.mode)} would loosen your sandbox`)
    delete out.mode
  }
  if (out.writable !== undefined) {
    if (out.writable.length > 0) ignored.push(`sandbox.writable: lets commands write ${out.writable.join(", ")}`)
    delete out.writable
  }
  // Read from the user's config only (session/app.ts); said here so `wright trust` shows it.
  if (out.env !== undefined) {
    if (out.env.length > 0) ignored.push(`sandbox.env: passes ${out.env.join(", ")} into commands (only your global config can)`)
    delete out.env
  }
  if (out.network === true && user.network === false) {
    ignored.push(`sandbox.network: true would give commands the network you turned off`)
    delete out.network
  }
  if (out.required === false && user.required === true) {
    ignored.push(`sandbox.required: false would run commands unconfined where the sandbox is missing`)
    delete out.required
  }
  return out
}

/**
 * A project may pick the search backend only where the user picked none (or the same one),
 * and never where searches go or whose account they run under: its url would receive every
 * query (and the user's key), and its apiKey would log the queries in the project's account.
 */
function restrictWebsearch(project: NonNullable<Config["websearch"]>, user: Config["websearch"], ignored: string[]): Config["websearch"] {
  const { url, apiKey, provider } = project
  if (url !== undefined) ignored.push(`websearch.url: sends your web searches to ${url}`)
  if (apiKey !== undefined) ignored.push(`websearch.apiKey: runs your web searches under this folder's own ${provider} account`)
  if (user && user.provider !== provider) {
    ignored.push(`websearch.provider: ${JSON.stringify(provider)} would replace your ${JSON.stringify(user.provider)}`)
    return undefined
  }
  return { provider }
}

/**
 * The providers an untrusted project defines on its own: not in the catalogue, not in the
 * user's config. Each one chose its own endpoint. Without the catalogue at hand there are
 * none: every provider counts as the user's, the stricter reading of restrictProviders.
 */
function projectOnlyProviders(providers: NonNullable<Config["provider"]>, user: Config, known: ReadonlySet<string> | undefined): Set<string> {
  if (!known) return new Set()
  return new Set(Object.keys(providers).filter((id) => !known.has(id) && user.provider?.[id] === undefined))
}

/**
 * Providers whose key is the user's keep their endpoint, and the project's own are left out
 * whole: picked by the project's `model`, or by default as the only configured provider, one
 * would receive the conversation, and its package could sign requests with the user's cloud
 * credentials (Bedrock's AWS keys, Vertex's Google ones) or fill `${VAR}` in its URL from the
 * user's environment. Trusting the folder brings them back.
 */
function restrictProviders(providers: NonNullable<Config["provider"]>, projectOnly: ReadonlySet<string>, ignored: string[]) {
  const out: NonNullable<Config["provider"]> = {}
  for (const [id, cfg] of Object.entries(providers)) {
    if (projectOnly.has(id)) {
      const where = cfg.options?.baseURL ?? cfg.api ?? cfg.npm ?? "an endpoint of its own"
      ignored.push(`provider.${id}: a provider only this folder defines, sending requests to ${where}`)
      continue
    }
    const next = { ...cfg }
    if (next.env) {
      ignored.push(`provider.${id}.env: reads the key from ${next.env.join(", ")} in your environment`)
      delete next.env
    }
    for (const key of ["npm", "api"] as const) {
      if (next[key] === undefined) continue
      ignored.push(`provider.${id}.${key}: redirects your ${id} key`)
      delete next[key]
    }
    if (next.options) {
      const risky = Object.keys(next.options).filter((k) => !SAFE_PROVIDER_OPTIONS.has(k))
      for (const k of risky) ignored.push(`provider.${id}.options.${k}: ${k === "apiKey" ? "replaces" : "redirects"} your ${id} key`)
      next.options = Object.fromEntries(Object.entries(next.options).filter(([k]) => SAFE_PROVIDER_OPTIONS.has(k)))
    }
    if (next.models) {
      const models: typeof next.models = {}
      for (const [modelID, model] of Object.entries(next.models)) {
        const m = { ...model } as Record<string, unknown>
        for (const k of RISKY_MODEL_KEYS) {
          if (m[k] === undefined) continue
          ignored.push(`provider.${id}.models.${modelID}.${k}: changes what your ${id} key is sent with`)
          delete m[k]
        }
        models[modelID] = m as (typeof models)[string]
      }
      next.models = models
    }
    out[id] = next
  }
  return out
}

/** The project's own choices of a model (`model`, `small_model`, an agent's or a command's) that name a provider left out: the user's default applies. */
function dropModelsOf(out: Config, projectOnly: ReadonlySet<string>, ignored: string[]) {
  const names = (ref: unknown) => typeof ref === "string" && projectOnly.has(ref.split("/")[0]!)
  const held = (where: string, ref: string) => ignored.push(`${where}: ${JSON.stringify(ref)} uses provider ${ref.split("/")[0]}, which only this folder defines`)
  for (const key of ["model", "small_model"] as const) {
    if (!names(out[key])) continue
    held(key, out[key]!)
    delete out[key]
  }
  for (const section of ["agent", "command"] as const) {
    const entries = out[section]
    if (!entries) continue
    const next: Record<string, unknown> = {}
    for (const [name, entry] of Object.entries(entries)) {
      if (!names(entry.model)) {
        next[name] = entry
        continue
      }
      held(`${section}.${name}.model`, entry.model!)
      const { model: _model, ...rest } = entry
      next[name] = rest
    }
    out[section] = next as never
  }
}

/** The `allow` entries of a permission config, which an untrusted folder drops. */
function allowRules(cfg: PermissionConfig, where: string): string[] {
  const out: string[] = []
  for (const [key, rule] of Object.entries(cfg)) {
    if (rule === "allow") out.push(`${where}.${key}: "allow" would loosen your rules`)
    else if (typeof rule === "object")
      for (const [pattern, action] of Object.entries(rule)) if (action === "allow") out.push(`${where}.${key}[${JSON.stringify(pattern)}]: "allow" would loosen your rules`)
  }
  return out
}

// ---- the record ----

interface TrustFile {
  folders: Record<string, { hash: string; time: string }>
}

export function trustFile(dataDir: string): string {
  return path.join(dataDir, "trust.json")
}

function readTrustFile(file: string): TrustFile {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<TrustFile>
    return { folders: typeof parsed.folders === "object" && parsed.folders !== null ? parsed.folders : {} }
  } catch {
    return { folders: {} }
  }
}

export function readTrustRecord(dataDir: string, directory: string): { hash: string; time: string } | undefined {
  return readTrustFile(trustFile(dataDir)).folders[realOrSelf(directory)]
}

/** Records (or with hash undefined, forgets) the folder's trust; the file is the user's alone (0600). */
export function writeTrustRecord(dataDir: string, directory: string, hash: string | undefined): string {
  const file = trustFile(dataDir)
  const data = readTrustFile(file)
  const key = realOrSelf(directory)
  if (hash === undefined) delete data.folders[key]
  else data.folders[key] = { hash, time: new Date().toISOString() }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const tmp = `${file}.${process.pid}.tmp`
  const fd = openSync(tmp, "w", 0o600)
  try {
    writeSync(fd, `${JSON.stringify(data, null, 2)}\n`)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  return file
}

export function listTrustRecords(dataDir: string): { directory: string; hash: string; time: string }[] {
  return Object.entries(readTrustFile(trustFile(dataDir)).folders).map(([directory, r]) => ({ directory, ...r }))
}

const MAX_FILES = 5000
const MAX_BYTES = 4 * 1024 * 1024
const SKIP = new Set(["node_modules", ".git"])

/**
 * Every project config source: the config files, and every file under the config folders
 * with symlinks followed (a folder linked in is walked where it points, each folder once),
 * so what trust records is what wright would load. `links` holds each symlink's own target.
 */
export function projectConfigFiles(files: string[], dirs: string[]): { files: string[]; links: Map<string, string> } {
  const all = new Set(files)
  const links = new Map<string, string>()
  const seen = new Set<string>()
  for (const dir of dirs) walk(dir, all, links, seen, true)
  return { files: [...all].sort(), links }
}

/** One hash over the project's config files and every file under its config folders, and where each symlink among them points. */
export function hashProjectConfig(files: string[], dirs: string[]): string {
  return hashSources(projectConfigFiles(files, dirs))
}

export function hashSources(sources: { files: string[]; links: Map<string, string> }): string {
  const h = createHash("sha256")
  for (const [link, target] of [...sources.links].sort(([a], [b]) => (a < b ? -1 : 1))) h.update(`link\0${link}\0${target}\0`)
  for (const file of sources.files) {
    h.update(file).update("\0")
    try {
      const info = statSync(file)
      h.update(info.size > MAX_BYTES ? `${info.size}:${info.mtimeMs}` : readFileSync(file)).update("\0")
    } catch {
      h.update("missing\0")
    }
  }
  return h.digest("hex")
}

const CODE = /\.(m?js|ts)$/
const CODE_FOLDERS: Record<string, string> = { plugin: "a plugin", plugins: "a plugin", tool: "a custom tool", tools: "a custom tool" }

/**
 * The plugins and custom tools among a project's config files (`<config folder>/plugin/x.ts`,
 * `tool/`, …), one line each in the form the plugin loader holds them back with: code that
 * runs in wright's own process once the folder is trusted.
 */
export function projectCode(files: string[], dirs: string[], directory: string): string[] {
  const roots = new Set(dirs)
  const out: string[] = []
  for (const file of files) {
    const folder = path.dirname(file)
    const what = CODE_FOLDERS[path.basename(folder)]
    if (!what || !roots.has(path.dirname(folder)) || !CODE.test(file) || file.endsWith(".d.ts")) continue
    out.push(`${path.relative(directory, file) || file}: ${what} (runs code)`)
  }
  return out
}

/** Plan mode's plans (`<config folder>/plans/*.md`): written by the plan agent, never loaded, so not config. */
const PLANS = "plans"

function walk(dir: string, into: Set<string>, links: Map<string, string>, seen: Set<string>, top = false) {
  let entries
  try {
    const real = realpathSync(dir)
    if (seen.has(real)) return
    seen.add(real)
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const e of entries) {
    if (into.size >= MAX_FILES) return
    if (SKIP.has(e.name) || (top && e.name === PLANS)) continue
    const p = path.join(dir, e.name)
    let isDir = e.isDirectory()
    if (e.isSymbolicLink()) {
      try {
        links.set(p, readlinkSync(p))
        isDir = statSync(p).isDirectory()
      } catch {
        // A dangling link is recorded by its target alone.
      }
    }
    if (isDir) walk(p, into, links, seen)
    else into.add(p)
  }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

function inside(child: string, root: string): boolean {
  const rel = path.relative(root, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}
