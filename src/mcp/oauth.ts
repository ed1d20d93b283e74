// MCP OAuth for remote servers: the MCP SDK's OAuth client does discovery, dynamic client
// registration, PKCE and refresh; this file is its provider, backed by `mcp-auth.json` in
// wright's data folder (mode 0600, written atomically), and the loopback callback the browser
// comes back to. The core never opens a browser: a server that needs a login is `needs_auth`
// until `wright mcp auth <name>` (interactive) stores tokens.
import { randomBytes } from "node:crypto"
import { readFileSync, statSync } from "node:fs"
import http from "node:http"
import path from "node:path"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { ConfigError, type McpOAuthConfig } from "../config"
import { writePrivateJson } from "../util"

export const DEFAULT_CALLBACK_PORT = 19876
export const CALLBACK_PATH = "/mcp/oauth/callback"

/** What is kept per server name. An entry for another URL than the configured one is ignored. */
export interface StoredMcpAuth {
  serverUrl: string
  tokens?: OAuthTokens
  /** Milliseconds since the epoch when the access token expires, when the server said. */
  expiresAt?: number
  clientInformation?: OAuthClientInformationMixed
  codeVerifier?: string
  state?: string
}

/** `$DATA/wright/mcp-auth.json`. */
export function mcpAuthFile(dataDir: string): string {
  return path.join(dataDir, "mcp-auth.json")
}

/** Every entry (`{}` when the file does not exist). A file others may read is refused. */
export function readMcpAuth(file: string): Record<string, StoredMcpAuth> {
  let mode: number
  try {
    mode = statSync(file).mode
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {}
    throw new ConfigError(file, [{ path: "", message: `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` }])
  }
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, "0")
    throw new ConfigError(file, [{ path: "", message: `its mode is ${octal}, so other users of this machine may read your MCP tokens: refused. Run: chmod 600 ${file}` }])
  }
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8"))
    if (typeof parsed === "object" && parsed && !Array.isArray(parsed)) return parsed as Record<string, StoredMcpAuth>
  } catch (e) {
    throw new ConfigError(file, [{ path: "", message: `not valid JSON (${(e as Error).message}); delete the file and run wright mcp auth again` }])
  }
  throw new ConfigError(file, [{ path: "", message: "expected an object of MCP server names" }])
}

/** Replaces (or with `undefined` removes) one server's entry; 0600, temp + rename, folder 0700. Returns whether there was one. */
export function writeMcpAuth(file: string, name: string, entry: StoredMcpAuth | undefined): boolean {
  const data = readMcpAuth(file)
  const had = Object.hasOwn(data, name)
  if (entry === undefined) {
    if (!had) return false
    delete data[name]
  } else data[name] = entry
  writePrivateJson(file, data)
  return had
}

export interface McpAuthProviderOptions {
  name: string
  serverUrl: string
  file: string
  oauth?: McpOAuthConfig
  /** Interactive logins open the browser here; without it a needed login only marks the server (see `needsLogin`). */
  onRedirect?(url: URL): void | Promise<void>
}

/** The SDK's OAuth client provider over the store, for one server. */
export class McpAuthProvider implements OAuthClientProvider {
  /** Set when the SDK wanted to send the user to the authorization page and nobody was there to go. */
  needsLogin = false
  constructor(private readonly opts: McpAuthProviderOptions) {}

