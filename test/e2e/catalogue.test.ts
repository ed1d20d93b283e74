// The model catalogue through the built binary: snapshot providers used by id with a key (only
// their baseURL pointed at the llm-server), `models --refresh` from catalog.url in the user's
// global config (good, then failing), and provider packages loaded only when used.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { ROOT, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { tempDir } from "../lib/tool-context"
import { acmeCatalogue } from "../llm/catalogue-fixture"

let server: LLMServer
let catalogue: { status: number; text: string } = { status: 200, text: "{}" }
let http: Server
let catalogURL: string
beforeAll(async () => {
  server = await startLLMServer()
  http = createServer((_req, res) => res.writeHead(catalogue.status, { "content-type": "application/json" }).end(catalogue.text))
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  catalogURL = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api.json`
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(async () => {
  await server.close()
  await new Promise((resolve) => http.close(resolve))
})

/** Config that only moves a catalogue provider's endpoint (honoured: the sandbox trusts its folder). */
function pointAt(box: Sandbox, id: string) {
  writeConfig(box.project, { provider: { [id]: { options: { baseURL: `${server.url}/v1` } } } })
}

const FAMILIES = [
  { id: "deepseek", model: "deepseek-chat", key: "DEEPSEEK_API_KEY", path: "/v1/chat/completions", header: "authorization", value: "Bearer k" },
  { id: "groq", model: "llama-3.3-70b-versatile", key: "GROQ_API_KEY", path: "/v1/chat/completions", header: "authorization", value: "Bearer k" },
  { id: "xai", model: "grok-code-fast-1", key: "XAI_API_KEY", path: "/v1/responses", header: "authorization", value: "Bearer k" },
  { id: "anthropic", model: "claude-sonnet-4-5", key: "ANTHROPIC_API_KEY", path: "/v1/messages", header: "x-api-key", value: "k" },
]

test.each(FAMILIES)("catalogue - run -m $id/$model with only $key set and the baseURL moved", async (f) => {
  const box = sandbox()
  pointAt(box, f.id)
  server.script(text(`answer from ${f.id}`))
  const r = await wright(["run", "-m", `${f.id}/${f.model}`, "hi"], { cwd: box.project, env: { ...box.env, [f.key]: "k" } })
  expect(r.code, r.stderr).toBe(0)
  expect(r.stderr).not.toMatch(/error|warning/i)
  expect(r.stdout).toContain(`answer from ${f.id}`)
  expect(server.requests.map((q) => q.path)).toEqual([f.path])
  expect(server.requests[0]!.headers[f.header]).toBe(f.value)
  expect(server.requests[0]!.body.model).toBe(f.model)
})

test("catalogue - an unknown provider or model names the close matches", async () => {
  const box = sandbox()
  const env = { ...box.env, ANTHROPIC_API_KEY: "k" }
  const provider = await wright(["run", "-m", "antropic/claude-sonnet-4-5", "hi"], { cwd: box.project, env })
  expect(provider.code).not.toBe(0)
  expect(provider.stderr).toContain('Unknown provider "antropic"')
  expect(provider.stderr).toContain("Did you mean: anthropic")
  const model = await wright(["run", "-m", "anthropic/claude-sonet-4.5", "hi"], { cwd: box.project, env })
  expect(model.code).not.toBe(0)
  expect(model.stderr).toContain("Model not found: anthropic/claude-sonet-4.5")
  expect(model.stderr).toMatch(/Did you mean: anthropic\/claude-sonnet-4-5/)
  const listed = await wright(["models", "grok"], { cwd: box.project, env })
  expect(listed.code).toBe(1)
  expect(listed.stderr).toMatch(/no usable provider "grok"\. Did you mean: .*groq/)
  const keyless = await wright(["models", "mistral"], { cwd: box.project, env })
  expect(keyless.stderr).toContain('provider "mistral" has no key yet: run `wright auth login mistral` or set MISTRAL_API_KEY')
})

test("catalogue - models --refresh caches catalog.url's catalogue, later runs use it, a failed refresh keeps it", async () => {
  const box = sandbox()
  const globalDir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(globalDir, { recursive: true })
  writeConfig(globalDir, { catalog: { url: catalogURL } })
  const env = { ...box.env, ACME_API_KEY: "k-acme" }
  const opts = { cwd: box.project, env }

  catalogue = { status: 200, text: JSON.stringify(acmeCatalogue(`${server.url}/v1`)) }
  const ok = await wright(["models", "--refresh"], opts)
  expect(ok.code).toBe(0)
  expect(ok.stderr).toContain(`Refreshed the model catalogue from ${catalogURL}: 1 providers, 1 models, cached in ${path.join(box.env.XDG_CACHE_HOME!, "wright", "models.json")}`)
  expect(ok.stdout).toBe("acme/acme-coder (default)\n")

  // A provider only the refreshed catalogue knows works by id with its key, no provider config at all.
  server.script(text("hello from acme"))
  const run = await wright(["run", "hi"], opts)
  expect(run.code).toBe(0)
  expect(run.stdout).toContain("hello from acme")
  expect(server.requests[0]!.headers.authorization).toBe("Bearer k-acme")

  for (const [reply, problem] of [
    [{ status: 500, text: "oops" }, "HTTP 500 Internal Server Error"],
    [{ status: 200, text: "not json" }, "the body is not JSON"],
    [{ status: 200, text: '{"acme": {"models": {}}}' }, "not a models.dev catalogue"],
  ] as const) {
    catalogue = reply
    const failed = await wright(["models", "--refresh"], opts)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain(`Could not refresh the model catalogue from ${catalogURL}: ${problem}`)
    expect(failed.stderr).toContain("Keeping the catalogue in use: the copy refreshed earlier")
    expect((await wright(["models"], opts)).stdout).toBe("acme/acme-coder (default)\n")
  }
})

test("catalogue - catalog.url in an untrusted project is not used", async () => {
  const box = sandbox()
  writeConfig(box.project, { catalog: { url: catalogURL } })
  catalogue = { status: 200, text: JSON.stringify(acmeCatalogue(`${server.url}/v1`)) }
  // No global catalog.url: the default (models.dev) is tried, which this machine cannot reach.
  const r = await wright(["models", "--refresh"], { cwd: box.project, env: { ...box.env, WRIGHT_TRUST: "" } })
  expect(r.stderr).toContain("catalog.url from this project's config is not used")
  expect(r.stderr).not.toContain(`from ${catalogURL}:`)
  expect(r.stderr).toContain("https://models.dev/api.json")
})

/** The bundle chunks that hold a provider package: each package builds its user agent as `ai-sdk/<name>/${VERSION}`. */
function chunksOf(pkg: string): string[] {
  const dir = path.join(ROOT, "dist/chunks")
  const marker = "ai-sdk/" + pkg + "/${"
  return readdirSync(dir)
    .filter((f) => f.endsWith(".mjs") && readFileSync(path.join(dir, f), "utf8").includes(marker))
    .map((f) => path.join(dir, f))
}

test("catalogue - a provider package is loaded only when its provider is used", async () => {
  // A module hook records every bundle file the process loads.
  const hooks = tempDir("wright-hooks-")
  const log = path.join(hooks, "loaded.txt")
  writeFileSync(
    path.join(hooks, "hooks.mjs"),
    `import { appendFileSync } from "node:fs"\nlet out\nexport function initialize(data) { out = data }\nexport async function load(url, context, next) { if (url.startsWith("file:")) appendFileSync(out, url + "\\n"); return next(url, context) }\n`,
  )
  writeFileSync(
    path.join(hooks, "register.mjs"),
    `import { register } from "node:module"\nregister(${JSON.stringify(pathToFileURL(path.join(hooks, "hooks.mjs")).href)}, { data: ${JSON.stringify(log)} })\n`,
  )
  const loaded = async (id: string, model: string, key: string) => {
    writeFileSync(log, "")
    const box = sandbox()
    pointAt(box, id)
    server.script(text("ok"))
    // The ESM build, whose chunks a module hook can see (a run from the startup snapshot reads none).
    const env = { ...box.env, WRIGHT_NO_SNAPSHOT: "1", [key]: "k", NODE_OPTIONS: `--import=${pathToFileURL(path.join(hooks, "register.mjs")).href}` }
    const r = await wright(["run", "-m", `${id}/${model}`, "hi"], { cwd: box.project, env })
    expect(r.code, r.stderr).toBe(0)
    return new Set(readFileSync(log, "utf8").split("\n").filter(Boolean).map((u) => new URL(u).pathname))
  }
  const packages = ["amazon-bedrock", "google-vertex", "azure", "mistral", "groq", "xai", "anthropic", "openai"]
  const chunks = Object.fromEntries(packages.map((p) => [p, chunksOf(p)]))
  for (const p of packages) expect(chunks[p]!.length, p).toBeGreaterThan(0)

  const viaCompatible = await loaded("deepseek", "deepseek-chat", "DEEPSEEK_API_KEY")
  // The recorder works: the bundle and the package deepseek does use were seen.
  expect([...viaCompatible].some((f) => f.endsWith("/dist/wright.mjs"))).toBe(true)
  expect(chunksOf("openai-compatible").some((c) => viaCompatible.has(c))).toBe(true)
  for (const p of packages) expect(chunks[p]!.filter((c) => viaCompatible.has(c)), `${p} loaded for deepseek`).toEqual([])

  const viaGroq = await loaded("groq", "llama-3.3-70b-versatile", "GROQ_API_KEY")
  expect(chunks.groq!.some((c) => viaGroq.has(c))).toBe(true)
  for (const p of packages.filter((p) => p !== "groq")) expect(chunks[p]!.filter((c) => viaGroq.has(c)), `${p} loaded for groq`).toEqual([])
})
