// The built binary's log (--print-logs, --log-level, the file under the state dir) and the
// config warnings `run` and `serve` print. `npm run build` first.
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { providerConfig, sandbox, spawnWright, waitForOutput, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { stopServe } from "./serve-helpers"

let server: LLMServer
// Title requests go "on the side": each one fails at the wire, as a provider outage would.
beforeAll(async () => {
  server = await startLLMServer({ side: () => ({ error: { status: 500, body: { error: { message: "title backend down" } } } }) })
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

const logFiles = (box: Sandbox) => {
  const dir = path.join(box.home, "state", "wright", "log")
  return readdirSync(dir).map((name) => path.join(dir, name))
}
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1

/**
 * An answer that holds after its first event until the run's log file tells the title request
 * failed (or 30 s passed): the run does not wait for its title, and a fixed slow answer raced it.
 */
function afterTitleFails(box: Sandbox, answer: string) {
  const failures = () => {
    try {
      return logFiles(box).reduce((n, f) => n + count(readFileSync(f, "utf8"), "title generation failed"), 0)
    } catch {
      return 0 // no log yet
    }
  }
  // An earlier run's failures in the same home do not count.
  const before = failures()
  const failed = () => failures() > before
  const open = (async () => {
    for (const end = Date.now() + 30_000; !failed() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50))
  })()
  return text(answer, { delayMs: 100, gate: { after: 1, open } })
}

test("logs - run --print-logs shows the run's log lines on stderr, and the same lines are in the file under the state dir", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  // The answer comes once the background title request has failed: that is logged too.
  server.script(afterTitleFails(box, "Hello there."))
  const r = await wright(["run", "--print-logs", "say hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Hello there.")
  expect(r.stderr).toMatch(/^INFO  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \+\d+ms service=core wright started version=\S+ pid=\d+ directory=\S+ trusted=true startup=(esm|snapshot)$/m)
  expect(r.stderr).toMatch(/^INFO  .* service=run session id=ses_\w+$/m)
  expect(r.stderr).toMatch(/^INFO  .* service=run run finished exit=0$/m)
  // The swallowed background failure is told, with the error the provider gave.
  expect(r.stderr).toMatch(/^WARN  .* service=title title generation failed session=ses_\w+ attempt=1 error=".*title backend down.*"$/m)

  const files = logFiles(box)
  expect(files).toHaveLength(1)
  const logged = readFileSync(files[0]!, "utf8")
  const stderrLines = r.stderr.split("\n").filter((l) => /^(DEBUG|INFO |WARN |ERROR) /.test(l))
  expect(stderrLines.length).toBeGreaterThanOrEqual(4)
  expect(logged.trimEnd().split("\n")).toEqual(stderrLines)
})

test("logs - without --print-logs nothing reaches stderr but the file; --log-level WARN keeps warnings and drops info", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  server.script(text("Quiet.", { delayMs: 100 }))
  const quiet = await wright(["run", "say hi"], { cwd: box.project, env: box.env })
  expect(quiet.code).toBe(0)
  expect(quiet.stderr).not.toMatch(/^(INFO |WARN ) /m)
  expect(readFileSync(logFiles(box)[0]!, "utf8")).toContain("service=run run finished exit=0")

  server.script(afterTitleFails(box, "Warned."))
  const warn = await wright(["run", "--print-logs", "--log-level", "WARN", "say hi"], { cwd: box.project, env: box.env })
  expect(warn.code).toBe(0)
  expect(warn.stderr).not.toMatch(/^INFO  /m)
  expect(warn.stderr).toMatch(/^WARN  .* service=title title generation failed/m)
})

test("logs - the config's logLevel applies when no flag is given; the flag wins over it", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), logLevel: "ERROR" })
  server.script(text("One.", { delayMs: 100 }), text("Two.", { delayMs: 100 }))
  const byConfig = await wright(["run", "--print-logs", "say hi"], { cwd: box.project, env: box.env })
  expect(byConfig.code).toBe(0)
  expect(byConfig.stderr).not.toMatch(/^(INFO |WARN ) /m)
  const byFlag = await wright(["run", "--print-logs", "--log-level", "info", "say hi"], { cwd: box.project, env: box.env })
  expect(byFlag.stderr).toMatch(/^INFO  .* service=run run finished exit=0$/m)
})

test("logs - an unknown key prints one warning naming the file on run's stderr; a key wright acts on (lsp) prints none", async () => {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), keybinds: { leader: "ctrl+x" }, lsp: { ts: { command: ["typescript-language-server", "--stdio"] } } })
  server.script(text("Done."))
  const r = await wright(["run", "say hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  const file = path.join(box.project, "wright.json")
  expect(count(r.stderr, `Warning: ${file}: unknown key "keybinds" ignored\n`)).toBe(1)
  expect(count(r.stderr, "Warning:")).toBe(1)
})

test("logs - serve listens on the global config's server.port when --port is not given, and prints the config warnings once", async () => {
  const box = sandbox()
  const port = await freePort()
  const globalDir = path.join(box.home, "config", "wright")
  mkdirSync(globalDir, { recursive: true })
  writeConfig(globalDir, { server: { port }, bogus: true })
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const child = spawnWright(["serve"], { cwd: box.project, env: box.env })
  try {
    await waitForOutput(child, (o) => /listening on http:\/\/\S+\n/.test(o.stdout))
    expect(child.output.stdout).toContain(`listening on http://127.0.0.1:${port}`)
    expect(count(child.output.stderr, 'unknown key "bogus" ignored')).toBe(1)
  } finally {
    await stopServe(Object.assign(child, { url: "" }))
  }
})

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}
