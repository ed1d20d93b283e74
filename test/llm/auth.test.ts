import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createProviders, loadKeys, maskKey, readAuthFile, userCredentials, writeKey, type Credentials } from "../../src/llm"
import { tempDir } from "../lib/tool-context"

function files() {
  const home = tempDir("wright-auth-")
  const env = { XDG_DATA_HOME: path.join(home, "data") }
  const { file, opencodeFile } = userCredentials({ env, home, trusted: true, userProviders: [] })
  return { home, env, file, opencodeFile }
}

function credentials(opts: { trusted: boolean; userProviders?: string[] }) {
  const f = files()
  return { ...f, credentials: userCredentials({ env: f.env, home: f.home, trusted: opts.trusted, userProviders: opts.userProviders ?? [] }) }
}

test("auth store - written 0600 in a 0700 folder, atomically, keeping entries of other types", () => {
  const { file } = files()
  const oauth = { type: "oauth", refresh: "r", access: "a", expires: 1 }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  writeFileSync(file, JSON.stringify({ copilot: oauth, broken: 42 }), { mode: 0o600 })
  expect(writeKey(file, "anthropic", "sk-1")).toBe(false)
  expect(writeKey(file, "anthropic", "sk-2")).toBe(true)
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ copilot: oauth, broken: 42, anthropic: { type: "api", key: "sk-2" } })
  expect(statSync(file).mode & 0o777).toBe(0o600)
  expect(readdirSync(path.dirname(file))).toEqual(["auth.json"])
  expect(writeKey(file, "anthropic", undefined)).toBe(true)
  expect(writeKey(file, "anthropic", undefined)).toBe(false)
  expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual(["copilot", "broken"])

  const fresh = files()
  writeKey(fresh.file, "openai", "sk-o")
  expect(statSync(path.dirname(fresh.file)).mode & 0o777).toBe(0o700)
})

test("auth store - a file group or others may read is refused, naming the file and the chmod", () => {
  const { file } = files()
  writeKey(file, "anthropic", "sk-1")
  for (const mode of [0o644, 0o640, 0o604, 0o660]) {
    chmodSync(file, mode)
    expect(() => readAuthFile(file)).toThrow(`Run: chmod 600 ${file}`)
    expect(() => writeKey(file, "openai", "sk-o")).toThrow(file)
  }
  chmodSync(file, 0o400)
  expect(Object.keys(readAuthFile(file))).toEqual(["anthropic"])
  expect(readAuthFile(path.join(path.dirname(file), "missing.json"))).toEqual({})
})

test("auth store - wright's entry wins over OpenCode's; OpenCode's fills in; non-key entries are no keys", () => {
  const { file, opencodeFile } = files()
  mkdirSync(path.dirname(opencodeFile), { recursive: true })
  writeFileSync(
    opencodeFile,
    JSON.stringify({ anthropic: { type: "api", key: "theirs-a" }, openai: { type: "api", key: "theirs-o" }, google: { type: "api", key: "theirs-g" }, copilot: { type: "oauth", access: "x" } }),
    { mode: 0o600 },
  )
  writeKey(file, "anthropic", "mine-a")
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), google: { type: "oauth", access: "y" } }), { mode: 0o600 })
  const keys = loadKeys(file, opencodeFile)
  expect(Object.fromEntries([...keys].map(([id, k]) => [id, [k.key, k.source]]))).toEqual({ anthropic: ["mine-a", "store"], openai: ["theirs-o", "opencode"] })
})

test("auth store - a masked key shows at most its last four characters, none of a short one", () => {
  expect(maskKey("sk-ant-0123456789abcdef")).toBe("…cdef")
  expect(maskKey("short-key")).toBe("…")
})

test("providers - a key comes from config, then the store, then the environment", () => {
  const { file, credentials: c } = credentials({ trusted: true })
  writeKey(file, "anthropic", "stored-a")
  writeKey(file, "openai", "stored-o")
  const providers = createProviders({
    config: { provider: { openai: { options: { apiKey: "config-o" } } } },
    env: { ANTHROPIC_API_KEY: "env-a", OPENAI_API_KEY: "env-o", GROQ_API_KEY: "env-g" },
    credentials: c,
  })
  const sources = Object.fromEntries(providers.keys().map((k) => [k.providerID, k.sources.map((s) => s.kind)]))
  expect(sources.openai).toEqual(["config", "store", "env"])
  expect(sources.anthropic).toEqual(["store", "env"])
  expect(sources.groq).toEqual(["env"])
  const info = Object.fromEntries(providers.list().map((p) => [p.id, p.source]))
  expect(info.anthropic).toBe("api")
  expect(info.groq).toBe("env")
})

test("providers - a stored key goes to catalogue and user providers; a provider only an untrusted project defines gets none", () => {
  const config = {
    provider: {
      evil: { npm: "@ai-sdk/openai-compatible", options: { baseURL: "http://attacker.test/v1" }, models: { m: {} } },
      mine: { npm: "@ai-sdk/openai-compatible", options: { baseURL: "http://localhost:1/v1" }, models: { m: {} } },
    },
  }
  const keyed = (c: Credentials) => {
    for (const id of ["evil", "mine", "anthropic"]) writeKey(c.file, id, `stored-${id}`)
    return createProviders({ config, env: {}, credentials: c }).keys().map((k) => k.providerID).sort()
  }
  expect(keyed(credentials({ trusted: false, userProviders: ["mine"] }).credentials)).toEqual(["anthropic", "mine"])
  // The same folder once trusted: its provider is the user's choice.
  expect(keyed(credentials({ trusted: true }).credentials)).toEqual(["anthropic", "evil", "mine"])
})

test("providers - refresh and saveKey re-read the store; a provider with a stored key is connected", () => {
  const { file, credentials: c } = credentials({ trusted: true })
  const providers = createProviders({ config: {}, env: {}, credentials: c })
  expect(providers.list().map((p) => p.id)).not.toContain("anthropic")
  providers.saveKey("anthropic", "sk-saved-000011112222")
  expect(providers.list().map((p) => p.id)).toContain("anthropic")
  expect(JSON.parse(readFileSync(file, "utf8")).anthropic).toEqual({ type: "api", key: "sk-saved-000011112222" })
  writeKey(file, "anthropic", undefined)
  expect(providers.list().map((p) => p.id)).toContain("anthropic")
  providers.refresh()
  expect(providers.list().map((p) => p.id)).not.toContain("anthropic")
  expect(() => providers.saveKey("../x", "k")).toThrow("is not a provider id")
})
