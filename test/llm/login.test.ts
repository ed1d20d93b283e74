// The subscription sign-ins against fakes of GitHub and OpenAI on loopback (test/lib/login-fakes):
// GitHub's device flow (pending, slow_down growing the interval, expiry, refusal) and Copilot's
// token exchange; ChatGPT's PKCE flow with the test playing the browser (a wrong state refused,
// the verifier checked by the fake); refresh before expiry, under a lock another process may
// hold; a revoked refresh token giving "sign in again"; and a model request through each
// provider reaching the llm-server with the login's headers.
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import http from "node:http"
import path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { createProviders, finishCopilotLogin, readLogin, startChatGPTLogin, startCopilotLogin, userCredentials, writeEntry, type OAuthEntry } from "../../src/llm"
import { ProviderLoginExpiredError } from "../../src/protocol"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { startFakeGitHub, startFakeOpenAIAuth, type FakeGitHub, type FakeOpenAIAuth } from "../lib/login-fakes"
import { tempDir } from "../lib/tool-context"
import { collect, errorOf, textOf } from "./harness"

let github: FakeGitHub
let openai: FakeOpenAIAuth
let llm: LLMServer
beforeAll(async () => {
  ;[github, openai, llm] = await Promise.all([startFakeGitHub(), startFakeOpenAIAuth(), startLLMServer()])
  github.endpoint = `${llm.url}/v1`
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => Promise.all([github.close(), openai.close(), llm.close()]))

function box() {
  const home = tempDir("wright-login-")
  const env = {
    XDG_DATA_HOME: path.join(home, "data"),
    WRIGHT_GITHUB_URL: github.url,
    WRIGHT_GITHUB_API_URL: github.url,
    WRIGHT_OPENAI_AUTH_URL: openai.url,
    WRIGHT_CHATGPT_URL: `${llm.url}/v1`,
    WRIGHT_OPENAI_CALLBACK_PORT: "0",
  }
  const credentials = userCredentials({ env, home, trusted: true, userProviders: [] })
  return { env, file: credentials.file, providers: () => createProviders({ config: {}, env, credentials }) }
}

/** A sleep that records what it was asked to wait and returns at once, on a clock it advances. */
function fakeTime() {
  let clock = Date.now()
  const waits: number[] = []
  return { waits, now: () => clock, sleep: async (ms: number) => void (waits.push(ms), (clock += ms)) }
}

describe("GitHub Copilot", () => {
  test("login - the device flow polls through pending and slow_down (+5 s each time), then stores the exchanged Copilot token", async () => {
    const { env, file } = box()
    github.polls = ["authorization_pending", "slow_down", "authorization_pending", "slow_down", "gho_github_token"]
    github.device = { interval: 2, expires_in: 900 }
    const time = fakeTime()
    const code = await startCopilotLogin({ env })
    expect(code.userCode).toBe("WDJB-MJHT")
    expect(code.verificationUri).toBe("https://github.com/login/device")
    const entry = await finishCopilotLogin(code, { env, ...time })
    expect(time.waits).toEqual([2000, 2000, 7000, 7000, 12000])
    expect(entry).toMatchObject({ type: "oauth", refresh: "gho_github_token", access: github.issued.at(-1), endpoint: `${llm.url}/v1` })
    expect(entry.expires).toBeGreaterThan(Date.now() + 1700_000)
    writeEntry(file, "github-copilot", entry)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readLogin(file, "github-copilot")).toEqual(entry)
  })

  test("login - an expired code, a refusal, and a code never entered before it expires each end the sign-in with a message that says so", async () => {
    const { env } = box()
    github.device = { interval: 5, expires_in: 60 }
    github.polls = ["authorization_pending", "expired_token"]
    await expect(finishCopilotLogin(await startCopilotLogin({ env }), { env, ...fakeTime() })).rejects.toThrow(/code expired before it was entered/)
    github.polls = ["access_denied"]
    await expect(finishCopilotLogin(await startCopilotLogin({ env }), { env, ...fakeTime() })).rejects.toThrow(/refused on GitHub/)
    // GitHub keeps saying "pending": wright stops once the code's 60 s are over, not later.
    github.polls = ["authorization_pending"]
    const before = github.seen.length
    const time = fakeTime()
    await expect(finishCopilotLogin(await startCopilotLogin({ env }), { env, ...time })).rejects.toThrow(/code expired/)
    expect(time.waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(65_000)
    expect(github.seen.length - before).toBeLessThanOrEqual(13)
  })

  test("copilot - an expired Copilot token is exchanged again before the request, which carries the new one and the editor headers", async () => {
    const { file, providers } = box()
    writeEntry(file, "github-copilot", { type: "oauth", refresh: "gho_github_token", access: "tid=stale", expires: Date.now() - 1000, endpoint: `${llm.url}/v1` })
    const issued = github.issued.length
    llm.script(text("Hello from Copilot."))
    const parts = await collect(await providers().get("github-copilot", "gpt-4.1"))
    expect(textOf(parts)).toBe("Hello from Copilot.")
    expect(github.issued.length).toBe(issued + 1)
    const sent = llm.requests[0]!
    expect(sent.path).toBe("/v1/chat/completions")
    expect(sent.headers.authorization).toBe(`Bearer ${github.issued.at(-1)}`)
    expect(sent.headers["copilot-integration-id"]).toBe("vscode-chat")
    expect(sent.headers["editor-version"]).toMatch(/^vscode\//)
    expect(sent.headers["x-initiator"]).toBe("user")
    // The refreshed token was written back, so the next request (or process) uses it without an exchange.
    expect(readLogin(file, "github-copilot")!.access).toBe(github.issued.at(-1))
    llm.script(text("Again."))
    await collect(await providers().get("github-copilot", "gpt-4.1"))
    expect(github.issued.length).toBe(issued + 1)
    expect(llm.requests[1]!.headers.authorization).toBe(`Bearer ${github.issued.at(-1)}`)
  })

  test("copilot - a GitHub token GitHub no longer accepts gives ProviderLoginExpiredError: sign in again with wright auth login", async () => {
    const { file, providers } = box()
    writeEntry(file, "github-copilot", { type: "oauth", refresh: "gho_revoked", access: "tid=old", expires: Date.now() - 1000 })
    const error = errorOf(await collect(await providers().get("github-copilot", "gpt-4.1")))
    expect(error).toBeInstanceOf(ProviderLoginExpiredError)
    expect((error as Error).message).toContain("sign in again with `wright auth login github-copilot`")
    expect(llm.requests).toEqual([])
  })

  test("copilot - without a sign-in the provider is not offered, and asking for it says to sign in; GITHUB_TOKEN is no Copilot key", async () => {
    const { env, file } = box()
    const credentials = userCredentials({ env, home: path.dirname(env.XDG_DATA_HOME), trusted: true, userProviders: [] })
    const providers = createProviders({ config: {}, env: { ...env, GITHUB_TOKEN: "ghp_from_actions" }, credentials })
    expect(providers.list().map((p) => p.id)).not.toContain("github-copilot")
    await expect(providers.get("github-copilot", "gpt-4.1")).rejects.toThrow("run `wright auth login github-copilot`")
    writeEntry(file, "github-copilot", { type: "oauth", refresh: "gho_github_token", access: "a", expires: 1 })
    providers.refresh()
    expect(providers.list().map((p) => p.id)).toContain("github-copilot")
    expect(providers.keys().find((k) => k.providerID === "github-copilot")!.sources[0]).toEqual({ kind: "oauth", file, expires: 1 })
  })

  test("copilot - the Copilot token is never sent to a base URL a config set instead of Copilot's API", async () => {
    const { env, file } = box()
    writeEntry(file, "github-copilot", { type: "oauth", refresh: "gho_github_token", access: "tid=secret", expires: Date.now() + 3600_000, endpoint: `${llm.url}/v1` })
    const elsewhere = await startLLMServer()
    try {
      const credentials = userCredentials({ env, home: path.dirname(env.XDG_DATA_HOME), trusted: true, userProviders: [] })
      const config = { provider: { "github-copilot": { options: { baseURL: `${elsewhere.url}/v1` } } } }
      const error = errorOf(await collect(await createProviders({ config, env, credentials }).get("github-copilot", "gpt-4.1")))
      expect((error as Error).message).toContain("a Copilot sign-in is sent only there")
      expect(elsewhere.requests).toEqual([])
    } finally {
      await elsewhere.close()
    }
  })

  test("refresh - a process that finds another's refresh lock waits and uses the token that one wrote, without refreshing itself", async () => {
    const { file, providers } = box()
    const stale: OAuthEntry = { type: "oauth", refresh: "gho_github_token", access: "tid=stale", expires: Date.now() - 1000, endpoint: `${llm.url}/v1` }
    writeEntry(file, "github-copilot", stale)
    // Another wright is mid-refresh: it holds the lock.
    writeFileSync(`${file}.lock`, "99999", { mode: 0o600 })
    const issued = github.issued.length
    llm.script(text("ok"))
    const request = providers()
      .get("github-copilot", "gpt-4.1")
      .then((m) => collect(m))
    await new Promise((r) => setTimeout(r, 300))
    expect(llm.requests).toEqual([])
    // It finishes: its new token is in the file, its lock gone.
    writeEntry(file, "github-copilot", { ...stale, access: "tid=theirs", expires: Date.now() + 1800_000 })
    unlinkSync(`${file}.lock`)
    expect(textOf(await request)).toBe("ok")
    expect(github.issued.length).toBe(issued)
    expect(llm.requests[0]!.headers.authorization).toBe("Bearer tid=theirs")
  })
})

/** Plays the browser: follows the sign-in page's redirect to wright's loopback callback. */
async function browse(url: string, rewrite?: (callback: URL) => void): Promise<Response> {
  const authorize = await fetch(url, { redirect: "manual" })
  expect(authorize.status).toBe(302)
  const callback = new URL(authorize.headers.get("location")!)
  rewrite?.(callback)
  return fetch(callback)
}

describe("ChatGPT", () => {
  test("login - PKCE end to end: the browser's return with the right state is exchanged with the verifier; the account id comes from the id token", async () => {
    const { env, file } = box()
    const login = await startChatGPTLogin({ env })
    const url = new URL(login.url)
    expect(url.origin + url.pathname).toBe(`${openai.url}/oauth/authorize`)
    expect(url.searchParams.get("scope")).toBe("openid profile email offline_access")
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/localhost:\d+\/auth\/callback$/)
    const page = await browse(login.url)
    expect(page.status).toBe(200)
    const entry = await login.done
    expect(entry).toMatchObject({ type: "oauth", access: openai.issued.at(-1), accountId: "acct-1234" })
    // The fake honoured the code only with the verifier whose S256 is the challenge sent.
    const exchange = openai.seen.filter((s) => s.path === "/oauth/token").at(-1)!
    expect(exchange.body.grant_type).toBe("authorization_code")
    expect(exchange.body.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/)
    writeEntry(file, "openai", entry)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  test("login - a callback with another state is refused and changes nothing; the sign-in still completes with the right one", async () => {
    const { env } = box()
    const login = await startChatGPTLogin({ env })
    let good: URL | undefined
    const forged = await browse(login.url, (cb) => {
      good = new URL(cb)
      cb.searchParams.set("state", "attacker-state")
    })
    expect(forged.status).toBe(400)
    expect(await forged.text()).toContain("not the sign-in wright started")
    // No code was exchanged for the forged callback.
    const exchanges = () => openai.seen.filter((s) => s.path === "/oauth/token").length
    const before = exchanges()
    await new Promise((r) => setTimeout(r, 100))
    expect(exchanges()).toBe(before)
    // Nor does a Host other than loopback reach it (a DNS-rebound page).
    // (fetch cannot set Host; node:http can, as a browser on a rebound name would send it.)
    const rebound = await new Promise<number>((resolve, reject) =>
      http.get({ host: "127.0.0.1", port: good!.port, path: good!.pathname + good!.search, headers: { host: `evil.example:${good!.port}` } }, (res) => (res.resume(), resolve(res.statusCode!))).on("error", reject),
    )
    expect(rebound).toBe(404)
    expect((await fetch(good!)).status).toBe(200)
    expect((await login.done).accountId).toBe("acct-1234")
  })

  test("login - a wrong verifier is refused by the server: no login", async () => {
    const { env } = box()
    const login = await startChatGPTLogin({ env })
    // Another client's code (its challenge not ours): our verifier does not match it.
    const other = new URL(login.url)
    other.searchParams.set("code_challenge", "A".repeat(43))
    const authorize = await fetch(other, { redirect: "manual" })
    await fetch(authorize.headers.get("location")!)
    await expect(login.done).rejects.toThrow(/HTTP 400 \(invalid_grant\)/)
  })

  test("chatgpt - a request reaches the Codex backend's Responses API with the fresh token and chatgpt-account-id; an expired one is refreshed first", async () => {
    const { env, file, providers } = box()
    const login = await startChatGPTLogin({ env })
    await browse(login.url)
    const entry = await login.done
    writeEntry(file, "openai", { ...entry, expires: Date.now() - 1000 })
    llm.script(text("Hello from ChatGPT."))
    const parts = await collect(await providers().get("openai", "gpt-5"))
    expect(textOf(parts)).toBe("Hello from ChatGPT.")
    const sent = llm.requests[0]!
    expect(sent.path).toBe("/v1/responses")
    expect(sent.headers.authorization).toBe(`Bearer ${openai.issued.at(-1)}`)
    expect(openai.issued.at(-1)).not.toBe(entry.access)
    expect(sent.headers["chatgpt-account-id"]).toBe("acct-1234")
    // The Codex backend's body: the system prompt as instructions, not stored.
    expect(sent.body.instructions).toContain("You are a test.")
    expect(sent.body.store).toBe(false)
    expect(sent.body.input.some((m: { role?: string }) => m.role === "system" || m.role === "developer")).toBe(false)
    // The rotated refresh token was stored; the spent one is gone.
    expect(readLogin(file, "openai")!.refresh).not.toBe(entry.refresh)
    expect(openai.refreshTokens.has(entry.refresh)).toBe(false)
    const source = providers().keys().find((k) => k.providerID === "openai")!.sources[0]
    expect(source).toMatchObject({ kind: "oauth", file })
    // Signed in, openai lists what the Codex backend serves, at no per-token cost (the plan pays).
    const models = Object.values(providers().list().find((p) => p.id === "openai")!.models)
    expect(models.map((m) => m.id).sort()).toEqual(expect.arrayContaining(["gpt-5", "gpt-5-codex", "gpt-5.1", "gpt-5.1-codex"]))
    expect(models.map((m) => m.id)).not.toContain("gpt-4o")
    expect(models.every((m) => m.cost.input === 0 && m.cost.output === 0)).toBe(true)
  })

  test("chatgpt - a revoked refresh token gives ProviderLoginExpiredError: sign in again, and nothing is sent to the model", async () => {
    const { file, providers } = box()
    writeEntry(file, "openai", { type: "oauth", refresh: "rt-revoked", access: "old", expires: Date.now() - 1000, accountId: "acct-1234" })
    const error = errorOf(await collect(await providers().get("openai", "gpt-5")))
    expect(error).toBeInstanceOf(ProviderLoginExpiredError)
    expect((error as Error).message).toContain("sign in again with `wright auth login chatgpt`")
    expect(llm.requests).toEqual([])
    // The stored login is left as it was: a later sign-in replaces it.
    expect(JSON.parse(readFileSync(file, "utf8")).openai.refresh).toBe("rt-revoked")
  })
})

test("auth store - a login's tokens never reach a provider's public info", async () => {
  const { file, providers } = box()
  mkdirSync(path.dirname(file), { recursive: true })
  writeEntry(file, "openai", { type: "oauth", refresh: "rt-secret-refresh", access: "secret-access", expires: Date.now() + 3600_000 })
  const info = JSON.stringify(providers().list())
  expect(info).not.toContain("secret")
})
