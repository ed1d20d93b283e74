// Starting the built `wright serve` on a free loopback port and reading its URL.
import { readFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { finished, spawnWright, waitForOutput, type Sandbox } from "../lib/e2e"

export type Served = ReturnType<typeof spawnWright> & { url: string }

export async function startServe(box: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawnWright(["serve", "--port", "0", ...args], { cwd: box.project, env: { ...box.env, ...env } })
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${child.output.stderr}`))))
  await Promise.race([waitForOutput(child, (o) => /listening on http:\/\/\S+\n/.test(o.stdout)), exited])
  const url = /listening on (http:\/\/\S+)\n/.exec(child.output.stdout)![1]!
  return Object.assign(child, { url })
}

/** SIGTERM, then the exit result. */
export async function stopServe(child: Served) {
  // Gone already (a signal leaves exitCode null): its exit event fired, waiting for one would take 20 s.
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, stdout: child.output.stdout, stderr: child.output.stderr }
  const done = finished(child, 20_000)
  child.kill("SIGTERM")
  return done
}

export interface Answer {
  status: number
  headers: import("node:http").IncomingHttpHeaders
  text: string
  /** The `{name, data}` error body (or whatever JSON came back). */
  json: () => any
}

/**
 * One request over TCP with exactly the headers given; node:http (unlike fetch) lets a test
 * forge `Host`. `body` may be a number of bytes to stream chunked (1 MiB of "a" at a time,
 * stopping as soon as the server answers).
 */
export function send(url: string, method: string, pathname: string, opts: { headers?: Record<string, string>; body?: string | number } = {}): Promise<Answer> {
  const base = new URL(url)
  return new Promise((resolve, reject) => {
    let answered = false
    // "Connection: close" would make the server close at once after an early answer, and the
    // body still in flight would reset the connection before the answer is read.
    const close = typeof opts.body === "number" ? {} : { connection: "close" }
    const req = httpRequest({ host: base.hostname, port: base.port, method, path: pathname, agent: false, headers: { ...close, ...opts.headers } }, (res) => {
      answered = true
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) }))
      res.on("error", reject)
    })
    // The server may close the socket while a refused body is still being sent.
    req.on("error", (e) => !answered && reject(e))
    if (typeof opts.body !== "number") return req.end(opts.body)
    const chunk = Buffer.alloc(1 << 20, "a")
    let left = opts.body
    // One chunk per turn of the event loop, so an early answer is seen before the next write.
    const pump = () => {
      if (answered || req.destroyed) return
      if (left <= 0) return void req.end()
      left -= chunk.length
      if (req.write(chunk)) setImmediate(pump)
      else req.once("drain", pump)
    }
    pump()
  })
}

/** Resident memory of a process now and at its peak (VmHWM), in MiB, from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)![1]) / 1024
  return { rss: kb("VmRSS"), peak: kb("VmHWM") }
}

/**
 * What a web page or a DNS-rebinding attacker tries against a listener, each answered with
 * its HTTP status; `headers` are added to every request (e.g. basic auth). A guarded listener
 * answers GUARDED.
 */
export async function attacks(url: string, opts: { home: string; headers?: Record<string, string> }) {
  const port = Number(new URL(url).port)
  const other = port === 65535 ? 1 : port + 1
  const status = (method: string, pathname: string, headers: Record<string, string> = {}, body?: string) =>
    send(url, method, pathname, { headers: { ...opts.headers, ...headers }, body }).then((r) => r.status)
  const preflight = { "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
  return {
    localhost: await status("GET", "/session", { host: `localhost:${port}` }),
    rebindingHost: await status("GET", "/session", { host: `evil.test:${port}` }),
    rebindingWithOrigin: await status("POST", "/session", { host: `evil.test:${port}`, origin: `http://evil.test:${port}`, "content-type": "application/json" }, "{}"),
    wrongPort: await status("GET", "/session", { host: `127.0.0.1:${other}` }),
    foreignOrigin: await status("GET", "/session", { origin: "https://evil.example" }),
    otherLoopbackPort: await status("GET", "/session", { origin: `http://localhost:${other}` }),
    sameHostOrigin: await status("POST", "/session", { origin: `http://127.0.0.1:${port}`, "content-type": "application/json" }, "{}"),
    foreignPreflight: await status("OPTIONS", "/session", { origin: `http://127.0.0.1:${other}`, ...preflight }),
    crossSiteNoCors: await status("GET", "/session", { "sec-fetch-site": "cross-site" }),
    sameSiteNoCors: await status("GET", "/session", { "sec-fetch-site": "same-site" }),
    textPlainPost: await status("POST", "/session", { "content-type": "text/plain;charset=UTF-8" }, '{"title":"from a form"}'),
    formPost: await status("POST", "/session", { "content-type": "application/x-www-form-urlencoded" }, "title=from+a+form"),
    directoryEtc: await status("GET", `/path?directory=${encodeURIComponent("/etc")}`),
    directoryRoot: await status("GET", `/file/content?path=etc/passwd&directory=${encodeURIComponent("/")}`),
    directoryHome: await status("GET", "/path", { "x-opencode-directory": encodeURIComponent(opts.home) }),
  }
}

export const GUARDED: Awaited<ReturnType<typeof attacks>> = {
  localhost: 200,
  rebindingHost: 403,
  rebindingWithOrigin: 403,
  wrongPort: 403,
  foreignOrigin: 403,
  otherLoopbackPort: 403,
  sameHostOrigin: 403,
  foreignPreflight: 403,
  crossSiteNoCors: 403,
  sameSiteNoCors: 403,
  textPlainPost: 415,
  formPost: 415,
  directoryEtc: 403,
  directoryRoot: 403,
  directoryHome: 403,
}
