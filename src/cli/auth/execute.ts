// `wright auth login | list | logout`: the user's stored provider keys. No core, no database:
// the store is read and written directly (llm/auth.ts), and `list` resolves keys exactly as
// an App would for the folder it runs in. A key is never printed, only `…` and its last four
// characters.
import os from "node:os"
import path from "node:path"
import { loadConfig, xdgPaths } from "../../config"
import { authFiles, catalogProviderIDs, checkProviderID, createProviders, loadCatalog, maskKey, readAuthFile, userCredentials, writeKey, type KeySource, type ProviderInfo } from "../../llm"
import { bold, dim, green, UserError, yellow } from "../ui"
import { readLine } from "../line-input"
import { readPiped } from "./prompt"
import { signInChatGPT, signInCopilot } from "./sign-in"

interface Args {
  provider?: string
  dir?: string
  /** `--no-browser`: print the ChatGPT sign-in page, do not open it. */
  browser?: boolean
}

/** The subscription sign-ins the login list offers first; `chatgpt` signs in to the openai provider. */
const SIGN_INS = [
  { id: "github-copilot", detail: "GitHub Copilot: sign in with GitHub (device code)" },
  { id: "chatgpt", detail: "ChatGPT (Plus/Pro): sign in with OpenAI in the browser, for openai/… models" },
]

const out = (s: string) => void process.stdout.write(s)
const warn = (s: string) => void process.stderr.write(`${yellow("Note:")} ${s}\n`)
const files = () => authFiles(process.env, os.homedir())
const tty = () => process.stdin.isTTY === true
const catalogDir = () => xdgPaths(process.env, os.homedir()).cache
/** The catalogue's providers (the refreshed copy when there is one, as an App reads it). */
const known = (): ProviderInfo[] => createProviders({ config: {}, env: {}, catalog: () => loadCatalog(catalogDir()).providers }).all()

export async function login(args: Args) {
  const { file } = files()
  // A store others can read is refused before the key is typed.
  readAuthFile(file)
  const provider = args.provider ?? (tty() ? await pickProvider() : undefined)
  if (!provider) throw new UserError("provider: name it when the key comes from stdin, e.g. `wright auth login anthropic < key.txt`")
  checkProviderID(provider)
  if (provider === "github-copilot") return signInCopilot(file)
  if (provider === "chatgpt") return signInChatGPT(file, { open: args.browser !== false })
  if (provider === "openai" && tty() && (await pick("OpenAI:", [{ id: "key", detail: "an API key" }, { id: "chatgpt", detail: "sign in with ChatGPT (Plus/Pro)" }])) === "chatgpt") {
    return signInChatGPT(file, { open: args.browser !== false })
  }
  const key = tty() ? await readLine(`API key for ${provider} (hidden): `, { hidden: true }) : await readPiped("API key")
  if (!key) throw new UserError("no API key typed: nothing stored")
  if (/[\s\p{Cc}]/u.test(key)) throw new UserError("the API key holds spaces or control characters: nothing stored (paste the key alone)")
  writeKey(file, provider, key)
  out(`${green("Stored")} the ${bold(provider)} key (${maskKey(key)}) in ${file}\n`)
  // Exa's and Tavily's keys are the websearch tool's, not a model provider's.
  if (provider === "exa" || provider === "tavily") return out(dim(`Used by the websearch tool when your config says "websearch": {"provider": "${provider}"}\n`))
  const used = await keysHere(process.cwd()).then((all) => all?.find((k) => k.providerID === provider))
  if (!used && !known().some((p) => p.id === provider)) warn(`"${provider}" is not a known provider: the key is used once provider.${provider} is in your config`)
  else if (used && used.sources[0]?.kind === "config") warn(`provider.${provider}.options.apiKey in your config comes first: remove it to use the stored key`)
}

export async function list(args: Args) {
  const { file, opencodeFile } = files()
  const directory = path.resolve(args.dir ?? process.cwd())
  const keys = (await keysHere(directory, true))!
  const own = readAuthFile(file)
  const theirs = readAuthFile(opencodeFile)
  const width = Math.max(8, ...[...keys.map((k) => k.providerID), ...Object.keys(own), ...Object.keys(theirs)].map((id) => id.length))
  const pad = (id: string) => id.padEnd(width)
  for (const k of keys) {
    const [used, ...others] = k.sources
    out(`${bold(pad(k.providerID))}  ${k.masked.padEnd(5)}  ${describe(used!, k.providerID)}\n`)
    for (const s of others) out(dim(`${" ".repeat(width + 7)}  also ${describe(s, k.providerID)}: not used\n`))
  }
  const listed = new Set(keys.map((k) => k.providerID))
  for (const [entries, where] of [[own, file], [theirs, opencodeFile]] as const) {
    for (const [id, entry] of Object.entries(entries)) {
      if (listed.has(id) || (where === opencodeFile && id in own)) continue
      const type = (entry as { type?: unknown } | null)?.type
      if (type !== "api") out(dim(`${pad(id)}  ${String(type ?? "unknown")} login in ${where}: not used by wright\n`))
      else if (id === "exa" || id === "tavily") out(dim(`${pad(id)}  key in ${where}: for the websearch tool (websearch.provider "${id}")\n`))
      else out(dim(`${pad(id)}  key in ${where}: not used in this folder (no provider "${id}" in the catalog or your own config)\n`))
    }
  }
  if (keys.length === 0) {
    out(`No provider has a key yet. Run ${bold("wright auth login")}, or set the provider's variable (${known().slice(0, 4).map((p) => p.env[0]).filter(Boolean).join(", ")}, …).\n`)
  }
}

