// The guarded listener: every TCP port wright opens (`wright serve`, the TUI's --port) goes
// through `listen`, and every request on it through `guard`, in this order, before routing:
//   1. Host must name the bound address (loopback names for a loopback bind) with the bound
//      port, or a name given with --allow-host: a DNS-rebinding page carries its own name.
//   2. An Origin must be allowed exactly (--cors, or the user's global config); a browser
//      request without one must not be cross-site (Sec-Fetch-Site). A page on another
//      loopback port is another origin.
//   3. A declared body past the largest limit is refused at once (routes count the rest).
//   4. Basic auth when a password is set; with pairing on (`wright web`, `serve --web`) a paired
//      browser's cookie too, and auth is required even without a password (pairing.ts). `?auth_token=<base64 user:pass>` (as OpenCode) only on
//      the event streams (/event, /global/event, /session/:id/event): a browser's EventSource cannot send a header,
//      and a token in a URL ends up in logs and history, so nowhere else.
// Before all of these, a connection from a sandboxed command of this process is refused
// (sandboxedPeer): the sandbox shares loopback when its network is on, and this API can trust
// folders and start processes outside it.
// Preflights from allowed origins skip auth. In-process callers (run, the TUI's RPC, ACP)
// reach the app's fetch directly and never pass here; what applies to them (directories,
// content type, body limits) lives in the app.
import type { ServerType } from "@hono/node-server"
import { createHash, timingSafeEqual } from "node:crypto"
import type { AddressInfo, Socket } from "node:net"
import { networkInterfaces } from "node:os"
import { sandboxedPeer } from "../process"
import { declareError, ForbiddenError, PayloadTooLargeError, UnauthorizedError } from "../protocol"
import { errorAnswer } from "./error"
import { pairCookieName, readCookie, type Pairing } from "./pairing"
import { webHandler, type WebOptions } from "./web"
import { FILE_BODY_LIMIT, mib } from "./route"

export type FetchHandler = (request: Request) => Promise<Response>

export interface GuardOptions {
  /** The address the socket is bound to, as given to listen: `127.0.0.1`, `::1`, `0.0.0.0`, `::`, a name. */
  hostname: string
  /** The port actually bound. */
  port: number
  /** More names `Host` may carry: `name` (any port, or none, as behind a proxy) or `name:port`. */
  allowHosts?: string[]
  /** Browser origins allowed, exact (`https://app.example.com`). Only from flags and the global config. */
  cors?: string[]
  /** Basic auth is on when set. */
  password?: string
  /** Default "wright"; when none is configured, OpenCode's default "opencode" works too. */
  username?: string
  /**
   * Browser pairing (`wright web`): a paired device's cookie authenticates, the server's own
   * origin is allowed, and a request with no credential is refused even without a password.
   */
  pairing?: Pairing
}

export const ALLOWED_METHODS = "GET, HEAD, PUT, PATCH, POST, DELETE"
const ALLOWED_HEADERS = "content-type, authorization, x-opencode-directory, x-opencode-workspace, last-event-id"

export function isLoopback(hostname: string): boolean {
  const h = bare(hostname)
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h)
}

const isWildcard = (hostname: string) => ["", "0.0.0.0", "::"].includes(bare(hostname))
const bare = (name: string) => name.replace(/^\[|\]$/g, "").toLowerCase()

/** `name[:port]` of a Host header or an --allow-host value; IPv6 in brackets. */
function parseHost(value: string): { name: string; port?: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]\s]+)(?::(\d{1,5}))?$/i.exec(value.trim())
  if (!m) return undefined
  return { name: bare(m[1]!), port: m[2] === undefined ? undefined : Number(m[2]) }
}

/** Which names this bind answers to: loopback names on loopback, every local address on a wildcard. */
function boundNames(hostname: string): (name: string) => boolean {
  const bound = bare(hostname)
  if (isLoopback(bound)) return isLoopback
  if (!isWildcard(bound)) return (name) => name === bound
  return (name) => isLoopback(name) || Object.values(networkInterfaces()).some((list) => list?.some((i) => bare(i.address) === name))
}

