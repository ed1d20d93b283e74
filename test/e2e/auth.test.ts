// Stored credentials against the built binary: `wright auth login` with piped input, then
// `wright run` sending that key (read off the llm-server's recorded headers); a store others
// can read refused; `auth list` naming sources and never a key; OpenCode's auth.json picked
// up and never written; logout; and the key found nowhere it should not be (GET /config,
// /provider, logs, the database, `wright export`), set through the official OpenCode client.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { startServe, stopServe } from "./serve-helpers"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => llm.reset())
afterAll(() => llm.close())

const limit = { context: 200_000, output: 8_000 }
const ANTHROPIC_KEY = "sk-ant-stored-0123456789-abcdef"
const OPENAI_KEY = "sk-openai-opencode-9876543210-zz"

const authFile = (box: Sandbox) => path.join(box.env.XDG_DATA_HOME!, "wright", "auth.json")
const opencodeFile = (box: Sandbox) => path.join(box.env.XDG_DATA_HOME!, "opencode", "auth.json")
const mode = (file: string) => statSync(file).mode & 0o777

/** Known provider ids pointed at the llm-server; no apiKey anywhere in config, no key in the environment. */
function knownProviders(box: Sandbox, model = "anthropic/claude-test") {
  writeConfig(box.project, {
    model,
    provider: {
      anthropic: { options: { baseURL: `${llm.url}/v1` }, models: { "claude-test": { limit } } },
      openai: { options: { baseURL: `${llm.url}/v1` }, models: { "resp-model": { limit } } },
    },
  })
}

const login = (box: Sandbox, provider: string, key: string) => wright(["auth", "login", provider], { cwd: box.project, env: box.env, input: `${key}\n` })

/** Every file under the sandbox home except the two auth.json files, whose bytes hold `needle`. */
function filesHolding(box: Sandbox, needle: string): string[] {
  const allowed = new Set([authFile(box), opencodeFile(box)])
  const found: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile() && !allowed.has(p) && readFileSync(p).includes(needle)) found.push(p)
    }
  }
  walk(box.home)
  return found
}

