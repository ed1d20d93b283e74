// `wright mcp list | add | remove | auth | logout | debug`. No core, no database: the config is
// loaded as an App would load it for the folder (trust included), servers are connected by
// the same MCP manager, config files are edited in place (jsonc, comments kept), and OAuth
// logins go through the MCP SDK's client with the loopback callback (mcp/oauth.ts).
import { openBrowser, splitWords } from "../browser"
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { applyEdits, modify, parse } from "jsonc-parser"
import { ConfigError, loadConfig, McpConfig, mcpServers, redactConfig, type McpRemoteConfig } from "../../config"
import { createMcp, listenForCallback, McpAuthProvider, mcpAuthFile, readMcpAuth, writeMcpAuth, type Mcp } from "../../mcp"
import { createExec, resolveSandbox } from "../../process"
import { terminalSafe, xdg } from "../../util"
import { readLine } from "../line-input"
import { bold, dim, green, red, UserError, yellow } from "../ui"

interface Common {
  dir?: string
}

const out = (s: string) => void process.stdout.write(s)
const note = (s: string) => void process.stderr.write(s)
const home = () => os.homedir()
const authFile = () => mcpAuthFile(xdg(process.env, home()).data)
const tty = () => process.stdin.isTTY === true
const LOGIN_WAIT_MS = 5 * 60_000

async function load(dir?: string) {
  const directory = path.resolve(dir ?? process.cwd())
  return { directory, loaded: await loadConfig({ directory, env: process.env, home: home() }) }
}

/**
 * The manager a session would have: a local server the project defines starts in the sandbox,
 * the user's own as configured, each with the scrubbed environment (process/exec.ts).
 */
async function connectAll(loaded: Awaited<ReturnType<typeof loadConfig>>, config: Parameters<typeof createMcp>[0]["config"], directory: string): Promise<Mcp> {
  const sandbox = await resolveSandbox({ config: loaded.config.sandbox, worktree: loaded.worktree, directory, env: process.env, home: home(), restrictReads: false })
  const exec = createExec({ env: process.env, passEnv: () => loaded.userConfig.sandbox?.env ?? [] })
  const mcp = createMcp({ config, directory, exec, sandbox, userServers: loaded.userConfig.mcp, authFile: authFile(), clientInfo: { name: "wright", version: "cli" } })
  const close = mcp.close
  mcp.close = async () => {
    await close()
    if (sandbox.state === "on") sandbox.dispose()
  }
  return mcp
}

function describeEntry(entry: McpConfig): string {
  if (!("type" in entry)) return "(only switches a server off)"
  return entry.type === "local" ? `local: ${entry.command.join(" ")}` : `remote: ${entry.url}`
}

