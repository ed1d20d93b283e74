// GitHub Copilot sign-in: GitHub's OAuth device flow (RFC 8628) with the client id Copilot's
// editor extensions use, which yields a GitHub token; that token is exchanged at
// `copilot_internal/v2/token` for a Copilot token that lives about 30 minutes and names the API
// endpoint to use. auth.json keeps the GitHub token as `refresh` and the Copilot token as
// `access`; the exchange runs again when the Copilot token is about to expire (tokens.ts).
// Copilot's API is OpenAI Chat Completions, with headers that say which editor is calling.
import { ProviderAuthError } from "../../protocol"
import type { OAuthEntry } from "../auth"
import { LoginRevoked, TOKEN_TIMEOUT_MS, type Refresher } from "./tokens"
import { COPILOT_API, loginURLs } from "./urls"

/** The OAuth app of GitHub's Copilot editor extensions: the one Copilot's token exchange accepts. */
export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98"
const GRANT = "urn:ietf:params:oauth:grant-type:device_code"

/** Copilot's API answers editors: these say which one (its own extension's values). */
const EDITOR_HEADERS = {
  "Editor-Version": "vscode/1.99.3",
  "Editor-Plugin-Version": "copilot-chat/0.26.7",
  "Copilot-Integration-Id": "vscode-chat",
  "User-Agent": "GitHubCopilotChat/0.26.7",
}

export interface LoginDeps {
  env: NodeJS.ProcessEnv
  fetch?: typeof fetch
  /** Waits between polls; tests pass one that records the interval and returns at once. */
  sleep?: (ms: number) => Promise<void>
  now?: () => number
}

export interface DeviceCode {
  /** What the user types at `verificationUri`. */
  userCode: string
  verificationUri: string
  deviceCode: string
  /** Seconds between polls, as GitHub asked. */
  interval: number
  /** Seconds the code stays valid. */
  expiresIn: number
}

const fail = (message: string) => new ProviderAuthError({ providerID: "github-copilot", message })

/** Asks GitHub for a device code and the code the user enters. */
export async function startCopilotLogin(deps: LoginDeps): Promise<DeviceCode> {
  const f = deps.fetch ?? fetch
  const res = await f(`${loginURLs(deps.env).github}/login/device/code`, {
    method: "POST",
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    headers: { Accept: "application/json", "Content-Type": "application/json", "User-Agent": EDITOR_HEADERS["User-Agent"] },
    body: JSON.stringify({ client_id: COPILOT_CLIENT_ID, scope: "read:user" }),
  })
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>
  if (!res.ok || typeof data.device_code !== "string" || typeof data.user_code !== "string") {
    throw fail(`GitHub did not start the sign-in (HTTP ${res.status}${typeof data.error === "string" ? `: ${data.error}` : ""})`)
  }
  return {
    userCode: data.user_code,
    verificationUri: typeof data.verification_uri === "string" ? data.verification_uri : "https://github.com/login/device",
    deviceCode: data.device_code,
    interval: typeof data.interval === "number" && data.interval > 0 ? data.interval : 5,
    expiresIn: typeof data.expires_in === "number" && data.expires_in > 0 ? data.expires_in : 900,
  }
}

/**
 * Polls until the user has entered the code, then exchanges the GitHub token for a Copilot
 * token. `slow_down` adds 5 s to the interval (or takes the one GitHub sends); an expired
 * code, a refusal or any other error ends the sign-in with a message that says so.
 */
