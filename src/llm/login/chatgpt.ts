// ChatGPT (Plus/Pro) sign-in, as Codex CLI does it: OpenAI's authorization-code flow with PKCE
// (S256) for Codex's public client id, the browser coming back to http://localhost:1455/auth/callback
// (loopback.ts). The tokens answer OpenAI's `/oauth/token`; the ChatGPT account id is a claim of
// the id token. Requests then go to ChatGPT's Codex backend, which speaks the Responses API with
// a few differences (chatgptFetch).
import { createHash, randomBytes } from "node:crypto"
import { ProviderAuthError } from "../../protocol"
import type { OAuthEntry } from "../auth"
import { listenForCode } from "./loopback"
import { LoginRevoked, TOKEN_TIMEOUT_MS, type Refresher } from "./tokens"
import { loginURLs } from "./urls"

/** Codex CLI's public OAuth client: OpenAI lets it sign in with a ChatGPT plan. */
export const CHATGPT_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
const SCOPE = "openid profile email offline_access"
const CALLBACK_PATH = "/auth/callback"
/** How long the browser has to come back. */
const CALLBACK_TIMEOUT_MS = 5 * 60_000

const fail = (message: string) => new ProviderAuthError({ providerID: "openai", message })

export interface ChatGPTLogin {
  /** The page the user signs in on (opened in the browser, and printed). */
  url: string
  /** The login once the browser came back and the code was exchanged. */
  done: Promise<OAuthEntry>
  cancel(): void
}

/** A PKCE pair: the verifier stays here, the challenge (its SHA-256, base64url) goes in the URL. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** Starts the loopback listener and returns the sign-in URL; `done` settles when the browser came back. */
export async function startChatGPTLogin(deps: { env: NodeJS.ProcessEnv; fetch?: typeof fetch; timeoutMs?: number }): Promise<ChatGPTLogin> {
  const urls = loginURLs(deps.env)
  const { verifier, challenge } = pkcePair()
  const state = randomBytes(32).toString("base64url")
  const callback = await listenForCode({ port: urls.callbackPort, path: CALLBACK_PATH, state, timeoutMs: deps.timeoutMs ?? CALLBACK_TIMEOUT_MS })
  const redirectUri = `http://localhost:${callback.port}${CALLBACK_PATH}`
  const query = new URLSearchParams({
    response_type: "code",
    client_id: CHATGPT_CLIENT_ID,
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: challenge,
    code_challenge_method: "S256",
    id_token_add_organizations: "true",
    codex_cli_simplified_flow: "true",
    state,
    originator: "wright",
  })
  const done = callback.code.then((code) =>
    tokenRequest(deps, { grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: CHATGPT_CLIENT_ID, code_verifier: verifier }).then((t) => {
      if (!t.refresh_token) throw fail("OpenAI's answer holds no refresh token")
      return toEntry(t, t.refresh_token)
    }),
  )
  done.catch(() => {})
  return { url: `${urls.openaiAuth}/oauth/authorize?${query}`, done, cancel: callback.close }
}

/** A new access token for the entry's refresh token. Throws LoginRevoked when OpenAI refuses the refresh token. */
export const refreshChatGPT =
  (deps: { env: NodeJS.ProcessEnv; fetch?: typeof fetch }): Refresher =>
  async (entry) => {
    const t = await tokenRequest(deps, { grant_type: "refresh_token", refresh_token: entry.refresh, client_id: CHATGPT_CLIENT_ID, scope: "openid profile email" }, true)
    const next = toEntry(t, t.refresh_token || entry.refresh)
    return next.accountId || !entry.accountId ? next : { ...next, accountId: entry.accountId }
  }

interface TokenAnswer {
  access_token: string
  refresh_token?: string
  id_token?: string
  expires_in?: number
}

async function tokenRequest(deps: { env: NodeJS.ProcessEnv; fetch?: typeof fetch }, form: Record<string, string>, refreshing = false): Promise<TokenAnswer> {
  const f = deps.fetch ?? fetch
  const res = await f(`${loginURLs(deps.env).openaiAuth}/oauth/token`, {
    method: "POST",
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: new URLSearchParams(form).toString(),
  })
  const data = (await res.json().catch(() => ({}))) as Record<string, any>
  if (!res.ok || typeof data.access_token !== "string") {
    const code = typeof data.error === "string" ? data.error : typeof data.error?.code === "string" ? data.error.code : undefined
    // A refresh token OpenAI no longer honours: revoked, expired, or already spent by another client.
    if (refreshing && (res.status === 401 || ["invalid_grant", "refresh_token_expired", "refresh_token_reused", "refresh_token_invalidated"].includes(code ?? ""))) {
      throw new LoginRevoked(`OpenAI refused its refresh token${code ? `: ${code}` : ""}`)
    }
    throw fail(`OpenAI's token endpoint answered HTTP ${res.status}${code ? ` (${code})` : ""}`)
  }
  return data as TokenAnswer
}

function toEntry(t: TokenAnswer, refresh: string): OAuthEntry {
  const expires = typeof t.expires_in === "number" ? Date.now() + t.expires_in * 1000 : (jwtClaims(t.access_token)?.exp ?? 0) * 1000 || Date.now() + 3600_000
  const accountId = accountIdOf(t.id_token) ?? accountIdOf(t.access_token)
  return { type: "oauth", refresh, access: t.access_token, expires, ...(accountId ? { accountId } : {}) }
}

/** The ChatGPT account a token names (the `https://api.openai.com/auth` claim Codex reads). */
function accountIdOf(jwt: string | undefined): string | undefined {
  const claims = jwt ? jwtClaims(jwt) : undefined
  const id = claims?.["https://api.openai.com/auth"]?.chatgpt_account_id ?? claims?.chatgpt_account_id
  return typeof id === "string" && id ? id : undefined
}

/** A JWT's payload, unverified: it only says which account to name, the server checks the token itself. */
function jwtClaims(jwt: string): Record<string, any> | undefined {
  const part = jwt.split(".")[1]
  if (!part) return undefined
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
}

/**
 * ChatGPT's fetch: the fresh access token as the bearer and the account in `chatgpt-account-id`,
 * and the Responses body as the Codex backend takes it: the system prompt in `instructions`
 * (required there), `store: false` (required), no `max_output_tokens` or `temperature` (refused).
 */
export function chatgptFetch(token: () => Promise<OAuthEntry>, base: typeof fetch): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const entry = await token()
    const headers = new Headers(init?.headers)
    headers.set("Authorization", `Bearer ${entry.access}`)
    if (entry.accountId) headers.set("chatgpt-account-id", entry.accountId)
    headers.set("OpenAI-Beta", "responses=experimental")
    headers.set("originator", "wright")
    return base(input, { ...init, headers, body: codexBody(init?.body) })
  }) as typeof fetch
}

function codexBody(body: BodyInit | null | undefined): BodyInit | null | undefined {
  if (typeof body !== "string") return body
  let json: Record<string, any>
  try {
    json = JSON.parse(body)
  } catch {
    return body
  }
  if (!Array.isArray(json.input)) return body
  const system = json.input.filter((m: any) => m?.role === "system" || m?.role === "developer")
  const text = system.map((m: any) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((c: any) => c?.text ?? "").join("") : "")).join("\n\n")
  json.input = json.input.filter((m: any) => !system.includes(m))
  json.instructions = [json.instructions, text].filter(Boolean).join("\n\n") || "You are a coding agent."
  json.store = false
  delete json.max_output_tokens
  delete json.temperature
  return JSON.stringify(json)
}
