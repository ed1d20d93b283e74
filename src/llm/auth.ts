// The user's stored provider keys: `~/.local/share/wright/auth.json` in OpenCode's format
// (`{"<providerID>": {"type": "api", "key": "…"}}`), and OpenCode's own auth.json read for the
// providers wright's file has no entry for. wright never writes OpenCode's file. A file other
// users could read is refused, for reading as for writing, with the chmod that fixes it.
// Entries of other types (well-known, OAuth for other providers) are kept when the file is
// rewritten and never used as keys. A subscription login (`type: "oauth"`, see login/) in
// wright's own file stands for the key of the provider it signs in to; its tokens are read
// by login/tokens.ts when a request is sent, never put in a provider record.
// Keys never leave this module except into a provider record.
import { readFileSync, statSync } from "node:fs"
import path from "node:path"
import { ConfigError, xdgPaths } from "../config"
import { BadRequestError } from "../protocol"
import { writePrivateJson } from "../util"

/** A key from a store: which one, and the file it is in (for `auth list` and errors). */
export interface StoredKey {
  key: string
  /** "oauth": a subscription login in wright's file; `key` is then only OAUTH_KEY. */
  source: "store" | "opencode" | "oauth"
  file: string
  /** An oauth login's access token expiry (ms since the epoch). */
  expires?: number
}

/** A subscription login as stored (OpenCode's shape, plus where Copilot's API answers). */
export interface OAuthEntry {
  type: "oauth"
  /** GitHub's OAuth token (Copilot) or the OpenAI refresh token (ChatGPT). */
  refresh: string
  /** The short-lived token requests carry. */
  access: string
  /** When `access` expires, in ms since the epoch. */
  expires: number
  /** ChatGPT: the account the `chatgpt-account-id` header names. */
  accountId?: string
  /** Copilot: the API base URL the token exchange named. */
  endpoint?: string
}

/**
 * What an SDK gets as its key when a login signs the requests: never sent, since the login's
 * fetch (login/) replaces the Authorization header with the fresh access token.
 */
export const OAUTH_KEY = "oauth"

/** Providers a subscription login can sign in to (login/): GitHub Copilot, and OpenAI through ChatGPT. */
export const LOGIN_PROVIDERS: readonly string[] = ["github-copilot", "openai"]

/** Where keys are stored, and which providers may take one. Made once per App. */
export interface Credentials {
  /** wright's auth.json: the one `auth login`, `/connect` and `PUT /auth/:id` write. */
  file: string
  /** OpenCode's auth.json: read for providers wright's file has no entry for, never written. */
  opencodeFile: string
  /** Every stored API key by provider id, wright's first. Throws ConfigError for a file others can read or that is not JSON. */
  load(): Map<string, StoredKey>
  /** Whether a stored key may go to a provider the catalogue does not know: false when only an untrusted project defines it. */
  mayUse(providerID: string): boolean
}

/** wright's and OpenCode's auth.json under the XDG data dir. */
export function authFiles(env: NodeJS.ProcessEnv, home: string): { file: string; opencodeFile: string } {
  const data = xdgPaths(env, home).data
  return { file: path.join(data, "auth.json"), opencodeFile: path.join(path.dirname(data), "opencode", "auth.json") }
}

/**
 * The user's credentials for one App. In an untrusted folder a provider the project's config
 * defines on its own (not in the catalogue, not in the user's config) chose its own endpoint:
 * it gets no stored key, even one stored under its name. (Catalogue providers always may:
 * trust keeps a project from redirecting them.)
 */
export function userCredentials(opts: { env: NodeJS.ProcessEnv; home: string; trusted: boolean; userProviders: string[] }): Credentials {
  const files = authFiles(opts.env, opts.home)
  const own = new Set(opts.userProviders)
  return {
    ...files,
    load: () => loadKeys(files.file, files.opencodeFile),
    mayUse: (id) => opts.trusted || own.has(id),
  }
}

