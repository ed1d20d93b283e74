// What a user sees when something goes wrong, through the BUILT binary against the scripted
// llm-server: bad config, unknown models, missing keys, provider HTTP errors and retries, bad
// tool calls from the model, and Ctrl+C. Build first: node scripts/build.mjs
import Database from "better-sqlite3"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { text, type Protocol, type Reply } from "../lib/llm-server"
import { finished, providerConfig, sandbox, type Sandbox, spawnWright, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

/** A sandbox whose project config points the default model at the llm-server. */
function project(protocol: Protocol = "openai-chat", extra: Record<string, unknown> = {}): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, protocol), ...extra })
  return box
}

function messages(box: Sandbox): any[] {
  const db = new Database(box.dbPath, { readonly: true })
  try {
    return (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data))
  } finally {
    db.close()
  }
}

function until(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const start = Date.now()
    const tick = () => {
      if (pred()) return resolve()
      if (Date.now() - start > timeoutMs) return reject(new Error(`timed out waiting for ${what}`))
      setTimeout(tick, 10)
    }
    tick()
  })
}

/** The tool result the model received in the request after a tool step (OpenAI Chat shape). */
function toolResult(n: number): string {
  const tool = server.requests[n]!.body.messages.find((m: { role: string }) => m.role === "tool")
  expect(tool, `request #${n + 1} carries a tool result`).toBeDefined()
  return String(tool.content)
}

const serverError = (status = 500): Reply => ({ error: { status, headers: { "retry-after-ms": "10" } } })

describe("run - bad input from the user", () => {
  test("run - invalid config: exit 1, stderr names the file and the key path", async () => {
    const box = project("openai-chat", { agent: { build: { temperature: "hot" } } })
    const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(path.join(box.project, "wright.json"))
    expect(r.stderr).toContain("agent.build.temperature")
    expect(r.stderr).not.toMatch(/\n\s+at /) // a message, not a stack trace
    expect(server.requests).toHaveLength(0)
  })

  test("run - config that is not JSON: exit 1, stderr names the file", async () => {
    const box = sandbox()
    writeFileSync(path.join(box.project, "wright.json"), '{ "model": "fake/chat-model", ')
    const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(path.join(box.project, "wright.json"))
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  test("run - unknown model: exit 1, the configured models are listed", async () => {
    const box = project()
    const r = await wright(["run", "-m", "fake/no-such-model", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("fake/no-such-model")
    expect(r.stderr).toContain("chat-model")
    expect(server.requests).toHaveLength(0)
  })

  test("run - unknown provider: exit 1, the configured providers are listed", async () => {
    const box = project()
    const r = await wright(["run", "-m", "nosuch/model", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('"nosuch"')
    expect(r.stderr).toMatch(/Configured providers: .*fake/)
    expect(server.requests).toHaveLength(0)
  })

  test("run - missing API key: exit 1, the message names ANTHROPIC_API_KEY", async () => {
    const box = sandbox()
    writeConfig(box.project, { model: "anthropic/claude-sonnet-4-5" })
    const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("ANTHROPIC_API_KEY")
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  test("run - a failed run prints its error once", async () => {
    const box = project()
    const r = await wright(["run", "-m", "fake/no-such-model", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr.match(/Model not found/g)).toHaveLength(1)
  })
})

const PROTOCOLS: Protocol[] = ["openai-chat", "openai-responses", "anthropic"]

describe.each(PROTOCOLS)("run - provider HTTP errors over %s", (protocol) => {
  test(`run - ${protocol}: HTTP 401 fails at once with exit 1 and shows an auth error`, async () => {
    const box = project(protocol)
    server.script({ error: { status: 401 } })
    const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/Error:/)
    expect(r.stderr).toMatch(/401|API key|auth/i)
    expect(server.requests).toHaveLength(1) // never retried
    const assistant = messages(box).find((m) => m.role === "assistant")
    expect(assistant.error.name).toBe("ProviderAuthError")
  })

  test(`run - ${protocol}: HTTP 500 is retried and the good answer that follows is used`, async () => {
    const box = project(protocol)
    server.script(serverError(), text("Recovered after a retry."))
    const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(r.stderr).not.toMatch(/Error:/)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Recovered after a retry.")
    expect(server.requests).toHaveLength(2)
    const assistant = messages(box).filter((m) => m.role === "assistant")
    expect(assistant).toHaveLength(1)
    expect(assistant[0].error).toBeUndefined()
    expect(assistant[0].finish).toBe("stop")
  })
})

describe("run - retries run out", () => {
  test("run - a 500 that persists fails after 5 retries with exit 1", async () => {
    const box = project()
    server.script(...Array.from({ length: 8 }, () => serverError()))
    const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/Error:/)
    expect(server.requests).toHaveLength(6) // the first attempt and 5 retries, as OpenCode
    const assistant = messages(box).find((m) => m.role === "assistant")
    expect(assistant.error).toMatchObject({ name: "APIError", data: { statusCode: 500 } })
  })
})

describe("run - bad tool calls from the model", () => {
  test("run - malformed tool arguments come back to the model as a tool result it can act on", async () => {
    const box = project()
    server.script({ toolCalls: [{ name: "read", raw: '{"filePath": ' }] }, text("I will fix my call."))
    const r = await wright(["run", "read something"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("I will fix my call.")
    expect(server.requests).toHaveLength(2)
    const result = toolResult(1)
    expect(result).toMatch(/invalid/i)
    expect(result).toContain("read")
  })

  test("run - an unknown tool name comes back to the model naming the tool and the ones it has", async () => {
    const box = project()
    server.script({ toolCalls: [{ name: "frobnicate", input: { level: 3 } }] }, text("Let me use a real tool."))
    const r = await wright(["run", "do it"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Let me use a real tool.")
    expect(server.requests).toHaveLength(2)
    const result = toolResult(1)
    expect(result).toContain("frobnicate")
    expect(result).toMatch(/unavailable|unknown|not found|no such/i)
    expect(result).toContain("read") // the tools it can call instead
  })
})

describe("run - interruption and late failures", () => {
  test("run - one SIGINT aborts a hanging request: exit 130, MessageAbortedError stored, connection released", async () => {
    const box = project()
    server.script({ hang: "after-headers" })
    const child = spawnWright(["run", "hi"], { cwd: box.project, env: box.env })
    const done = finished(child, 30_000)
    await until(() => server.inFlight() === 1, "the request to reach the llm-server")
    child.kill("SIGINT")
    const r = await done
    expect(r.code).toBe(130)
    await until(() => server.inFlight() === 0, "the llm-server connection to be released", 5_000)
    const assistant = messages(box).find((m) => m.role === "assistant")
    expect(assistant.error?.name).toBe("MessageAbortedError")
    expect(assistant.time.completed).toBeGreaterThan(0)
  })

  test("run - a provider error after a long streamed answer still exits 1", async () => {
    // Enough streamed text that the garbage collector runs during the run.
    const box = project()
    const long = Array.from({ length: 20_000 }, (_, i) => `word${i} `)
    server.script({ text: long, toolCalls: [{ name: "bash", input: { command: "echo step", description: "Echo" } }] }, { error: { status: 401 } })
    const r = await wright(["run", "talk, then run a command"], { cwd: box.project, env: box.env })
    expect(r.stderr).toMatch(/Error:/)
    expect(r.code).toBe(1)
  })
})
