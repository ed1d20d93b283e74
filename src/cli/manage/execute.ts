import os from "node:os"
import path from "node:path"
import { loadConfig, xdgPaths } from "../../config"
import { CatalogRefreshError, DEFAULT_CATALOG_URL, loadCatalog, refreshCatalog, suggest, type LoadedCatalog } from "../../llm"
import { readFile } from "node:fs/promises"
import type { Session } from "../../protocol"
import { toMarkdown } from "../../sdk"
import { importSession, ImportError, type ImportResult } from "../../session"
import { databasePath, openStore } from "../../storage"
import { terminalSafe } from "../../util"
import { startCore } from "../core"
import { withLocalClient } from "../local"
import { cliLogger, type LogArgs } from "../log"
import { bold, dim, green, tildify, UserError, yellow } from "../ui"

const out = (s: string) => void process.stdout.write(s)
const note = (s: string) => void process.stderr.write(`${s}\n`)

export async function models(args: { dir?: string; provider?: string; verbose?: boolean; refresh?: boolean; format: "table" | "json" }) {
  if (args.refresh) await refresh(path.resolve(args.dir ?? process.cwd()))
  await withLocalClient(args, async (client) => {
    // One default is marked: the model a new run would use (`model`), not each provider's own.
    const { providers, model: main } = await client.config.providers()
    const chosen = args.provider ? providers.filter((p) => p.id === args.provider) : providers
    if (args.provider && chosen.length === 0) throw new UserError(noProvider(args.provider, providers.map((p) => p.id)))
    if (args.format === "json") return out(JSON.stringify(chosen, null, 2) + "\n")
    if (chosen.length === 0) {
      out("No provider is usable yet. Set an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, …) or add a provider to wright.json.\n")
      return
    }
    for (const p of chosen) {
      for (const m of Object.values(p.models).sort((a, b) => a.id.localeCompare(b.id))) {
        const mark = main === `${p.id}/${m.id}` ? " (default)" : ""
        const extra = args.verbose ? dim(`  context ${m.limit.context}, output ${m.limit.output}, $${m.cost.input}/$${m.cost.output} per 1M in/out`) : ""
        out(`${p.id}/${m.id}${mark}${extra}\n`)
      }
    }
  })
}

export async function sessionList(args: { dir?: string; maxCount?: number; format: "table" | "json"; all?: boolean }) {
  if (args.all) return allSessions(args)
  await withLocalClient(args, async (client) => {
    const sessions = await client.session.list({ roots: true, ...(args.maxCount ? { limit: args.maxCount } : {}) })
    if (args.format === "json") return out(JSON.stringify(sessions, null, 2) + "\n")
    if (sessions.length === 0) return out("No sessions in this project yet.\n")
    for (const s of sessions) out(`${s.id}  ${dim(when(s))}  ${terminalSafe(s.title)}${branchOf(s)}\n`)
  })
}

export async function sessionDelete(args: { dir?: string; id: string }) {
  await withLocalClient(args, async (client) => {
    try {
      await client.session.delete(args.id)
    } catch (e) {
      if ((e as Error).name === "NotFoundError") throw new UserError(`no session with id ${args.id}`)
      throw e
    }
    out(`Deleted ${args.id}\n`)
  })
}

/** A worktree session's branch, after its title. */
const branchOf = (s: { worktree?: { branch: string } }) => (s.worktree ? `  ${dim(`[${terminalSafe(s.worktree.branch)}]`)}` : "")

/** `session list --all`: the root sessions of every project in the database, with their directories. */
function allSessions(args: { maxCount?: number; format: "table" | "json" }) {
  const store = openStore(databasePath(process.env))
  try {
    const sessions = store.sessions.list({ roots: true, ...(args.maxCount ? { limit: args.maxCount } : {}) })
    if (args.format === "json") return out(JSON.stringify(sessions, null, 2) + "\n")
    if (sessions.length === 0) return out("No sessions yet.\n")
    for (const s of sessions) out(`${s.id}  ${dim(when(s))}  ${terminalSafe(s.title)}${branchOf(s)}  ${dim(terminalSafe(tildify(s.directory)))}\n`)
  } finally {
    store.close()
  }
}

export async function exportSession(args: { dir?: string; sessionID?: string; format?: "json" | "markdown" }) {
  await withLocalClient(args, async (client) => {
    let id = args.sessionID
    if (!id) {
      const [latest] = await client.session.list({ roots: true, limit: 1 })
      if (!latest) throw new UserError("no session to export in this project")
      id = latest.id
    }
    let info: Session
    try {
      info = await client.session.get(id)
    } catch (e) {
      if ((e as Error).name === "NotFoundError") throw new UserError(`no session with id ${id}`)
      throw e
    }
    const messages = await client.session.messages(id)
    if (args.format === "markdown") {
      // Redirected to a file, the document keeps its bytes; on a terminal its text is only shown.
      const md = toMarkdown(info, messages) + "\n"
      return out(process.stdout.isTTY ? terminalSafe(md) : md)
    }
    out(JSON.stringify({ info, messages }, null, 2) + "\n")
  })
}

