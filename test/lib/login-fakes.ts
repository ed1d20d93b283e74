// Fakes of the servers the subscription sign-ins talk to, on loopback: GitHub (device code,
// token polling, Copilot's token exchange) and OpenAI's auth server (authorize, token with the
// PKCE verifier checked, refresh). Each records what it was sent; tests script the answers.
// Point wright at them with the test hooks WRIGHT_GITHUB_URL, WRIGHT_GITHUB_API_URL and
// WRIGHT_OPENAI_AUTH_URL (src/llm/login/urls.ts).
import { createHash } from "node:crypto"
import http from "node:http"
import type { AddressInfo } from "node:net"

export interface Seen {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: Record<string, string>
}

async function listen(handler: (req: Seen, res: http.ServerResponse) => void): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = []
  const server = http.createServer(async (req, res) => {
    let raw = ""
    for await (const chunk of req) raw += chunk
    const type = req.headers["content-type"] ?? ""
    const body = raw === "" ? {} : type.includes("json") ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw))
    const [path = "/", query = ""] = (req.url ?? "/").split("?")
    const one = { method: req.method ?? "GET", path: query ? `${path}?${query}` : path, headers: req.headers, body }
    seen.push(one)
    handler(one, res)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  }
}

const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

export interface FakeGitHub {
  url: string
  seen: Seen[]
  /** Answers to the polls, in order; the last one repeats. E.g. ["authorization_pending", "slow_down", "gho_token"]. */
  polls: string[]
  /** The device code answer's fields. */
  device: { interval: number; expires_in: number }
  /** GitHub tokens the exchange accepts; others get 401. */
  valid: Set<string>
  /** The Copilot API endpoint the exchange names. */
  endpoint: string
  /** Copilot tokens handed out so far; each answer's `expires_at` is `expiresIn` seconds ahead. */
  issued: string[]
  expiresIn: number
  close(): Promise<void>
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  let polled = 0
  const fake: FakeGitHub = {
    url: "",
    seen: [],
    polls: ["gho_github_token"],
    device: { interval: 1, expires_in: 900 },
    valid: new Set(["gho_github_token"]),
    endpoint: "http://127.0.0.1:9/unused",
    issued: [],
    expiresIn: 1800,
    close: async () => {},
  }
  const server = await listen((req, res) => {
    if (req.method === "POST" && req.path === "/login/device/code") {
      if (req.body.client_id !== "Iv1.b507a08c87ecfe98") return json(res, 400, { error: "bad client" })
      return json(res, 200, { device_code: "dev-123", user_code: "WDJB-MJHT", verification_uri: "https://github.com/login/device", ...fake.device })
    }
    if (req.method === "POST" && req.path === "/login/oauth/access_token") {
      if (req.body.device_code !== "dev-123" || req.body.grant_type !== "urn:ietf:params:oauth:grant-type:device_code") return json(res, 400, { error: "bad_request" })
      const answer = fake.polls[Math.min(polled++, fake.polls.length - 1)]!
      return json(res, 200, answer.startsWith("gho_") ? { access_token: answer, token_type: "bearer", scope: "read:user" } : { error: answer })
    }
    if (req.method === "GET" && req.path === "/copilot_internal/v2/token") {
      const token = String(req.headers.authorization ?? "").replace(/^token /, "")
      if (!fake.valid.has(token)) return json(res, 401, { message: "Bad credentials" })
      const issued = `tid=copilot-${fake.issued.length + 1}`
      fake.issued.push(issued)
      return json(res, 200, { token: issued, expires_at: Math.floor(Date.now() / 1000) + fake.expiresIn, refresh_in: 1500, endpoints: { api: fake.endpoint } })
    }
    json(res, 404, { message: "Not Found" })
  })
  return Object.assign(fake, { url: server.url, seen: server.seen, close: server.close })
}

export interface FakeOpenAIAuth {
  url: string
  seen: Seen[]
  /** The ChatGPT account the id tokens name. */
  accountId: string
  /** Refresh tokens it honours; a refresh with another gets `invalid_grant`. */
  refreshTokens: Set<string>
  /** Access tokens handed out so far. */
  issued: string[]
  expiresIn: number
  close(): Promise<void>
}

/** A JWT with these claims (unsigned: wright only reads claims, the real server checks them). */
export function jwt(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url")
  return `${part({ alg: "none" })}.${part(claims)}.sig`
}

/**
 * OpenAI's auth server. GET /oauth/authorize answers 302 to the redirect_uri with a code and the
 * same state, remembering the code challenge; POST /oauth/token honours the code only with the
 * verifier whose S256 is that challenge, and refresh tokens it handed out (rotated on use).
 */
export async function startFakeOpenAIAuth(): Promise<FakeOpenAIAuth> {
  const challenges = new Map<string, { challenge: string; redirect: string }>()
  let n = 0
  const fake: FakeOpenAIAuth = { url: "", seen: [], accountId: "acct-1234", refreshTokens: new Set(), issued: [], expiresIn: 3600, close: async () => {} }
  const tokens = () => {
    n++
    const refresh = `rt-${n}`
    fake.refreshTokens.add(refresh)
    const access = jwt({ sub: "user", n })
    fake.issued.push(access)
    return { access_token: access, refresh_token: refresh, id_token: jwt({ email: "u@example.com", "https://api.openai.com/auth": { chatgpt_account_id: fake.accountId } }), expires_in: fake.expiresIn }
  }
  const server = await listen((req, res) => {
    const url = new URL(req.path, "http://x")
    if (req.method === "GET" && url.pathname === "/oauth/authorize") {
      const q = url.searchParams
      if (q.get("client_id") !== "app_EMoamEEZ73f0CkXaXp7hrann" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || q.get("response_type") !== "code") {
        return json(res, 400, { error: "invalid_request" })
      }
      const code = `code-${challenges.size + 1}`
      challenges.set(code, { challenge: q.get("code_challenge")!, redirect: q.get("redirect_uri")! })
      return res.writeHead(302, { location: `${q.get("redirect_uri")}?code=${code}&state=${encodeURIComponent(q.get("state") ?? "")}` }).end()
    }
    if (req.method === "POST" && url.pathname === "/oauth/token") {
      const b = req.body
      if (b.client_id !== "app_EMoamEEZ73f0CkXaXp7hrann") return json(res, 401, { error: "invalid_client" })
      if (b.grant_type === "authorization_code") {
        const pending = challenges.get(b.code ?? "")
        const s256 = createHash("sha256").update(b.code_verifier ?? "").digest("base64url")
        if (!pending || pending.redirect !== b.redirect_uri || s256 !== pending.challenge) return json(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" })
        challenges.delete(b.code!)
        return json(res, 200, tokens())
      }
      if (b.grant_type === "refresh_token") {
        if (!fake.refreshTokens.delete(b.refresh_token ?? "")) return json(res, 400, { error: "invalid_grant" })
        return json(res, 200, tokens())
      }
      return json(res, 400, { error: "unsupported_grant_type" })
    }
    json(res, 404, { error: "not_found" })
  })
  return Object.assign(fake, { url: server.url, seen: server.seen, close: server.close })
}