export async function list(args: Common & { format?: "text" | "json" }) {
  const { directory, loaded } = await load(args.dir)
  const entries = mcpServers(loaded.config.mcp)
  const held = loaded.trust.ignored.filter((i) => i.startsWith("mcp."))
  const mcp = await connectAll(loaded, loaded.config, directory)
  try {
    await mcp.start()
    const status = mcp.status()
    const rows = entries.map(([name, entry]) => {
      const d = mcp.detail(name)
      return {
        name,
        status: status[name] ?? { status: "failed", error: "not started" },
        config: describeEntry(entry),
        tools: (d?.tools ?? []).map((t) => t.name),
        prompts: (d?.prompts ?? []).map((p) => ({ name: `${name}:${p.name}`, arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true })) })),
        resources: (d?.resources ?? []).map((r) => r.uri),
        templates: (d?.templates ?? []).map((t) => t.uriTemplate),
      }
    })
    if (args.format === "json") return out(`${JSON.stringify({ servers: rows, untrusted: held }, null, 2)}\n`)
    if (!rows.length && !held.length) return out(`No MCP servers configured. Add one: ${bold("wright mcp add")}\n`)
    for (const r of rows) {
      const s = r.status
      const mark =
        s.status === "connected" ? green("●") : s.status === "disabled" ? dim("○") : s.status === "needs_auth" ? yellow("!") : red("✗")
      const what =
        s.status === "failed" || s.status === "needs_client_registration"
          ? red(`failed: ${terminalSafe(s.error.split("\n")[0] ?? "")}`)
          : s.status === "needs_auth"
            ? yellow(`needs a login: run wright mcp auth ${r.name}`)
            : s.status
      out(`${mark} ${bold(r.name)}  ${what}  ${dim(r.config)}\n`)
      if (s.status !== "connected") continue
      const line = (label: string, items: string[]) => items.length && out(`    ${label} (${items.length}): ${terminalSafe(items.join(", "))}\n`)
      line("tools", r.tools)
      line("prompts", r.prompts.map((p) => [`/${p.name}`, ...p.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`))].join(" ")))
      line("resources", r.resources)
      line("resource templates", r.templates)
    }
    for (const h of held) out(`${dim("○")} ${h}  ${yellow("not started: this folder is not trusted (wright trust)")}\n`)
  } finally {
    await mcp.close()
  }
}

interface AddArgs {
  name?: string
  command?: string[]
  /** yargs leaves what follows `--` here, after the command's own words (`mcp`, `add`). */
  _?: (string | number)[]
  url?: string
  header?: string[]
  env?: string[]
  timeout?: number
  oauth?: boolean
  clientId?: string
  scope?: string
  project?: boolean
}

export async function add(args: AddArgs) {
  let name = args.name
  const rest = (args._ ?? []).slice(2).map(String)
  const words = [...(args.command ?? []).map(String), ...rest]
  let command = words.length ? words : undefined
  let url = args.url
  if (command && url) throw new UserError("--url and a command: name one, a URL for a remote server or a command (after --) for a local one")
  if (!name) {
    if (!tty()) throw new UserError("name: name the server, e.g. `wright mcp add docs --url https://example.com/mcp`")
    name = await readLine("Server name: ")
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) || name === "max_tool_share") {
    throw new UserError(`name: "${name}" is not a server name (letters, digits, _ . -; not max_tool_share)`)
  }
  if (!command && !url) {
    if (!tty()) throw new UserError("give --url URL for a remote server, or the command after -- for a local one, e.g. `wright mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .`")
    const kind = (await readLine("Local (a command) or remote (a URL)? [local/remote]: ")).toLowerCase()
    if (kind.startsWith("r")) url = await readLine("URL: ")
    else command = splitWords(await readLine("Command: "))
  }
  const entry: Record<string, unknown> = url
    ? {
        type: "remote",
        url,
        ...(args.header?.length ? { headers: pairs(args.header, "--header") } : {}),
        ...(args.oauth === false ? { oauth: false } : args.clientId || args.scope ? { oauth: { ...(args.clientId ? { clientId: args.clientId } : {}), ...(args.scope ? { scope: args.scope } : {}) } } : {}),
      }
    : { type: "local", command, ...(args.env?.length ? { environment: pairs(args.env, "--env") } : {}) }
  if (args.timeout !== undefined) entry.timeout = args.timeout
  if (url) {
    try {
      new URL(url)
    } catch {
      throw new UserError(`--url: not a valid URL: ${url}`)
    }
  }
  const parsed = McpConfig.safeParse(entry)
  if (!parsed.success) throw new UserError(`mcp.${name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(entry)"}: ${i.message}`).join("; ")}`)
  const file = args.project ? projectFile(process.cwd()) : globalFile()
  const replaced = editConfig(file, ["mcp", name], parsed.data)
  out(`${green(replaced ? "Replaced" : "Added")} MCP server ${bold(name)} (${describeEntry(parsed.data)}) in ${file}\n`)
  if (url && args.oauth !== false && !args.header?.some((h) => /^authorization=/i.test(h))) {
    note(dim(`If it needs a login: wright mcp auth ${name}\n`))
  }
  if (args.project) note(dim("A project's MCP servers start once you trust the folder: wright trust\n"))
}

export async function remove(args: Common & { name: string }) {
  const { loaded } = await load(args.dir)
  const files = [...new Set([globalFile(), ...loaded.files])].filter((f) => existsSync(f))
  const removed = files.filter((f) => hasKey(f, ["mcp", args.name]) && editConfig(f, ["mcp", args.name], undefined))
  if (!removed.length) {
    const names = mcpServers(loaded.config.mcp).map(([n]) => n)
    throw new UserError(`no MCP server "${args.name}" in ${files.length ? files.join(", ") : "any config file"}${names.length ? ` (configured: ${names.join(", ")})` : ""}`)
  }
  for (const f of removed) out(`${green("Removed")} MCP server ${bold(args.name)} from ${f}\n`)
  if (writeMcpAuth(authFile(), args.name, undefined)) out(`${green("Forgot")} its OAuth login\n`)
}

/** The remote server `name` of the config, or a UserError that says what is there. */
function remoteServer(loaded: Awaited<ReturnType<typeof load>>["loaded"], name: string): McpRemoteConfig {
  const entries = mcpServers(loaded.config.mcp)
  const entry = entries.find(([n]) => n === name)?.[1]
  const remotes = entries.filter(([, e]) => "type" in e && e.type === "remote").map(([n]) => n)
  if (!entry) throw new UserError(`no MCP server "${name}" in the config${remotes.length ? ` (remote servers: ${remotes.join(", ")})` : ""}`)
  if (!("type" in entry) || entry.type !== "remote") throw new UserError(`MCP server "${name}" is not remote: only remote servers log in with OAuth`)
  if (entry.oauth === false) throw new UserError(`mcp.${name}.oauth is false: remove it to log in with OAuth`)
  return entry
}

export async function auth(args: Common & { name?: string; open?: boolean }) {
  const { directory, loaded } = await load(args.dir)
  let name = args.name
  if (!name) {
    const remotes = mcpServers(loaded.config.mcp).filter(([, e]) => "type" in e && e.type === "remote" && e.oauth !== false).map(([n]) => n)
    if (!remotes.length) throw new UserError("no remote MCP server in the config to log in to")
    if (remotes.length === 1) name = remotes[0]!
    else if (!tty()) throw new UserError(`name: which server? (${remotes.join(", ")})`)
    else name = await readLine(`Server (${remotes.join(", ")}): `)
  }
  const entry = remoteServer(loaded, name)
  const file = authFile()
  readMcpAuth(file)
  const provider = new McpAuthProvider({
    name,
    serverUrl: entry.url,
    file,
    oauth: entry.oauth || undefined,
    onRedirect: async (url) => {
      note(`Log in to ${bold(name!)} in your browser:\n  ${url.href}\n`)
      if (args.open !== false) await openBrowser(url.href, directory)
      note(dim(`Waiting for the login to come back to ${provider.redirectUrl} …\n`))
    },
  })
  // A new login, whatever was stored: the old tokens may be the reason for it.
  provider.invalidateCredentials("tokens")
  const callback = await listenForCallback(provider.redirectUrl, () => provider.entry().state, LOGIN_WAIT_MS)
  try {
    const sdk = await import("@modelcontextprotocol/sdk/client/auth.js")
    let result = await sdk.auth(provider, { serverUrl: entry.url })
    if (result === "REDIRECT") result = await sdk.auth(provider, { serverUrl: entry.url, authorizationCode: await callback.code })
    if (result !== "AUTHORIZED") throw new UserError(`the login to ${name} did not finish`)
  } catch (e) {
    if (e instanceof UserError || e instanceof ConfigError) throw e
    throw new UserError(`OAuth login to ${name} failed: ${e instanceof Error ? e.message : String(e)}`)
  } finally {
    callback.close()
  }
  out(`${green("Logged in")} to ${bold(name)}; the tokens are in ${file}\n`)
  // Proof that it works: connect once with the new tokens.
  const mcp = await connectAll(loaded, { mcp: { [name]: entry } }, directory)
  try {
    await mcp.start()
    const s = mcp.status()[name]
    if (s?.status === "connected") out(`${green("Connected")}: ${mcp.detail(name)?.tools.length ?? 0} tools\n`)
    else note(`${yellow("Note:")} the login is stored, but connecting failed: ${terminalSafe(s && "error" in s ? s.error : String(s?.status))}\n`)
  } finally {
    await mcp.close()
  }
}

export async function authList(args: Common) {
  const { loaded } = await load(args.dir)
  const stored = readMcpAuth(authFile())
  const remotes = mcpServers(loaded.config.mcp).filter(([, e]) => "type" in e && e.type === "remote")
  if (!remotes.length) return out("No remote MCP servers configured.\n")
  for (const [name, e] of remotes) {
    const r = e as McpRemoteConfig
    const s = stored[name]
    const state =
      r.oauth === false
        ? dim("OAuth off")
        : !s?.tokens || s.serverUrl !== r.url
          ? yellow("not logged in")
          : s.expiresAt && s.expiresAt < Date.now()
            ? s.tokens.refresh_token
              ? green("logged in (the access token has expired; it refreshes on use)")
              : yellow("expired: run wright mcp auth " + name)
            : green(`logged in${s.expiresAt ? ` (until ${new Date(s.expiresAt).toISOString()})` : ""}`)
    out(`${bold(name)}  ${state}  ${dim(r.url)}\n`)
  }
}

export async function logout(args: { name: string }) {
  const file = authFile()
  if (!writeMcpAuth(file, args.name, undefined)) throw new UserError(`no OAuth login for "${args.name}" is stored in ${file}`)
  out(`${green("Logged out")} of ${bold(args.name)}: its tokens and client registration are gone from ${file}\n`)
}

export async function debug(args: Common & { name: string }) {
  const { directory, loaded } = await load(args.dir)
  const entries = mcpServers(loaded.config.mcp)
  const entry = entries.find(([n]) => n === args.name)?.[1]
  if (!entry) {
    const held = loaded.trust.ignored.find((i) => i.startsWith(`mcp.${args.name}:`))
    if (held) throw new UserError(`${held}: held back, this folder is not trusted (wright trust)`)
    throw new UserError(`no MCP server "${args.name}" in the config${entries.length ? ` (configured: ${entries.map(([n]) => n).join(", ")})` : ""}`)
  }
  const redacted = redactConfig({ mcp: { [args.name]: entry } }, loaded.secrets) as { mcp: Record<string, Record<string, unknown>> }
  // Header values and OAuth secrets are often tokens: only their names are shown.
  const shown = redacted.mcp[args.name]!
  for (const key of ["headers", "environment"] as const) {
    const v = shown[key] as Record<string, string> | undefined
    if (v) shown[key] = Object.fromEntries(Object.keys(v).map((k) => [k, "…"]))
  }
  if (shown.oauth && typeof shown.oauth === "object" && "clientSecret" in shown.oauth) shown.oauth = { ...shown.oauth, clientSecret: "…" }
  out(`${bold("Config")}\n${indent(JSON.stringify(redacted.mcp[args.name], null, 2))}\n`)
  if ("type" in entry && entry.type === "remote") {
    const s = readMcpAuth(authFile())[args.name]
    const login =
      entry.oauth === false
        ? "OAuth off"
        : !s || s.serverUrl !== entry.url
          ? "no login stored"
          : [
              s.tokens ? "tokens stored" : "no tokens",
              s.tokens?.refresh_token ? "with a refresh token" : "",
              s.expiresAt ? `access token ${s.expiresAt < Date.now() ? "expired" : "valid until"} ${new Date(s.expiresAt).toISOString()}` : "",
              s.clientInformation ? `client ${s.clientInformation.client_id}` : "no client registered",
            ]
              .filter(Boolean)
              .join(", ")
    out(`${bold("OAuth")}\n  ${login}\n`)
    out(`${bold("HTTP")}\n  ${terminalSafe(await probe(entry))}\n`)
  }
  const mcp = await connectAll(loaded, { mcp: { [args.name]: entry } }, directory)
  const started = Date.now()
  try {
    await mcp.start()
    const d = mcp.detail(args.name)!
    const s = d.status
    out(`${bold("Connection")}\n  ${s?.status ?? "unknown"}${s && "error" in s ? `: ${terminalSafe(s.error)}` : ""} (${Date.now() - started} ms)\n`)
    if (d.serverInfo) out(`  server ${terminalSafe(`${d.serverInfo.name} ${d.serverInfo.version}`)}\n`)
    if (d.capabilities) out(`  capabilities: ${terminalSafe(Object.keys(d.capabilities).join(", "))}\n`)
    if (s?.status === "connected") out(`  ${d.tools.length} tools, ${d.prompts.length} prompts, ${d.resources.length} resources, ${d.templates.length} resource templates\n`)
    if (d.instructions) out(`  instructions: ${terminalSafe(d.instructions.split("\n")[0] ?? "")}\n`)
    if (d.stderr) out(`${bold("stderr")}\n${indent(terminalSafe(d.stderr))}\n`)
  } finally {
    await mcp.close()
  }
}

/** What the URL answers an unauthenticated initialize: the status and, on a 401, where OAuth is described. */
async function probe(entry: McpRemoteConfig): Promise<string> {
  try {
    const res = await fetch(entry.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(entry.headers ?? {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "wright", version: "debug" } } }),
      signal: AbortSignal.timeout(entry.timeout ?? 10_000),
    })
    await res.body?.cancel()
    const www = res.headers.get("www-authenticate")
    return `POST ${entry.url} → ${res.status} ${res.statusText}${www ? `\n  WWW-Authenticate: ${www}` : ""}`
  } catch (e) {
    return `POST ${entry.url} failed: ${(e as Error).cause ? String(((e as Error).cause as Error).message ?? (e as Error).cause) : (e as Error).message}`
  }
}

function globalFile(): string {
  const dir = xdg(process.env, home()).config
  const found = ["wright.json", "wright.jsonc", "config.json"].map((n) => path.join(dir, n)).find((f) => existsSync(f))
  return found ?? path.join(dir, "wright.json")
}

function projectFile(directory: string): string {
  const found = ["wright.json", "wright.jsonc", "opencode.json", "opencode.jsonc"].map((n) => path.join(directory, n)).find((f) => existsSync(f))
  return found ?? path.join(directory, "wright.json")
}

function hasKey(file: string, at: string[]): boolean {
  let v: unknown = parse(readFileSync(file, "utf8"))
  for (const k of at) {
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, k)) return false
    v = (v as Record<string, unknown>)[k]
  }
  return true
}

/** Sets (or with `undefined` removes) one key of a JSON/JSONC file, comments kept; returns whether it was there. */
function editConfig(file: string, at: string[], value: unknown): boolean {
  const exists = existsSync(file)
  const text = exists ? readFileSync(file, "utf8") : "{}\n"
  const had = exists && hasKey(file, at)
  const next = applyEdits(text, modify(text, at, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } }))
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, next.endsWith("\n") ? next : `${next}\n`)
  return had
}

function pairs(items: string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of items) {
    const eq = item.indexOf("=")
    if (eq <= 0) throw new UserError(`${flag}: expected KEY=VALUE, received ${JSON.stringify(item)}`)
    out[item.slice(0, eq)] = item.slice(eq + 1)
  }
  return out
}

function indent(s: string): string {
  return s
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n")
}
