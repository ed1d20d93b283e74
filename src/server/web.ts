// The web UI's side of the listener: the pairing link (`/pair?code=…`), the pairing admin
// routes (`/web/pair`, `/web/devices`) and the UI's static files (`/`, `/web/assets/…`, built
// into dist/web by scripts/build.mjs). Everything else goes to the API unchanged. It sits
// inside the guard: Host, Origin, body limits and auth have already been checked (the guard
// lets `/pair` through without a credential, since its code is one).
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { ForbiddenError, NotFoundError } from "../protocol"
import { errorAnswer } from "./error"
import { pairCookieName, readCookie, type Pairing } from "./pairing"

// Declared here, not imported from listener.ts, which imports this file.
type FetchHandler = (request: Request) => Promise<Response>

export interface WebOptions {
  pairing: Pairing
  /** The built UI (index.html, app.js, app.css); default: dist/web beside the bundle. */
  assets?: string
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
}

// The page loads only its own script and style and talks only to this server; nothing may
// frame it (a framed page could be clicked through: "Allow always").
const PAGE_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
}

/** dist/web, found from the bundle (dist/wright.mjs or dist/chunks/…) or from src/server in tests. */
export function defaultAssets(): string {
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (const rel of ["web", "../web", "../../dist/web"]) {
    const dir = path.resolve(here, rel)
    if (existsSync(path.join(dir, "index.html"))) return dir
  }
  return path.resolve(here, "../../dist/web")
}

/** Reads a built file once; a UI that was not built answers 404 with how to build it. */
function assetReader(dir: string) {
  const cache = new Map<string, Buffer | null>()
  return (name: string): Buffer | null => {
    if (!cache.has(name)) cache.set(name, existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name)) : null)
    return cache.get(name)!
  }
}

export function webHandler(app: FetchHandler, opts: WebOptions & { port: number }): FetchHandler {
  const { pairing } = opts
  const read = assetReader(opts.assets ?? defaultAssets())
  const cookieName = pairCookieName(opts.port)
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

  function file(name: string): Response {
    const body = read(name)
    if (!body) return errorAnswer(new NotFoundError({ message: `The web UI is not built (${name} missing): run npm run build` }))
    return new Response(new Uint8Array(body), { headers: { ...PAGE_HEADERS, "content-type": TYPES[path.extname(name)] ?? "application/octet-stream" } })
  }

  function pair(request: Request): Response {
    const code = new URL(request.url).searchParams.get("code") ?? ""
    const got = pairing.redeem(code, request.headers.get("user-agent") ?? "")
    if (!got) {
      const page = "<!doctype html><meta charset=utf-8><title>wright: link refused</title><p>This pairing link was already used or has expired. Run <code>wright web pair</code> for a new one."
      return new Response(page, { status: 403, headers: { ...PAGE_HEADERS, "content-type": "text/html; charset=utf-8" } })
    }
    const cookie = `${cookieName}=${got.cookie}; Path=/; HttpOnly; SameSite=Strict`
    // The key rides in the fragment, which the browser keeps to itself; the page moves it to localStorage.
    return new Response(null, { status: 303, headers: { location: `/#key=${got.key}`, "set-cookie": cookie, "cache-control": "no-store", "referrer-policy": "no-referrer" } })
  }

  /** The link a code opens, on the address the request reached us by. */
  const linkFor = (request: Request, code: string) => `${new URL(request.url).protocol}//${request.headers.get("host")}/pair?code=${code}`

  return async (request) => {
    const url = new URL(request.url)
    const { pathname } = url
    const method = request.method
    if (pathname === "/pair" && method === "GET") return pair(request)
    if (pathname === "/web/pair" && method === "POST") {
      // Minting needs the local admin token or the password, never a paired browser's cookie:
      // a stolen cookie must not be turned into more devices.
      const device = pairing.check(readCookie(request.headers.get("cookie"), cookieName))
      if (device && !request.headers.has("authorization") && !request.headers.has("x-wright-admin"))
        return errorAnswer(new ForbiddenError({ message: "A paired browser cannot mint pairing links; run wright web pair on the server's machine" }))
      const { code, expires } = pairing.mint()
      return json({ url: linkFor(request, code), expires })
    }
    if (pathname === "/web/devices" && method === "GET") return json(pairing.devices())
    const revoke = /^\/web\/devices\/([^/]+)$/.exec(pathname)
    if (revoke && method === "DELETE") return json(pairing.revoke(decodeURIComponent(revoke[1]!)))
    if ((pathname === "/" || pathname === "/index.html") && (method === "GET" || method === "HEAD")) return file("index.html")
    const asset = /^\/web\/assets\/([\w.-]+\.(?:js|css|svg|json))$/.exec(pathname)
    if (asset && method === "GET") return file(asset[1]!)

    const response = await app(request)
    // A revoked browser's open event streams end with it.
    const device = response.headers.get("content-type")?.startsWith("text/event-stream") ? pairing.check(readCookie(request.headers.get("cookie"), cookieName)) : undefined
    if (!device || !response.body) return response
    const reader = response.body.getReader()
    let off = () => {}
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        off = pairing.onRevoke((id) => {
          if (id !== device.id) return
          off()
          reader.cancel().catch(() => {})
          controller.close()
        })
      },
      async pull(controller) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
        if (done) {
          off()
          try {
            controller.close()
          } catch {
            // already closed by a revoke
          }
        } else controller.enqueue(value!)
      },
      cancel() {
        off()
        return reader.cancel()
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
}
