// A fake GitHub REST API on loopback for `wright github run`. Every request is checked against
// GitHub's published OpenAPI description (@octokit/openapi): the method and path must be an
// operation of api.github.com, and a JSON body must carry the operation's required fields.
// A request that fails the check is answered 404/422 and listed in `failures`.
import { readFileSync } from "node:fs"
import http from "node:http"
import { createRequire } from "node:module"

export interface GitHubRequest {
  method: string
  path: string
  /** The OpenAPI path template it matched, e.g. /repos/{owner}/{repo}/issues/{issue_number}/comments. */
  route: string
  headers: http.IncomingHttpHeaders
  body: any
}

export interface FakeGitHub {
  url: string
  requests: GitHubRequest[]
  failures: string[]
  /** Requests git made to <url>/<owner>/<repo>.git/… (smart HTTP), answered 403: enough to see what git sends. */
  git: { path: string; headers: http.IncomingHttpHeaders }[]
  /** Answers by route template; the default answers make up plausible objects. */
  answer(route: string, method: string, fn: (req: GitHubRequest) => unknown): void
  close(): Promise<void>
}

interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> }
}
interface Schema {
  $ref?: string
  required?: string[]
}

let spec: { paths: Record<string, Record<string, Operation>>; components: unknown } | undefined
function openapi() {
  const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json")
  return (spec ??= JSON.parse(readFileSync(file, "utf8")))
}

function resolve(node: any): any {
  let n = node
  while (n && typeof n.$ref === "string") {
    n = n.$ref.replace(/^#\//, "").split("/").reduce((o: any, k: string) => o?.[k], openapi())
  }
  return n
}

/** The template an actual path matches: `{param}` is one segment. */
function match(method: string, path: string): { route: string; op: Operation } | undefined {
  const segs = path.split("/")
  for (const [route, ops] of Object.entries(openapi().paths as Record<string, Record<string, Operation>>)) {
    const op = ops[method.toLowerCase()]
    if (!op) continue
    const t = route.split("/")
    if (t.length !== segs.length) continue
    if (t.every((s, i) => (s.startsWith("{") && s.endsWith("}") ? segs[i] !== "" : s === segs[i]))) return { route, op }
  }
  return undefined
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  openapi()
  const requests: GitHubRequest[] = []
  const failures: string[] = []
  const git: FakeGitHub["git"] = []
  const answers = new Map<string, (req: GitHubRequest) => unknown>()
  let next = 100
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (d) => (raw += d))
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname
      const method = req.method ?? "GET"
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(body))
      }
      if (/\.git\//.test(path)) {
        git.push({ path: req.url ?? path, headers: req.headers })
        res.writeHead(403, { "content-type": "text/plain" })
        return res.end("refused by the fake\n")
      }
      const found = match(method, path)
      if (!found) {
        failures.push(`${method} ${path}: no such operation in GitHub's OpenAPI description`)
        return send(404, { message: "Not Found" })
      }
      let body: any
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        failures.push(`${method} ${path}: body is not JSON`)
        return send(400, { message: "Problems parsing JSON" })
      }
      const schema = resolve(resolve(found.op.requestBody)?.content?.["application/json"]?.schema)
      const missing = (schema?.required ?? []).filter((k: string) => body?.[k] === undefined)
      if (missing.length) {
        failures.push(`${method} ${path}: missing required ${missing.join(", ")}`)
        return send(422, { message: `missing ${missing.join(", ")}` })
      }
      if (!/^Bearer .+/.test(req.headers.authorization ?? "")) failures.push(`${method} ${path}: no bearer token`)
      const r: GitHubRequest = { method, path, route: found.route, headers: req.headers, body }
      requests.push(r)
      const fn = answers.get(`${method} ${found.route}`)
      if (fn) return send(200, fn(r))
      const n = next++
      send(201, { id: n, number: n, html_url: `https://github.example/${path.split("/").slice(2, 4).join("/")}/${found.route.includes("/pulls") && method === "POST" && found.route.endsWith("/pulls") ? "pull" : "comment"}/${n}` })
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failures,
    git,
    answer: (route, method, fn) => void answers.set(`${method} ${route}`, fn),
    close: () => new Promise((r) => server.close(() => r())),
  }
}
