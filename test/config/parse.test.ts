import path from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { Config, ConfigError, parseConfigText } from "../../src/config"
import { makeTree, type Tree } from "./fixture"

let t: Tree
beforeEach(() => {
  t = makeTree()
})
afterEach(() => t.cleanup())

const FILE = "/proj/wright.json"

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error("expected a ConfigError")
}

describe("config parse", () => {
  test("config - JSONC comments and trailing commas are accepted", () => {
    const text = `{
      // the default model
      "model": "local/qwen", /* inline */
      "instructions": ["AGENTS.md", "docs/*.md",],
    }`
    expect(parseConfigText(text, FILE, {})).toEqual({ model: "local/qwen", instructions: ["AGENTS.md", "docs/*.md"] })
  })

  test("config - an empty file is an empty config", () => {
    expect(parseConfigText("  \n", FILE, {})).toEqual({})
  })

  test("config - a byte-order mark at the start is ignored", () => {
    expect(parseConfigText('\uFEFF{"model": "a/b"}', FILE, {})).toEqual({ model: "a/b" })
  })

  test("config - an agent key named like an Object.prototype member still moves into options", () => {
    const config = parseConfigText('{"agent": {"x": {"constructor": 1}}}', FILE, {})
    expect(config.agent?.x?.options).toEqual({ constructor: 1 })
  })

  test("config - {env:VAR} is escaped inside strings, raw outside them, and empty when unset", () => {
    const env = { KEY: 'sk-"quoted"\\x', PORT: "4096" }
    const text = '{"provider": {"p": {"options": {"apiKey": "{env:KEY}", "baseURL": "http://h/{env:NOPE}v1"}}}, "server": {"port": {env:PORT}}}'
    const config = parseConfigText(text, FILE, env)
    expect(config.provider?.p?.options).toEqual({ apiKey: 'sk-"quoted"\\x', baseURL: "http://h/v1" })
    expect(config.server?.port).toBe(4096)
  })

  test("config - substitutions inside comments are left alone", () => {
    const text = `{
      // "model": "{file:./does-not-exist}"
      /* {file:also-missing} {env:X} */
      "model": "a/{env:X}"
    }`
    expect(parseConfigText(text, FILE, { X: "b" })).toEqual({ model: "a/b" })
  })

  test("config - {file:} reads relative to the config file, trimmed and escaped, with ~/ as the home directory", () => {
    t.write("repo/prompts/build.md", '  Say "hello".\nThen stop.\n\n')
    t.write("home/secret.key", "sk-123\n")
    const file = t.write("repo/wright.json", "")
    const text = '{"agent": {"build": {"prompt": "{file:prompts/build.md}"}}, "provider": {"p": {"options": {"apiKey": "{file:~/secret.key}"}}}}'
    const config = parseConfigText(text, file, {}, t.home)
    expect(config.agent?.build?.prompt).toBe('Say "hello".\nThen stop.')
    expect(config.provider?.p?.options?.apiKey).toBe("sk-123")
  })

  test("config - a missing {file:} names the config file, the key and the resolved path", () => {
    const file = path.join(t.repo, "wright.json")
    const error = errorOf(() => parseConfigText('{\n  "instructions": ["{file:./gone.md}"]\n}', file, {}))
    expect(error.file).toBe(file)
    expect(error.message).toBe(
      `Invalid config in ${file}: instructions[0]: {file:./gone.md}: ${path.join(t.repo, "gone.md")} does not exist`,
    )
  })

  test("config - an OpenCode user's provider block loads unchanged", () => {
    const provider = {
      lmstudio: {
        npm: "@ai-sdk/openai-compatible",
        name: "LM Studio (local)",
        options: {
          baseURL: "http://127.0.0.1:1234/v1",
          apiKey: "lm-studio",
          headers: { "X-Team": "core" },
          headerTimeout: 60000,
          chunkTimeout: 30000,
          timeout: false,
          setCacheKey: true,
          includeUsage: true,
        },
        models: {
          "qwen/qwen3-coder-30b": {
            name: "Qwen3 Coder 30B",
            limit: { context: 262144, output: 65536 },
            cost: { input: 0, output: 0, cache_read: 0 },
            tool_call: true,
            reasoning: false,
            attachment: false,
            temperature: true,
            modalities: { input: ["text"], output: ["text"] },
            options: { num_ctx: 262144 },
            variants: { fast: { reasoningEffort: "low" }, slow: { disabled: true } },
            release_date: "2025-07-31",
            some_future_field: { kept: true },
          },
        },
      },
    }
    const config = parseConfigText(JSON.stringify({ $schema: "https://opencode.ai/config.json", provider }), FILE, {})
    expect(config.provider).toEqual(provider)
  })

  test("config - a wrong type names the file, the key path and what was received", () => {
    const text = '{"provider": {"local": {"options": {"baseURL": 8080}}}}'
    const error = errorOf(() => parseConfigText(text, "/abs/path/wright.json", {}))
    expect(error.message).toBe(
      "Invalid config in /abs/path/wright.json: provider.local.options.baseURL: expected string, received number",
    )
    expect(error.issues).toEqual([{ path: "provider.local.options.baseURL", message: "expected string, received number" }])
  })

  test("config - every problem in a file is listed with its own path", () => {
    const text = JSON.stringify({
      model: ["a"],
      permission: { bash: { "git *": "allowed" } },
      mcp: { fs: { type: "local", command: "npx server" }, web: { type: "http", url: "x" } },
      provider: { p: { models: { "gpt-4.1": { limit: { context: 1000 } } } } },
      agent: { review: { steps: 2.5, mode: "secondary" } },
      autoupdate: "sometimes",
    })
    const error = errorOf(() => parseConfigText(text, FILE, {}))
    expect(error.issues).toEqual([
      { path: "model", message: "expected string, received array" },
      { path: "provider.p.models[\"gpt-4.1\"].limit.output", message: "missing (expected number)" },
      { path: "agent.review.mode", message: 'expected one of "primary"|"subagent"|"all", received "secondary"' },
      { path: "agent.review.steps", message: "expected integer, received 2.5" },
      { path: 'permission.bash["git *"]', message: 'expected one of "ask"|"allow"|"deny", received "allowed"' },
      { path: "mcp.fs.command", message: "expected array, received string" },
      { path: "mcp.web.type", message: 'expected one of "local"|"remote", received "http"' },
      { path: "autoupdate", message: 'expected boolean or "notify", received "sometimes"' },
    ])
    expect(error.message.split("\n")[0]).toBe(`Invalid config in ${FILE}:`)
    expect(error.message).toContain('\n  mcp.web.type: expected one of "local"|"remote", received "http"')
  })

  test("config - a JSONC syntax error gives line and column", () => {
    const text = '{\n  "model": "a/b"\n  "small_model": "c/d"\n}'
    const error = errorOf(() => parseConfigText(text, FILE, {}))
    expect(error.message).toBe(`Invalid config in ${FILE}: 3:3: comma expected`)
  })

  test("config - syntax error positions refer to the file as written, not the substituted text", () => {
    const text = '{"a": "{env:LONG}", "b": "{env:LONG}",\n  "model" "x"}'
    const error = errorOf(() => parseConfigText(text, FILE, { LONG: "x".repeat(500) }))
    expect(error.issues[0]?.path).toBe("2:11")
  })

  test("config - a top level that is not an object is rejected", () => {
    expect(errorOf(() => parseConfigText("[1]", FILE, {})).message).toBe(
      `Invalid config in ${FILE}: expected an object at the top level, received array`,
    )
  })

  test("config - legacy mode entries become primary agents", () => {
    const config = parseConfigText('{"mode": {"review": {"model": "a/b", "prompt": "look"}}}', FILE, {})
    expect(config.agent).toEqual({ review: { model: "a/b", prompt: "look", mode: "primary" } })
    expect(config.mode).toBeUndefined()
  })

  test("config - legacy tools become permission entries, write/patch meaning edit, explicit permission winning", () => {
    const text = '{"tools": {"write": false, "bash": false, "webfetch": true}, "permission": {"bash": "ask"}}'
    const config = parseConfigText(text, FILE, {})
    expect(config.permission).toEqual({ edit: "deny", bash: "ask", webfetch: "allow" })
    expect(config.tools).toBeUndefined()
  })

  test("config - agents: maxSteps is steps, tools fold into permission, unknown keys move into options", () => {
    const text = JSON.stringify({
      agent: {
        review: {
          maxSteps: 4,
          tools: { edit: false, bash: true },
          permission: { bash: { "rm *": "deny" } },
          reasoningEffort: "high",
          options: { store: false },
          mode: "subagent",
        },
        quick: { steps: 2, maxSteps: 9 },
      },
    })
    const config = parseConfigText(text, FILE, {})
    expect(config.agent?.review).toEqual({
      mode: "subagent",
      steps: 4,
      permission: { edit: "deny", bash: { "rm *": "deny" } },
      options: { store: false, reasoningEffort: "high" },
    })
    expect(config.agent?.quick).toEqual({ steps: 2 })
  })

  test("config - a permission action string means every pattern", () => {
    expect(parseConfigText('{"permission": "ask", "agent": {"plan": {"permission": "deny"}}}', FILE, {})).toEqual({
      permission: { "*": "ask" },
      agent: { plan: { permission: { "*": "deny" } } },
    })
  })

  test("config - the schema accepts every OpenCode top-level key users rely on", () => {
    const full = {
      $schema: "https://opencode.ai/config.json",
      model: "a/b",
      small_model: "a/c",
      default_agent: "build",
      username: "me",
      shell: "/bin/zsh",
      instructions: ["AGENTS.md"],
      command: { test: { template: "run the tests $ARGUMENTS", description: "tests", agent: "build", subtask: true } },
      mcp: {
        fs: { type: "local", command: ["npx", "-y", "server"], environment: { A: "1" }, timeout: 5000 },
        web: { type: "remote", url: "https://mcp.example.com", headers: { Authorization: "x" }, oauth: false },
        old: { enabled: false },
      },
      compaction: { auto: true, prune: false, tail_turns: 2, preserve_recent_tokens: 8000, reserved: 10000 },
      tool_output: { max_lines: 2000, max_bytes: 51200 },
      subagent_depth: 2,
      snapshot: false,
      share: "disabled",
      autoupdate: "notify",
      disabled_providers: ["openai"],
      enabled_providers: ["local"],
      server: { port: 4096, hostname: "127.0.0.1", cors: ["https://app.example.com"] },
      skills: { paths: ["~/skills"] },
      watcher: { ignore: ["dist/**"] },
      formatter: { prettier: { disabled: true } },
      lsp: false,
      plugin: ["opencode-wakatime", ["@org/plugin", { level: 2 }]],
      layout: "stretch",
      experimental: { batch_tool: true, mcp_timeout: 10000, some_new_flag: 1 },
    }
    expect(Config.parse(full)).toEqual(full)
    expect(parseConfigText(JSON.stringify(full), FILE, {})).toEqual(full)
  })
})