/** The refusal of a bind that would expose the API unauthenticated, or undefined when it may go ahead. */
export function listenRefusal(hostname: string, opts: { password?: string; insecure?: boolean; pairing?: unknown }): string | undefined {
  if (opts.password || opts.pairing || opts.insecure || isLoopback(hostname)) return undefined
  return (
    `Refusing to listen on ${hostname} without a password: anyone who can reach it could run commands on this machine; ` +
    `set WRIGHT_SERVER_PASSWORD (or --password-file PATH), use --hostname 127.0.0.1, or pass --insecure if the network is trusted`
  )
}

const digest = (s: string) => createHash("sha256").update(s).digest()
/** Equal-length digests keep the comparison constant-time whatever the lengths. */
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b))

/** The routes a browser reaches with EventSource, which cannot send an Authorization header. */
const TOKEN_ROUTES = new Set(["/event", "/global/event"])
const isTokenRoute = (pathname: string) => TOKEN_ROUTES.has(pathname) || /^\/session\/[^/]+\/event$/.test(pathname)

function credentials(request: Request): string | undefined {
  const header = request.headers.get("authorization")
  const url = new URL(request.url)
  const query = isTokenRoute(url.pathname) && request.method === "GET" ? url.searchParams.get("auth_token") : null
  const token = header?.match(/^Basic\s+(.+)$/i)?.[1] ?? query ?? undefined
  if (!token) return undefined
  return Buffer.from(token.trim(), "base64").toString("utf8")
}

/** How a request proved itself, or undefined when it did not (and must). */
type Credential = "open" | "password" | "device" | "admin"

function authorized(request: Request, opts: GuardOptions): Credential | undefined {
  if (!opts.password && !opts.pairing) return "open"
  if (opts.password && passwordOk(request, opts)) return "password"
  const pairing = opts.pairing
  if (!pairing) return undefined
  const pathname = new URL(request.url).pathname
  // The one-time code in the link is the credential of /pair itself.
  if (pathname === "/pair" && request.method === "GET") return "open"
  const cookie = readCookie(request.headers.get("cookie"), pairCookieName(opts.port))
  // The page's key: a header, or on the event streams (EventSource sends no header) `?key=`.
  const url = new URL(request.url)
  const key = request.headers.get("x-wright-key") ?? (TOKEN_ROUTES.has(pathname) && request.method === "GET" ? url.searchParams.get("key") : null)
  if (pairing.check(cookie, key)) return "device"
  // The cookie alone opens only the UI's own files (see pairing.ts: cookies ignore ports).
  if (isUiFile(pathname, request.method) && pairing.check(cookie)) return "device"
  if (pathname.startsWith("/web/") && pairing.isAdmin(request.headers.get("x-wright-admin"))) return "admin"
  return undefined
}

/** The UI's page and bundle: public code, no data. */
const isUiFile = (pathname: string, method: string) => (method === "GET" || method === "HEAD") && (pathname === "/" || pathname === "/index.html" || pathname.startsWith("/web/assets/"))

function passwordOk(request: Request, opts: GuardOptions): boolean {
  const given = credentials(request)
  if (given === undefined) return false
  const colon = given.indexOf(":")
  const user = colon === -1 ? given : given.slice(0, colon)
  const pass = colon === -1 ? "" : given.slice(colon + 1)
  const users = opts.username ? [opts.username] : ["wright", "opencode"]
  // Every candidate is compared, so the time taken says nothing about which part was wrong.
  let userOk = false
  for (const u of users) userOk = same(user, u) || userOk
  const passOk = same(pass, opts.password!)
  return userOk && passOk
}

