// Helpers for end-to-end tests: an isolated wright home (XDG dirs, database), a project
// directory, a config pointing a provider at the scripted llm-server, and the BUILT binary
// spawned as a user would run it: `wright(…)` through the `wright` command (bin/wright, which
// starts `run` from the startup snapshot), a pane through bin/wright.cjs (the ESM build).
import { spawn, type ChildProcess } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect } from "vitest"
import { startLLMServer, type LLMServer, type Protocol } from "./llm-server"
import { tempDir } from "./tool-context"

export const ROOT = path.resolve(import.meta.dirname, "../..")
export const BIN = path.join(ROOT, "bin/wright.cjs")
/** The `wright` command as package.json installs it: a shell launcher. */
export const LAUNCHER = path.join(ROOT, "bin/wright")

export interface Sandbox {
  home: string
  project: string
  env: NodeJS.ProcessEnv
  dbPath: string
}

/** A fresh HOME with XDG dirs and a project directory; nothing from the real user leaks in. */
export function sandbox(): Sandbox {
  const home = tempDir("wright-home-")
  const project = path.join(home, "project")
  mkdirSync(project, { recursive: true })
  const dbPath = path.join(home, "data", "wright", "wright.db")
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
    XDG_CACHE_HOME: path.join(home, "cache"),
    XDG_STATE_HOME: path.join(home, "state"),
    NO_COLOR: "1",
    LANG: "C.UTF-8",
    // The tests of other features write their provider, MCP and permission setup into the
    // project's own config, as a user who trusts their folder would. The trust tests
    // (test/config/trust.test.ts, test/e2e/trust.test.ts) delete this to play a cloned repository.
    WRIGHT_TRUST: "1",
    // A test that writes a .sh or .py file must not install a language server from npm.
    WRIGHT_DISABLE_LSP_DOWNLOAD: "1",
  }
  return { home, project, env, dbPath }
}

/** Provider config for one wire protocol, pointing at the llm-server. Model ids avoid "gpt-" so edit/write stay on. */
export function providerConfig(server: LLMServer, protocol: Protocol) {
  const baseURL = `${server.url}/v1`
  const limit = { context: 200_000, output: 8_000 }
  switch (protocol) {
    case "openai-chat":
      return {
        model: "fake/chat-model",
        provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL, apiKey: "test-key" }, models: { "chat-model": { limit } } } },
      }
    case "openai-responses":
      return {
        model: "fakeopenai/responses-model",
        provider: { fakeopenai: { npm: "@ai-sdk/openai", options: { baseURL, apiKey: "test-key" }, models: { "responses-model": { limit } } } },
      }
    case "anthropic":
      return {
        model: "fakeanthropic/claude-test",
        provider: { fakeanthropic: { npm: "@ai-sdk/anthropic", options: { baseURL, apiKey: "test-key" }, models: { "claude-test": { limit } } } },
      }
    case "google":
      // The package appends `/models/{id}:streamGenerateContent` to a base that ends in the API version.
      return {
        model: "fakegoogle/gemini-test",
        provider: {
          fakegoogle: { npm: "@ai-sdk/google", options: { baseURL: `${server.url}/v1beta`, apiKey: "test-key" }, models: { "gemini-test": { limit } } },
        },
      }
  }
}

/**
 * The scripted model of a test file: started before its tests and closed after them; after
 * each test no request went unscripted (`failures`) and the script is reset. The returned
 * object stands for the server once it runs (use it inside tests and hooks, not at load).
 */
export function useLLMServer(): LLMServer {
  let server: LLMServer | undefined
  beforeAll(async () => {
    server = await startLLMServer()
  })
  afterEach(() => {
    expect(server!.failures).toEqual([])
    server!.reset()
  })
  afterAll(() => server?.close())
  return new Proxy({} as LLMServer, {
    get(_, key) {
      if (!server) throw new Error("the scripted model is used before its beforeAll hook started it")
      const value = Reflect.get(server, key)
      return typeof value === "function" ? value.bind(server) : value
    },
  })
}

export function writeConfig(dir: string, config: unknown, name = "wright.json") {
  writeFileSync(path.join(dir, name), JSON.stringify(config, null, 2))
}

export interface Result {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs the built CLI to completion. */
export function wright(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<Result> {
  const child = spawnWright(args, opts)
  return finished(child, opts.timeoutMs ?? 60_000)
}

export function spawnWright(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): ChildProcess & { output: { stdout: string; stderr: string } } {
  // WRIGHT_NODE: the launcher starts this test's Node even when a test's PATH has none.
  const env = { ...opts.env, WRIGHT_NODE: process.execPath }
  const child = spawn(LAUNCHER, args, { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"] }) as ChildProcess & {
    output: { stdout: string; stderr: string }
  }
  child.output = { stdout: "", stderr: "" }
  child.stdout!.on("data", (d) => (child.output.stdout += d))
  child.stderr!.on("data", (d) => (child.output.stderr += d))
  child.stdin!.end(opts.input ?? "")
  return child
}

export function finished(child: ReturnType<typeof spawnWright>, timeoutMs = 60_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`wright did not exit within ${timeoutMs} ms\nstdout: ${child.output.stdout}\nstderr: ${child.output.stderr}`))
    }, timeoutMs)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      // Let the pipes drain.
      setImmediate(() => resolve({ code, signal, stdout: child.output.stdout, stderr: child.output.stderr }))
    })
  })
}

/** Resolves once `pred` holds for the child's output so far. */
export function waitForOutput(child: ReturnType<typeof spawnWright>, pred: (o: { stdout: string; stderr: string }) => boolean, timeoutMs = 30_000) {
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      if (pred(child.output)) {
        cleanup()
        resolve()
      }
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`timed out waiting for output\nstdout: ${child.output.stdout}\nstderr: ${child.output.stderr}`))
    }, timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout!.off("data", check)
      child.stderr!.off("data", check)
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    check()
  })
}

/**
 * Every part row of a wright database, oldest message first, as wright reads it: a tool part's
 * output lives in its own column (`data` holds null in its place), so it is put back here.
 */
export function storedParts(db: { prepare(sql: string): { all(): unknown[] } }): any[] {
  return (db.prepare("SELECT data, output FROM part ORDER BY message_id, id").all() as { data: string; output: string | null }[]).map((r) => {
    const part = JSON.parse(r.data)
    if (part.type === "tool" && r.output !== null) part.state.output = r.output
    return part
  })
}