export async function agentList(args: { dir?: string }) {
  await withLocalClient(args, async (client) => {
    for (const a of await client.agent.list()) {
      if (a.hidden) continue
      out(`${bold(terminalSafe(a.name))} ${dim(`(${a.mode})`)}${a.description ? `  ${terminalSafe(a.description)}` : ""}\n`)
    }
  })
}

/**
 * Fetches the catalogue from `catalog.url` (the user's own config only: a cloned repository
 * must not choose where the user's keys are sent) into the cache. A failure keeps the
 * catalogue in use and says which one that is.
 */
async function refresh(directory: string) {
  const env = process.env
  const home = os.homedir()
  const loaded = await loadConfig({ directory, env, home })
  const url = loaded.userConfig.catalog?.url ?? DEFAULT_CATALOG_URL
  const project = loaded.config.catalog?.url
  if (project && project !== url) note(`${yellow("Note:")} catalog.url from this project's config is not used (only your global config may set it): fetching ${url}`)
  const cacheDir = xdgPaths(env, home).cache
  try {
    const r = await refreshCatalog({ url, cacheDir })
    note(`${green("Refreshed")} the model catalogue from ${url}: ${r.providers} providers, ${r.models} models, cached in ${r.file}`)
  } catch (e) {
    if (!(e instanceof CatalogRefreshError)) throw e
    throw new UserError(`${e.message}. Keeping the catalogue in use: ${describeCatalog(loadCatalog(cacheDir))}.`)
  }
}

function describeCatalog(c: LoadedCatalog): string {
  const what = c.origin === "cache" ? `the copy refreshed earlier (${c.file})` : "the snapshot bundled with wright"
  return c.cacheProblem ? `${what}; the cached copy is unreadable (${c.cacheProblem})` : what
}

/** An unknown or keyless provider: the close catalogue ids, or what the provider needs. */
function noProvider(id: string, usable: string[]): string {
  const catalogue = loadCatalog(xdgPaths(process.env, os.homedir()).cache).providers
  const listed = `Usable: ${usable.join(", ") || "none (set an API key or configure a provider)"}.`
  const known = catalogue[id]
  if (known) return `provider "${id}" has no key yet: run \`wright auth login ${id}\` or set ${known.env.join(" or ")}. ${listed}`
  const close = suggest(id, [...new Set([...usable, ...Object.keys(catalogue)])])
  return `no usable provider "${id}".${close.length ? ` Did you mean: ${close.join(", ")}?` : ""} ${listed}`
}

/** `wright import <file>`: a wright or OpenCode export becomes a session of this project. */
export async function importFile(args: { dir?: string; file: string } & LogArgs) {
  const file = path.resolve(args.file)
  let data: unknown
  try {
    data = JSON.parse(await readFile(file, "utf8"))
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === "ENOENT") throw new UserError(`import: no such file ${args.file}`)
    if (e instanceof SyntaxError) throw new UserError(`import: ${args.file} is not JSON (${e.message})`)
    throw new UserError(`import: cannot read ${args.file}: ${err.message}`)
  }
  const directory = path.resolve(args.dir ?? process.cwd())
  const core = await startCore({ directory, log: cliLogger(args) })
  try {
    const { app } = core
    let r: ImportResult
    try {
      r = importSession({ store: app.store, projectID: app.projectID, directory: app.directory, version: app.version }, data, args.file)
    } catch (e) {
      if (e instanceof ImportError) throw new UserError(e.message)
      throw e
    }
    const kept = r.messages.kept + r.parts.kept ? dim(` (${r.messages.kept} messages and ${r.parts.kept} parts were already here and kept)`) : ""
    out(`Imported session: ${r.session.id}  ${terminalSafe(r.session.title)}\n${r.messages.added} messages, ${r.parts.added} parts${kept}\n`)
    const skipped = Object.entries(r.skipped)
    if (skipped.length) note(`${yellow("Note:")} left out parts of a type wright does not have: ${skipped.map(([t, n]) => `${n} ${t}`).join(", ")}`)
  } finally {
    await core.close()
  }
}

function when(s: Session) {
  return new Date(s.time.updated).toISOString().replace("T", " ").slice(0, 16)
}