export async function finishCopilotLogin(code: DeviceCode, deps: LoginDeps): Promise<OAuthEntry> {
  const f = deps.fetch ?? fetch
  const sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
  const now = deps.now ?? Date.now
  const deadline = now() + code.expiresIn * 1000
  let interval = code.interval
  for (;;) {
    await sleep(interval * 1000)
    if (now() > deadline) throw fail("the code expired before it was entered: run `wright auth login github-copilot` again")
    const res = await f(`${loginURLs(deps.env).github}/login/oauth/access_token`, {
      method: "POST",
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      headers: { Accept: "application/json", "Content-Type": "application/json", "User-Agent": EDITOR_HEADERS["User-Agent"] },
      body: JSON.stringify({ client_id: COPILOT_CLIENT_ID, device_code: code.deviceCode, grant_type: GRANT }),
    })
    const data = (await res.json().catch(() => ({}))) as Record<string, unknown>
    if (typeof data.access_token === "string" && data.access_token) return exchangeCopilotToken(data.access_token, deps)
    switch (data.error) {
      case "authorization_pending":
        continue
      case "slow_down":
        interval = typeof data.interval === "number" && data.interval > interval ? data.interval : interval + 5
        continue
      case "expired_token":
        throw fail("the code expired before it was entered: run `wright auth login github-copilot` again")
      case "access_denied":
        throw fail("the sign-in was refused on GitHub: nothing stored")
      default:
        throw fail(`GitHub answered the sign-in with ${typeof data.error === "string" ? data.error : `HTTP ${res.status}`}`)
    }
  }
}

/** The GitHub token's Copilot token. Throws LoginRevoked when GitHub no longer accepts the GitHub token. */
export async function exchangeCopilotToken(githubToken: string, deps: LoginDeps): Promise<OAuthEntry> {
  const f = deps.fetch ?? fetch
  const res = await f(`${loginURLs(deps.env).githubApi}/copilot_internal/v2/token`, {
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    headers: { Accept: "application/json", Authorization: `token ${githubToken}`, ...EDITOR_HEADERS },
  })
  const data = (await res.json().catch(() => ({}))) as Record<string, any>
  if (res.status === 401) throw new LoginRevoked("GitHub no longer accepts its token")
  if (!res.ok || typeof data.token !== "string" || typeof data.expires_at !== "number") {
    const said = typeof data.message === "string" ? `: ${data.message}` : ""
    const why = res.status === 403 || res.status === 404 ? `this GitHub account has no Copilot access (HTTP ${res.status}${said})` : `HTTP ${res.status}${said}`
    throw fail(`GitHub's Copilot token exchange failed: ${why}`)
  }
  const endpoint = typeof data.endpoints?.api === "string" ? data.endpoints.api.replace(/\/+$/, "") : undefined
  return { type: "oauth", refresh: githubToken, access: data.token, expires: data.expires_at * 1000, ...(endpoint ? { endpoint } : {}) }
}

/** The exchange again, for tokens.ts. */
export const refreshCopilot = (deps: LoginDeps): Refresher => (entry) => exchangeCopilotToken(entry.refresh, deps)

/**
 * Copilot's fetch: the fresh Copilot token as the bearer, the editor headers, `X-Initiator`
 * (agent when the last message is not the user's: Copilot bills user turns), and requests for
 * the catalogue's endpoint sent to the one the token exchange named.
 */
export function copilotFetch(token: () => Promise<OAuthEntry>, base: typeof fetch): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const entry = await token()
    const headers = new Headers(init?.headers)
    for (const [k, v] of Object.entries(EDITOR_HEADERS)) headers.set(k, v)
    headers.set("Authorization", `Bearer ${entry.access}`)
    headers.set("Openai-Intent", "conversation-edits")
    headers.set("X-Initiator", initiator(init?.body))
    const url = String(input instanceof Request ? input.url : input)
    const target = entry.endpoint && url.startsWith(`${COPILOT_API}/`) ? entry.endpoint + url.slice(COPILOT_API.length) : url
    // The Copilot token goes only to Copilot's API, never to a base URL a config set.
    if (!target.startsWith(`${entry.endpoint ?? COPILOT_API}/`)) {
      throw fail(`provider.github-copilot.options.baseURL (${new URL(url).origin}) is not Copilot's API: a Copilot sign-in is sent only there; remove the baseURL`)
    }
    return base(target, { ...init, headers })
  }) as typeof fetch
}

function initiator(body: unknown): "user" | "agent" {
  if (typeof body !== "string") return "agent"
  try {
    const messages = (JSON.parse(body) as { messages?: { role?: string }[] }).messages
    return messages?.at(-1)?.role === "user" ? "user" : "agent"
  } catch {
    return "agent"
  }
}