function withCors(response: Response, origin: string | undefined): Response {
  if (!origin) return response
  const headers = new Headers(response.headers)
  headers.set("access-control-allow-origin", origin)
  headers.append("vary", "Origin")
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

const normalOrigin = (origin: string) => origin.trim().replace(/\/+$/, "").toLowerCase()

/** Why a request is refused before routing, or undefined when it may go on. */
function refusal(request: Request, opts: GuardOptions, answersTo: (name: string) => boolean, allowed: Set<string>): Response | undefined {
  const hostHeader = request.headers.get("host") ?? new URL(request.url).host
  const host = parseHost(hostHeader)
  const named = opts.allowHosts?.map(parseHost).some((h) => h && host && h.name === host.name && (h.port === undefined || h.port === (host.port ?? 80)))
  if (!host || (!named && !(answersTo(host.name) && (host.port ?? 80) === opts.port))) {
    const name = host?.name.includes(":") ? `[${host.name}]` : (host?.name ?? "NAME")
    return errorAnswer(new ForbiddenError({ message: `Host "${hostHeader}" is not this server's address; start wright with --allow-host ${name} to accept it` }))
  }

  const origin = request.headers.get("origin")
  // With the web UI on, its own pages are same-origin: http(s)://<the Host just checked>.
  const own = opts.pairing && origin !== null && [`http://${hostHeader}`, `https://${hostHeader}`].map(normalOrigin).includes(normalOrigin(origin))
  if (origin !== null && !own && !allowed.has(normalOrigin(origin))) {
    const how = origin === "null" ? "a page without an origin (a file, a sandbox) can never be allowed" : `start wright with --cors ${origin}, or add it to "server.cors" in the global config`
    return errorAnswer(new ForbiddenError({ message: `Origin "${origin}" is not allowed; ${how}` }))
  }
  // Browsers send no Origin on a no-cors GET, but they do say where it came from.
  const site = request.headers.get("sec-fetch-site")
  if (origin === null && (site === "cross-site" || site === "same-site"))
    return errorAnswer(new ForbiddenError({ message: `A ${site} request without an allowed Origin is refused; allow the page's origin with --cors or "server.cors" in the global config` }))

  const length = Number(request.headers.get("content-length") ?? 0)
  if (length > FILE_BODY_LIMIT)
    // The body is never read: @hono/node-server drains a little of it after this answer, then closes.
    return errorAnswer(new PayloadTooLargeError({ message: `Body of ${request.method} ${new URL(request.url).pathname} is larger than ${mib(FILE_BODY_LIMIT)}: refused` }))
  return undefined
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

function unauthorized(request: Request, opts: GuardOptions): Response {
  if (opts.pairing && !opts.password && (request.headers.get("accept") ?? "").includes("text/html")) {
    // A browser that opened the address without pairing: say how, and show nothing else.
    const page = "<!doctype html><meta charset=utf-8><title>wright: not paired</title><p>This browser is not paired with this wright server. Run <code>wright web pair</code> on the server's machine and open the link it prints."
    return new Response(page, { status: 401, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": "default-src 'none'" } })
  }
  const how = opts.pairing ? "pair this browser (wright web pair prints a link) or give the password" : "HTTP basic auth; wright run --attach and wright attach read $WRIGHT_SERVER_PASSWORD"
  const refused = new UnauthorizedError({ message: `Unauthorized: this server needs ${opts.password ? "a password" : "pairing"} (${how})` })
  return errorAnswer(refused, opts.password ? { "www-authenticate": 'Basic realm="wright"' } : {})
}

/** Wraps the app's fetch with the checks above, CORS for allowed origins and basic auth. */
export function guard(handler: FetchHandler, opts: GuardOptions): FetchHandler {
  const answersTo = boundNames(opts.hostname)
  const allowed = new Set((opts.cors ?? []).map(normalOrigin))
  return async (request) => {
    const refused = refusal(request, opts, answersTo, allowed)
    if (refused) return refused
    const origin = request.headers.get("origin") ?? undefined
    if (request.method === "OPTIONS" && origin !== undefined && request.headers.has("access-control-request-method")) {
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
    const credential = authorized(request, opts)
    if (!credential) return withCors(unauthorized(request, opts), origin)
    // A cookie rides along on any request the browser makes: a state change on its strength
    // must say where it came from (the Origin check above then holds it to this server's own).
    if (credential === "device" && !SAFE_METHODS.has(request.method) && origin === undefined)
      return errorAnswer(new ForbiddenError({ message: `${request.method} ${new URL(request.url).pathname} with a pairing cookie needs an Origin header (a browser sends it); refused` }))
    return withCors(await handler(request), origin)
  }
}

/** How long a connection closed after an early answer (a 413) keeps reading before it is cut. */
const LINGER_MS = 2_000

/**
 * Node closes a connection whose request body was not read to the end right after the answer.
 * With the body still arriving, that makes TCP reset the connection, and the client may lose
 * the answer (a 413 seen as "connection reset"). Half-close instead, read (and drop) what
 * still comes for a moment, then close.
 */
function lingerOnClose(socket: Socket) {
  const destroySoon = socket.destroySoon.bind(socket)
  socket.destroySoon = () => {
    if (socket.readableEnded) return destroySoon()
    socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once("end", () => {
      clearTimeout(timer)
      socket.destroy()
    })
  }
}

function refuseSandboxed(request: Request): Response {
  const what = `${request.method} ${new URL(request.url).pathname}`
  return errorAnswer(
    new ForbiddenError({ message: `${what} came from a command in wright's sandbox: sandboxed commands may not use wright's own server (it can trust folders and run processes outside the sandbox)` }),
  )
}

/** A refused or failed bind; the message names the flag to change. */
export class ListenError extends Error {
  static readonly info = declareError("ListenError", { quiet: true })
  override readonly name = "ListenError"
}

export interface ListenOptions extends Omit<GuardOptions, "port"> {
  fetch: FetchHandler
  /** 0 picks a free port. */
  port: number
  /** Bind a non-loopback address without a password. */
  insecure?: boolean
  /** Serve the web UI and pairing (`wright web`, `serve --web`); turns auth on. */
  web?: WebOptions
}

export interface Listening {
  url: string
  port: number
  /** Stops accepting, drops open connections (event streams) and resolves once closed. */
  close(): Promise<void>
}

/** Opens a guarded port: refuses an unauthenticated non-loopback bind, then serves `guard(fetch)`. */
export async function listen(opts: ListenOptions): Promise<Listening> {
  const refused = listenRefusal(opts.hostname, { ...opts, pairing: opts.web?.pairing })
  if (refused) throw new ListenError(refused)
  // The guard must know the port actually bound, which port 0 only tells once listening.
  let guarded: FetchHandler = async () => new Response(null, { status: 503 })
  // Connections from a sandboxed command, judged once when they open (the check reads /proc,
  // and only while a sandboxed command runs).
  const sandboxed = new WeakSet<Socket>()
  // Loaded here, not at import: an in-process run never opens a port, and the package brings
  // node:http and node:http2 with it.
  const { serve } = await import("@hono/node-server")
  const server: ServerType = serve({
    fetch: (req: Request, env: { incoming?: { socket?: Socket } }) => (env.incoming?.socket && sandboxed.has(env.incoming.socket) ? refuseSandboxed(req) : guarded(req)),
    port: opts.port,
    hostname: opts.hostname,
  })
  server.on("connection", (socket: Socket) => {
    if (sandboxedPeer(socket)) sandboxed.add(socket)
    lingerOnClose(socket)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve())
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        e.code === "EADDRINUSE"
          ? new ListenError(`--port: ${opts.port} is already in use (pass another, or 0 for a free one)`)
          : e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND"
            ? new ListenError(`--hostname: cannot listen on ${opts.hostname} (${e.code})`)
            : e,
      ),
    )
  })
  const port = (server.address() as AddressInfo).port
  const handler = opts.web ? webHandler(opts.fetch, { ...opts.web, port }) : opts.fetch
  guarded = guard(handler, { ...opts, port, pairing: opts.web?.pairing })
  const host = opts.hostname.includes(":") ? `[${bare(opts.hostname)}]` : opts.hostname
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      }),
  }
}
