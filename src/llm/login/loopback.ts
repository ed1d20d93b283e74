// The one-shot listener the browser comes back to after the ChatGPT sign-in. It is not the
// guarded listener (server/): it serves no API, takes no body and sets no cookie, and it must
// answer a plain browser navigation (no Origin, no JSON, no password), which the guard exists to
// refuse. Its own rules are stricter: 127.0.0.1 only; GET of the one callback path only; a Host
// header naming this port on localhost or 127.0.0.1 (a DNS-rebound page cannot reach it); and
// only a request carrying the `state` this sign-in made (random, 32 bytes) counts. Any other
// request is answered 400 and the listener keeps waiting, so a stray or hostile request can
// neither sign the user in to someone else's account nor end the sign-in. It closes on the
// first good callback, on an `error` the authorization server sent with the right state, or
// after `timeoutMs`.
import http from "node:http"
import type { AddressInfo } from "node:net"

export interface Callback {
  /** The port it listens on (the one asked for, or the free one 0 got). */
  port: number
  /** The authorization code of the callback with the expected state. */
  code: Promise<string>
  close(): void
}

export async function listenForCode(opts: { port: number; path: string; state: string; timeoutMs: number }): Promise<Callback> {
  let resolve!: (code: string) => void
  let reject!: (e: Error) => void
  const code = new Promise<string>((ok, fail) => ((resolve = ok), (reject = fail)))
  code.catch(() => {})
  let port = opts.port
  const page = (status: number, res: http.ServerResponse, title: string, body: string) =>
    res
      .writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
      .end(`<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h2>${title}</h2><p>${body}</p></body>`)
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const hostOK = req.headers.host === `localhost:${port}` || req.headers.host === `127.0.0.1:${port}`
    if (req.method !== "GET" || url.pathname !== opts.path || !hostOK) return page(404, res, "Not found", "")
    if (url.searchParams.get("state") !== opts.state) {
      return page(400, res, "Sign-in refused", "This is not the sign-in wright started (its state does not match). The sign-in wright started is still waiting.")
    }
    const error = url.searchParams.get("error")
    if (error) {
      const description = url.searchParams.get("error_description")
      page(400, res, "Sign-in failed", "The sign-in was not completed. You can close this tab.")
      return reject(new Error(`the sign-in was refused: ${error}${description ? ` (${description})` : ""}`))
    }
    const value = url.searchParams.get("code")
    if (!value) return page(400, res, "Sign-in refused", "The callback carries no authorization code.")
    page(200, res, "Signed in", "wright has the authorization. You can close this tab.")
    resolve(value)
  })
  await new Promise<void>((ok, fail) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      fail(e.code === "EADDRINUSE" ? new Error(`port ${opts.port} on 127.0.0.1 is in use (another sign-in, or Codex's, is waiting there): finish or stop it, then try again`) : e),
    )
    server.listen(opts.port, "127.0.0.1", () => ok())
  })
  port = (server.address() as AddressInfo).port
  const timer = setTimeout(() => reject(new Error(`no sign-in came back within ${Math.round(opts.timeoutMs / 60_000)} minutes`)), opts.timeoutMs)
  // Done: no new connections; the browser's (its page already sent) closes once idle.
  const done = () => {
    clearTimeout(timer)
    server.close()
    server.closeIdleConnections()
  }
  code.then(done, done)
  const close = () => {
    reject(new Error("the sign-in was cancelled"))
    server.closeAllConnections()
  }
  return { port, code, close }
}