describe("stored credentials end to end", () => {
  test("auth - login reads the key from stdin; run sends it, with no key in config or env", async () => {
    const box = sandbox()
    knownProviders(box)
    const stored = await login(box, "anthropic", ANTHROPIC_KEY)
    expect(stored.code).toBe(0)
    expect(stored.stdout).toContain("…cdef")
    expect(stored.stdout + stored.stderr).not.toContain(ANTHROPIC_KEY)
    expect(JSON.parse(readFileSync(authFile(box), "utf8"))).toEqual({ anthropic: { type: "api", key: ANTHROPIC_KEY } })
    expect(mode(authFile(box))).toBe(0o600)
    expect(mode(path.dirname(authFile(box)))).toBe(0o700)
    expect(readdirSync(path.dirname(authFile(box)))).toEqual(["auth.json"])

    llm.script(text("Hello from the stored key."))
    const run = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain("Hello from the stored key.")
    expect(llm.requests[0]!.protocol).toBe("anthropic")
    expect(llm.requests[0]!.headers["x-api-key"]).toBe(ANTHROPIC_KEY)

    // `wright models` counts the stored key: anthropic's catalogue models are listed.
    const noConfig = sandbox()
    expect((await login(noConfig, "anthropic", ANTHROPIC_KEY)).code).toBe(0)
    const models = await wright(["models"], { cwd: noConfig.project, env: noConfig.env })
    expect(models.code, models.stderr).toBe(0)
    expect(models.stdout).toMatch(/^anthropic\//m)
  })

  test("auth - a store other users can read is refused with the chmod that fixes it, for reading and writing", async () => {
    const box = sandbox()
    knownProviders(box)
    expect((await login(box, "anthropic", ANTHROPIC_KEY)).code).toBe(0)
    chmodSync(authFile(box), 0o644)
    const fix = `chmod 600 ${authFile(box)}`

    const run = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(authFile(box))
    expect(run.stderr).toContain(fix)
    expect(run.stderr).not.toContain("    at ")
    expect(llm.requests).toEqual([])

    for (const args of [["auth", "list"], ["auth", "logout", "anthropic"]]) {
      const r = await wright(args, { cwd: box.project, env: box.env })
      expect(r.code, args.join(" ")).toBe(1)
      expect(r.stderr).toContain(fix)
    }
    const again = await login(box, "openai", OPENAI_KEY)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(fix)
    expect(JSON.parse(readFileSync(authFile(box), "utf8"))).toEqual({ anthropic: { type: "api", key: ANTHROPIC_KEY } })

    // OpenCode's file follows the same rule.
    chmodSync(authFile(box), 0o600)
    mkdirSync(path.dirname(opencodeFile(box)), { recursive: true })
    writeFileSync(opencodeFile(box), JSON.stringify({ openai: { type: "api", key: OPENAI_KEY } }), { mode: 0o640 })
    const theirs = await wright(["auth", "list"], { cwd: box.project, env: box.env })
    expect(theirs.code).toBe(1)
    expect(theirs.stderr).toContain(`chmod 600 ${opencodeFile(box)}`)
  })

  test("auth - list names where each key comes from (config, store, OpenCode's store, env) and shows at most its last four characters", async () => {
    const box = sandbox()
    writeConfig(box.project, {
      provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "config-key-0000-1111-2222" }, models: { m: { limit } } } },
    })
    expect((await login(box, "anthropic", ANTHROPIC_KEY)).code).toBe(0)
    mkdirSync(path.dirname(opencodeFile(box)), { recursive: true })
    writeFileSync(opencodeFile(box), JSON.stringify({ openai: { type: "api", key: OPENAI_KEY }, "github-copilot": { type: "oauth", refresh: "r-tok", access: "a-tok", expires: 1 } }), { mode: 0o600 })
    const env = { ...box.env, ANTHROPIC_API_KEY: "sk-env-anthropic-4444-5555", GROQ_API_KEY: "gsk-env-groq-6666-7777" }

    const list = await wright(["auth", "list"], { cwd: box.project, env })
    expect(list.code, list.stderr).toBe(0)
    const lines = list.stdout.split("\n")
    const line = (id: string) => lines.find((l) => l.startsWith(`${id} `)) ?? ""
    expect(line("anthropic")).toContain(`store (${authFile(box)})`)
    expect(line("anthropic")).toContain("…cdef")
    // The variable is named, and shown as not used: the stored key comes first.
    expect(list.stdout).toMatch(/also env ANTHROPIC_API_KEY: not used/)
    expect(line("openai")).toContain(`OpenCode's store (${opencodeFile(box)})`)
    expect(line("groq")).toContain("env GROQ_API_KEY")
    expect(line("fake")).toContain("config (provider.fake.options.apiKey)")
    expect(line("github-copilot")).toContain("oauth login")
    for (const secret of [ANTHROPIC_KEY, OPENAI_KEY, "config-key-0000-1111-2222", "sk-env-anthropic-4444-5555", "gsk-env-groq-6666-7777", "a-tok", "r-tok"]) {
      expect(list.stdout + list.stderr).not.toContain(secret)
      // No run of more than four of its characters after the ellipsis.
      expect(list.stdout).not.toContain(`…${secret.slice(-5)}`)
    }
  })

  test("auth - OpenCode's auth.json is used when wright's has no entry for the provider, and is never written", async () => {
    const box = sandbox()
    knownProviders(box, "openai/resp-model")
    mkdirSync(path.dirname(opencodeFile(box)), { recursive: true })
    const theirs = JSON.stringify({ openai: { type: "api", key: OPENAI_KEY }, anthropic: { type: "oauth", refresh: "r", access: "a", expires: 1 } })
    writeFileSync(opencodeFile(box), theirs, { mode: 0o600 })

    llm.script(text("From OpenCode's key."))
    const run = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(run.code, run.stderr).toBe(0)
    expect(llm.requests[0]!.protocol).toBe("openai-responses")
    expect(llm.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`)

    // wright's own entry wins once there is one; OpenCode's file is left byte for byte.
    expect((await login(box, "openai", "sk-openai-wright-own-11112222")).code).toBe(0)
    llm.script(text("From wright's key."))
    expect((await wright(["run", "hi"], { cwd: box.project, env: box.env })).code).toBe(0)
    expect(llm.requests[1]!.headers.authorization).toBe("Bearer sk-openai-wright-own-11112222")
    expect(readFileSync(opencodeFile(box), "utf8")).toBe(theirs)

    // After logout, OpenCode's key applies again, and wright says so.
    const out = await wright(["auth", "logout", "openai"], { cwd: box.project, env: box.env })
    expect(out.code).toBe(0)
    expect(out.stderr).toContain(`OpenCode's ${opencodeFile(box)} also has a openai key`)
    const gone = await wright(["auth", "logout", "openai"], { cwd: box.project, env: box.env })
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain("which wright never changes")
    expect(readFileSync(opencodeFile(box), "utf8")).toBe(theirs)
  })

  test("auth - logout removes the provider's entry and keeps the others (an OAuth login included)", async () => {
    const box = sandbox()
    knownProviders(box)
    mkdirSync(path.dirname(authFile(box)), { recursive: true, mode: 0o700 })
    const oauth = { type: "oauth", refresh: "r", access: "a", expires: 1 }
    writeFileSync(authFile(box), JSON.stringify({ "github-copilot": oauth }), { mode: 0o600 })
    expect((await login(box, "anthropic", ANTHROPIC_KEY)).code).toBe(0)
    expect(JSON.parse(readFileSync(authFile(box), "utf8"))).toEqual({ "github-copilot": oauth, anthropic: { type: "api", key: ANTHROPIC_KEY } })

    const out = await wright(["auth", "logout", "anthropic"], { cwd: box.project, env: box.env })
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain(`Removed the anthropic key from ${authFile(box)}`)
    expect(JSON.parse(readFileSync(authFile(box), "utf8"))).toEqual({ "github-copilot": oauth })
    expect(mode(authFile(box))).toBe(0o600)
    expect((await wright(["auth", "list"], { cwd: box.project, env: box.env })).stdout).not.toMatch(/^anthropic /m)

    // The run no longer carries it.
    llm.script(text("no key"))
    await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(llm.requests[0]!.headers["x-api-key"]).not.toBe(ANTHROPIC_KEY)

    const again = await wright(["auth", "logout", "anthropic"], { cwd: box.project, env: box.env })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`no anthropic key is stored in ${authFile(box)}`)
    // Piped stdin cannot pick a provider.
    const unnamed = await wright(["auth", "login"], { cwd: box.project, env: box.env, input: `${ANTHROPIC_KEY}\n` })
    expect(unnamed.code).toBe(1)
    expect(unnamed.stderr).toContain("provider: name it")
  })

  test("auth - a key set through the official OpenCode client over TCP is used, and appears in no answer, log, export or database", async () => {
    const box = sandbox()
    knownProviders(box)
    const served = await startServe(box, ["--print-logs"])
    try {
      const official = createOpencodeClient({ baseUrl: served.url, directory: box.project })
      const set = await official.auth.set({ path: { id: "anthropic" }, body: { type: "api", key: ANTHROPIC_KEY } })
      expect(set.response.status).toBe(200)
      expect(set.data).toBe(true)
      expect(mode(authFile(box))).toBe(0o600)

      const providers = (await (await fetch(`${served.url}/provider`)).json()) as { connected: string[] }
      expect(providers.connected).toContain("anthropic")
      for (const route of ["/config", "/provider", "/config/providers", "/doc"]) {
        expect(await (await fetch(`${served.url}${route}`)).text(), route).not.toContain(ANTHROPIC_KEY)
      }
      // A refused body is answered without the key in it.
      const bad = await fetch(`${served.url}/auth/anthropic`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "api", key: `${ANTHROPIC_KEY} extra` }) })
      expect(bad.status).toBe(400)
      expect(await bad.text()).not.toContain(ANTHROPIC_KEY)

      // The running server uses it at once, for a session made through the same client.
      llm.script(text("Served with the stored key."))
      const session = (await official.session.create({ body: { title: "auth" } })).data!
      const answer = await official.session.prompt({ path: { id: session.id }, body: { parts: [{ type: "text", text: "hi" }] } })
      expect(answer.response.status).toBe(200)
      expect(llm.requests[0]!.headers["x-api-key"]).toBe(ANTHROPIC_KEY)

      const removed = await fetch(`${served.url}/auth/anthropic`, { method: "DELETE" })
      expect(await removed.json()).toBe(true)
      expect(JSON.parse(readFileSync(authFile(box), "utf8"))).toEqual({})
      expect((await login(box, "anthropic", ANTHROPIC_KEY)).code).toBe(0)
    } finally {
      const stopped = await stopServe(served)
      expect(stopped.stdout + stopped.stderr).not.toContain(ANTHROPIC_KEY)
    }

    llm.script(text("Run with logs."))
    const run = await wright(["run", "--print-logs", "hi"], { cwd: box.project, env: box.env })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout + run.stderr).not.toContain(ANTHROPIC_KEY)
    const exported = await wright(["export"], { cwd: box.project, env: box.env })
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stdout).toContain("Run with logs.")
    expect(exported.stdout).not.toContain(ANTHROPIC_KEY)
    // Logs, the database and everything else under the home (only the store holds it); the
    // walk does read them: the reply's text is found in the database.
    expect(filesHolding(box, ANTHROPIC_KEY)).toEqual([])
    expect(filesHolding(box, "Run with logs.").length).toBeGreaterThan(0)
  })
})