  get redirectUrl(): string {
    if (this.opts.oauth?.redirectUri) return this.opts.oauth.redirectUri
    return `http://127.0.0.1:${this.opts.oauth?.callbackPort ?? DEFAULT_CALLBACK_PORT}${CALLBACK_PATH}`
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "wright",
      client_uri: "https://github.com/wright-agent/wright",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.opts.oauth?.clientSecret ? "client_secret_post" : "none",
      ...(this.opts.oauth?.scope ? { scope: this.opts.oauth.scope } : {}),
    }
  }

  /** This server's entry, or a fresh one when there is none or it was made for another URL. */
  entry(): StoredMcpAuth {
    const found = readMcpAuth(this.opts.file)[this.opts.name]
    return found && found.serverUrl === this.opts.serverUrl ? found : { serverUrl: this.opts.serverUrl }
  }

  private update(change: (e: StoredMcpAuth) => StoredMcpAuth) {
    writeMcpAuth(this.opts.file, this.opts.name, change(this.entry()))
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.opts.oauth?.clientId) {
      return { client_id: this.opts.oauth.clientId, ...(this.opts.oauth.clientSecret ? { client_secret: this.opts.oauth.clientSecret } : {}) }
    }
    return this.entry().clientInformation
  }

  saveClientInformation(info: OAuthClientInformationMixed) {
    this.update((e) => ({ ...e, clientInformation: info }))
  }

  tokens(): OAuthTokens | undefined {
    return this.entry().tokens
  }

  saveTokens(tokens: OAuthTokens) {
    const expiresAt = typeof tokens.expires_in === "number" ? Date.now() + tokens.expires_in * 1000 : undefined
    this.update((e) => ({ ...e, tokens, expiresAt }))
  }

  async redirectToAuthorization(url: URL) {
    if (!this.opts.onRedirect) {
      this.needsLogin = true
      return
    }
    await this.opts.onRedirect(url)
  }

  state(): string {
    const state = randomBytes(16).toString("hex")
    this.update((e) => ({ ...e, state }))
    return state
  }

  saveCodeVerifier(codeVerifier: string) {
    this.update((e) => ({ ...e, codeVerifier }))
  }

  codeVerifier(): string {
    const verifier = this.entry().codeVerifier
    if (!verifier) throw new Error(`No PKCE code verifier is stored for MCP server "${this.opts.name}": run wright mcp auth ${this.opts.name} again`)
    return verifier
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    this.update((e) => {
      const next = { ...e }
      if (scope === "all" || scope === "client") delete next.clientInformation
      if (scope === "all" || scope === "tokens") {
        delete next.tokens
        delete next.expiresAt
      }
      if (scope === "all" || scope === "verifier") delete next.codeVerifier
      return next
    })
  }
}

export interface Callback {
  /** Resolves with the authorization code once the browser comes back with the expected state. */
  code: Promise<string>
  close(): void
}

/**
 * Listens on the redirect URL's loopback port for the browser's return. A `state` other than
 * `expectedState()` is refused (CSRF), an `error` from the authorization server rejects.
 */
export async function listenForCallback(redirectUrl: string, expectedState: () => string | undefined, timeoutMs: number): Promise<Callback> {
  const url = new URL(redirectUrl)
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    throw new Error(`The OAuth redirect URI ${redirectUrl} is not on this machine's loopback: wright can only receive the login on 127.0.0.1`)
  }
  let resolve!: (code: string) => void
  let reject!: (e: Error) => void
  const code = new Promise<string>((res, rej) => {
    resolve = res
    reject = rej
  })
  code.catch(() => {})
  const page = (title: string, body: string) =>
    `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h2>${title}</h2><p>${body}</p></body>`
  const server = http.createServer((req, res) => {
    const got = new URL(req.url ?? "/", url)
    if (got.pathname !== url.pathname) {
      res.writeHead(404).end()
      return
    }
    const error = got.searchParams.get("error")
    const state = got.searchParams.get("state")
    const value = got.searchParams.get("code")
    res.setHeader("content-type", "text/html; charset=utf-8")
    if (error) {
      const description = got.searchParams.get("error_description")
      res.writeHead(400).end(page("Login failed", `${error}${description ? `: ${description}` : ""}`))
      reject(new Error(`The authorization server refused the login: ${error}${description ? ` (${description})` : ""}`))
      return
    }
    if (!value || !state || state !== expectedState()) {
      res.writeHead(400).end(page("Login refused", "The state does not match the login wright started (possible CSRF)."))
      reject(new Error("OAuth state mismatch: the callback did not come from the login wright started (possible CSRF attack)"))
      return
    }
    res.writeHead(200).end(page("Logged in", "wright has the authorization. You can close this tab."))
    resolve(value)
  })
  await new Promise<void>((ok, fail) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      fail(e.code === "EADDRINUSE" ? new Error(`The OAuth callback port ${url.port} is in use: free it, or set mcp.<name>.oauth.callbackPort`) : e),
    )
    server.listen(Number(url.port || 80), url.hostname.replace(/^\[|\]$/g, ""), () => ok())
  })
  const timer = setTimeout(() => reject(new Error(`No login came back within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs)
  const close = () => {
    clearTimeout(timer)
    server.close()
    server.closeAllConnections()
  }
  code.finally(close).catch(() => {})
  return { code, close }
}