export async function logout(args: Args) {
  const { file, opencodeFile } = files()
  const own = readAuthFile(file)
  let provider = args.provider
  if (!provider) {
    const ids = Object.keys(own)
    if (ids.length === 0) throw new UserError(`no key is stored in ${file}`)
    if (!tty()) throw new UserError("provider: name the provider, e.g. `wright auth logout anthropic`")
    provider = await pick("Stored keys:", ids.map((id) => ({ id, detail: "" })))
  }
  // The ChatGPT sign-in is stored as openai's.
  if (provider === "chatgpt") provider = "openai"
  checkProviderID(provider)
  const signedIn = (own[provider] as { type?: unknown } | undefined)?.type === "oauth"
  const theirs = readAuthFile(opencodeFile)
  const inOpencode = (theirs[provider] as { type?: unknown } | undefined)?.type === "api"
  if (!writeKey(file, provider, undefined)) {
    if (inOpencode) throw new UserError(`the ${provider} key comes from OpenCode's ${opencodeFile}, which wright never changes: remove it there (opencode auth logout)`)
    throw new UserError(`no ${provider} key is stored in ${file}`)
  }
  out(signedIn ? `${green("Signed out")} of ${bold(provider)}: its sign-in is removed from ${file}\n` : `${green("Removed")} the ${bold(provider)} key from ${file}\n`)
  if (inOpencode) warn(`OpenCode's ${opencodeFile} also has a ${provider} key: wright uses that one now`)
}

function describe(s: KeySource, providerID: string): string {
  switch (s.kind) {
    case "config":
      return `config (provider.${providerID}.options.apiKey)`
    case "store":
      return `store (${s.file})`
    case "opencode":
      return `OpenCode's store (${s.file})`
    case "env":
      return `env ${s.name}`
    case "oauth":
      return `oauth (${providerID === "openai" ? "ChatGPT" : "GitHub Copilot"} sign-in, in ${s.file}; access token ${expiry(s.expires)}, refreshed on use)`
  }
}

function expiry(at: number): string {
  const when = new Date(at).toISOString().replace("T", " ").slice(0, 16) + " UTC"
  return at > Date.now() ? `expires ${when}` : `expired ${when}`
}

/** The providers an App in `directory` would have (catalogue and config), keys resolved as it would. */
async function providersHere(directory: string) {
  const env = process.env
  const home = os.homedir()
  const loaded = await loadConfig({ directory, env, home, knownProviders: catalogProviderIDs(catalogDir()) })
  const credentials = userCredentials({ env, home, trusted: loaded.trust.trusted, userProviders: Object.keys(loaded.userConfig.provider ?? {}) })
  return createProviders({ config: loaded.config, env, credentials, catalog: () => loadCatalog(catalogDir()).providers })
}

/** The keys an App in `directory` would use. Only `list` must see a broken config; after a login it would only hide the confirmation. */
async function keysHere(directory: string, strict = false) {
  try {
    return (await providersHere(directory)).keys()
  } catch (e) {
    if (strict) throw e
    return undefined
  }
}

/** How many providers the login list numbers; the rest are typed by name. */
const SHOWN = 12

/** The first providers numbered (the catalogue's familiar ones, then config's), any other typed by its id. */
async function pickProvider(): Promise<string> {
  const all = await providersHere(process.cwd()).then((p) => p.all(), () => known())
  const ids = new Set(all.map((p) => p.id))
  const items = [...SIGN_INS, ...all.filter((p) => p.id !== "github-copilot").slice(0, SHOWN).map((p) => ({ id: p.id, detail: `${p.name}  ${p.env.join(", ")}` }))]
  const more = all.length - items.length + SIGN_INS.length - 1
  return pick("Providers:", items, {
    more: `${more > 0 ? `… and ${more} more: type any provider's id (\`wright models\` lists the ones you can use)` : "Or type a provider's id"}\n  exa or tavily: a key for the websearch tool`,
    accept: (answer) => {
      if (ids.has(answer) || answer === "exa" || answer === "tavily" || answer === "chatgpt") return true
      const close = [...ids].filter((id) => id.includes(answer.toLowerCase()) || answer.toLowerCase().includes(id)).slice(0, 5)
      process.stderr.write(`No provider "${answer}".${close.length ? ` Did you mean: ${close.join(", ")}?` : ""} (A provider of your own: add it to your config, or name it: wright auth login <id>.)\n`)
      return false
    },
  })
}

/** A numbered list; the user types a number, or a name `accept` takes (any, by default). */
async function pick(title: string, items: { id: string; detail: string }[], opts: { more?: string; accept?: (answer: string) => boolean } = {}): Promise<string> {
  const width = Math.max(...items.map((i) => i.id.length))
  process.stderr.write(`${title}\n`)
  items.forEach((item, i) => process.stderr.write(`  ${String(i + 1).padStart(2)}. ${item.id.padEnd(width)}  ${dim(item.detail)}\n`))
  if (opts.more) process.stderr.write(dim(`  ${opts.more}\n`))
  for (;;) {
    const answer = await readLine("Number or name: ")
    const n = Number(answer)
    if (Number.isInteger(n) && n >= 1 && n <= items.length) return items[n - 1]!.id
    if (answer && (opts.accept?.(answer) ?? true)) return answer
  }
}
