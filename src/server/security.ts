// What stands between the network and the API when it listens on a port: HTTP basic auth
// (on when a password is set; also `?auth_token=<base64 user:pass>`, as OpenCode accepts)
// and CORS for local origins only. Preflights skip auth; a refused origin gets no CORS headers.
import { createHash, timingSafeEqual } from "node:crypto"

export type FetchHandler = (request: Request) => Promise<Response>

export interface SecurityOptions {
  /** Basic auth is on when set. */
  password?: string
  /** Default "wright"; when no username is configured, OpenCode's default "opencode" works too. */
  username?: string
  /** Extra browser origins allowed, exact (e.g. "https://app.example.com"). */
  cors?: string[]
}

export const ALLOWED_METHODS = "GET, HEAD, PUT, PATCH, POST, DELETE"
const ALLOWED_HEADERS = "content-type, authorization, x-opencode-directory, x-opencode-workspace, last-event-id"
const LOCAL_ORIGIN = /^(https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?|tauri:\/\/localhost|https?:\/\/tauri\.localhost(:\d+)?)$/

/** Auth settings from WRIGHT_SERVER_PASSWORD / WRIGHT_SERVER_USERNAME (or the OPENCODE_ ones). */
export function authFromEnv(env: NodeJS.ProcessEnv): Pick<SecurityOptions, "password" | "username"> {
  const password = env.WRIGHT_SERVER_PASSWORD || env.OPENCODE_SERVER_PASSWORD || undefined
  const username = env.WRIGHT_SERVER_USERNAME || env.OPENCODE_SERVER_USERNAME || undefined
  return { password, username }
}

export function isAllowedOrigin(origin: string, request: Request, extra: string[] = []): boolean {
  if (LOCAL_ORIGIN.test(origin) || extra.includes(origin)) return true
  try {
    // A page served by this same host and port.
    return new URL(origin).host === new URL(request.url).host
  } catch {
    return false
  }
}

const digest = (s: string) => createHash("sha256").update(s).digest()
/** Equal-length digests keep the comparison constant-time whatever the lengths. */
function same(a: string, b: string) {
  return timingSafeEqual(digest(a), digest(b))
}

function credentials(request: Request): string | undefined {
  const header = request.headers.get("authorization")
  const token = header?.match(/^Basic\s+(.+)$/i)?.[1] ?? new URL(request.url).searchParams.get("auth_token") ?? undefined
  if (!token) return undefined
  try {
    return Buffer.from(token.trim(), "base64").toString("utf8")
  } catch {
    return undefined
  }
}

function authorized(request: Request, opts: SecurityOptions): boolean {
  if (!opts.password) return true
  const given = credentials(request)
  if (given === undefined) return false
  const colon = given.indexOf(":")
  const user = colon === -1 ? given : given.slice(0, colon)
  const pass = colon === -1 ? "" : given.slice(colon + 1)
  const users = opts.username ? [opts.username] : ["wright", "opencode"]
  // Every candidate is compared, so the time taken says nothing about which part was wrong.
  let userOk = false
  for (const u of users) userOk = same(user, u) || userOk
  const passOk = same(pass, opts.password)
  return userOk && passOk
}

function withCors(response: Response, origin: string | undefined): Response {
  if (!origin) return response
  const headers = new Headers(response.headers)
  headers.set("access-control-allow-origin", origin)
  headers.append("vary", "Origin")
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/** Wraps the app's fetch with CORS and (when a password is set) basic auth. */
export function secure(handler: FetchHandler, opts: SecurityOptions): FetchHandler {
  return async (request) => {
    const origin = request.headers.get("origin") ?? undefined
    const allowed = origin !== undefined && isAllowedOrigin(origin, request, opts.cors)
    if (request.method === "OPTIONS" && origin !== undefined && request.headers.has("access-control-request-method")) {
      if (!allowed) return new Response(null, { status: 403 })
      return new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": origin,
          "access-control-allow-methods": ALLOWED_METHODS,
          "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? ALLOWED_HEADERS,
          "access-control-max-age": "86400",
          vary: "Origin",
        },
      })
    }
    const corsOrigin = allowed ? origin : undefined
    if (request.method !== "OPTIONS" && !authorized(request, opts)) {
      const body = { name: "UnauthorizedError", data: { message: "Unauthorized: this server needs a password (HTTP basic auth; wright run --attach takes -p or $WRIGHT_SERVER_PASSWORD)" } }
      return withCors(
        new Response(JSON.stringify(body), { status: 401, headers: { "content-type": "application/json", "www-authenticate": 'Basic realm="wright"' } }),
        corsOrigin,
      )
    }
    return withCors(await handler(request), corsOrigin)
  }
}