export function loadKeys(file: string, opencodeFile: string): Map<string, StoredKey> {
  const out = new Map<string, StoredKey>()
  const own = readAuthFile(file)
  for (const [id, entry] of Object.entries(own)) {
    const key = apiKeyOf(entry)
    if (key) out.set(id, { key, source: "store", file })
    const login = LOGIN_PROVIDERS.includes(id) ? oauthOf(entry) : undefined
    if (login) out.set(id, { key: OAUTH_KEY, source: "oauth", file, expires: login.expires })
  }
  const theirs = readAuthFile(opencodeFile)
  for (const [id, entry] of Object.entries(theirs)) {
    // Any wright entry for the provider, even a non-key one, wins over OpenCode's.
    if (id in own) continue
    const key = apiKeyOf(entry)
    if (key) out.set(id, { key, source: "opencode", file: opencodeFile })
  }
  return out
}

/** The entries of an auth.json as they are (`{}` when it does not exist). */
export function readAuthFile(file: string): Record<string, unknown> {
  let mode: number
  try {
    mode = statSync(file).mode
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {}
    throw new ConfigError(file, [{ path: "", message: `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` }])
  }
  checkMode(file, mode)
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"))
  } catch (e) {
    throw new ConfigError(file, [{ path: "", message: `not valid JSON (${(e as Error).message}); fix or delete the file, then log in again` }])
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(file, [{ path: "", message: `expected an object of provider ids, e.g. {"anthropic": {"type": "api", "key": "…"}}` }])
  }
  return parsed as Record<string, unknown>
}

/**
 * Stores `key` for `providerID` in wright's auth.json, or with `key` undefined removes the
 * provider's entry; the other entries stay as they were. Written atomically (temp + rename)
 * with mode 0600 in a folder created 0700. Returns whether an entry was removed or replaced.
 */
export function writeKey(file: string, providerID: string, key: string | undefined): boolean {
  return writeEntry(file, providerID, key === undefined ? undefined : { type: "api", key })
}

/** Stores any entry (an API key, a login) as `writeKey` does, or removes the provider's with `undefined`. */
export function writeEntry<E extends { type: string }>(file: string, providerID: string, entry: E | undefined): boolean {
  checkProviderID(providerID)
  const data = readAuthFile(file)
  const had = Object.hasOwn(data, providerID)
  if (entry === undefined) {
    if (!had) return false
    delete data[providerID]
  } else data[providerID] = entry
  writePrivateJson(file, data)
  return had
}

/** The provider's subscription login in wright's auth.json, if it has a well-formed one. */
export function readLogin(file: string, providerID: string): OAuthEntry | undefined {
  return oauthOf(readAuthFile(file)[providerID])
}

/** At most the last four characters, and only of a key long enough that they give nothing away. */
export function maskKey(key: string): string {
  return key.length >= 16 ? `…${key.slice(-4)}` : "…"
}

const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

/** Provider ids as config and the catalog spell them. */
export function checkProviderID(providerID: string) {
  if (!PROVIDER_ID.test(providerID)) {
    throw new BadRequestError({ message: `${JSON.stringify(providerID)} is not a provider id: use letters, digits, ".", "_" and "-", e.g. "anthropic"` })
  }
}

function apiKeyOf(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null) return undefined
  const e = entry as { type?: unknown; key?: unknown }
  return e.type === "api" && typeof e.key === "string" && e.key !== "" ? e.key : undefined
}

function oauthOf(entry: unknown): OAuthEntry | undefined {
  if (typeof entry !== "object" || entry === null) return undefined
  const e = entry as Partial<OAuthEntry>
  const ok = e.type === "oauth" && typeof e.refresh === "string" && e.refresh !== "" && typeof e.access === "string" && typeof e.expires === "number"
  return ok ? (e as OAuthEntry) : undefined
}

function checkMode(file: string, mode: number) {
  if ((mode & 0o077) === 0) return
  const octal = (mode & 0o777).toString(8).padStart(4, "0")
  throw new ConfigError(file, [{ path: "", message: `its mode is ${octal}, so other users of this machine may read your API keys: refused. Run: chmod 600 ${file}` }])
}
