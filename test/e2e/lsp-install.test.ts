// When a missing language server is installed: npm (seconds of CPU) starts once no tool call
// has run for a second (the model thinking, the user reading), never in the middle of a loop
// whose steps follow each other at once. A one-shot run that ends without such a pause starts
// no npm at all: it would exit before the install could finish. npm here is a stand-in on PATH
// that records its arguments and fails, as an offline npm does.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

/** A fresh HOME and a TypeScript + Python project, downloads allowed, npm a recorder. */
function firstRun(npm = `sleep 0.2\nexit 1`) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeFileSync(path.join(box.project, "package.json"), JSON.stringify({ name: "lib", version: "1.0.0", type: "module" }))
  writeFileSync(path.join(box.project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }))
  writeFileSync(path.join(box.project, "a.ts"), "export const a: number = 1\n")
  writeFileSync(path.join(box.project, "b.py"), "b = 1\n")
  const bin = path.join(box.home, "fake-bin")
  mkdirSync(bin)
  const calls = path.join(box.home, "npm-calls")
  writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "$*" >> '${calls}'\n${npm}\n`, { mode: 0o755 })
  // Not this repository's node_modules/.bin (npx puts it on PATH): it holds the servers.
  const system = (box.env.PATH ?? "").split(path.delimiter).filter((d) => !d.includes("node_modules"))
  box.env = { ...box.env, PATH: [bin, ...system].join(path.delimiter) }
  delete box.env.WRIGHT_DISABLE_LSP_DOWNLOAD
  const npmCalls = () => (existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : [])
  return { box, npmCalls }
}

/**
 * The model "thinking" over its next step: it holds after a few words until npm has started (or
 * 30 s passed), where a fixed 1.8 s stream raced the one-second idle timer on a loaded machine.
 */
function thinking(npmCalls: () => string[]) {
  const started = (async () => {
    for (const end = Date.now() + 30_000; npmCalls().length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50))
  })()
  return { text: ["Let me", " think", " about", " it."], delayMs: 300, gate: { after: 2, open: started } }
}

test("lsp install - a run whose steps follow each other at once (one a long command) starts no npm; its edits say diagnostics are pending", async () => {
  const { box, npmCalls } = firstRun()
  server.script(
    toolCall("read", { filePath: "a.ts" }),
    toolCall("edit", { filePath: "a.ts", oldString: "= 1", newString: "= 2" }),
    toolCall("read", { filePath: "b.py" }),
    toolCall("edit", { filePath: "b.py", oldString: "= 1", newString: "= 2" }),
    // A command that takes a while is busy too: no install starts while it runs.
    toolCall("bash", { command: "sleep 1.5; cat a.ts", description: "Show a.ts" }),
    text("Done."),
  )
  const r = await wright(["run", "edit both"], { cwd: box.project, env: box.env })
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain("Done.")
  expect(readFileSync(path.join(box.project, "a.ts"), "utf8")).toBe("export const a: number = 2\n")
  expect(npmCalls()).toEqual([])
  expect(r.stderr).not.toMatch(/Installing the/)
  // Nothing was tried, so nothing is remembered as failed: the next session installs.
  expect(existsSync(path.join(box.home, "cache", "wright", "lsp", "npm", "typescript-5.3.0-5.9.3.failed"))).toBe(false)
  const results = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === "tool").map((m) => String(m.content))
  expect(results[1]).toContain("Diagnostics pending: the typescript language server is not ready yet")
})

test("lsp install - once no tool has run for a second (the model thinking), the server's install starts, one npm for it", async () => {
  const { box, npmCalls } = firstRun()
  server.script(
    toolCall("read", { filePath: "a.ts" }),
    // The model takes its time over the next step: the App is idle meanwhile.
    toolCall("edit", { filePath: "a.ts", oldString: "= 1", newString: "= 2" }, thinking(npmCalls)),
    text("Done."),
  )
  const r = await wright(["run", "edit a.ts"], { cwd: box.project, env: box.env })
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain("Done.")
  const calls = npmCalls()
  expect(calls).toHaveLength(1)
  expect(calls[0]).toMatch(/^install .*--ignore-scripts typescript-language-server@5\.3\.0 typescript@5\.9\.3$/)
}, 60_000)

test("lsp install - an install cut short because the run ended is not remembered as a failure: the next session installs", async () => {
  // An npm still downloading when the run's answer comes.
  const { box, npmCalls } = firstRun(`sleep 30\nexit 1`)
  server.script(
    toolCall("read", { filePath: "a.ts" }),
    toolCall("edit", { filePath: "a.ts", oldString: "= 1", newString: "= 2" }, thinking(npmCalls)),
    text("Done."),
  )
  const r = await wright(["run", "edit a.ts"], { cwd: box.project, env: box.env })
  expect(r.code, r.stderr).toBe(0)
  expect(npmCalls()).toHaveLength(1)
  const root = path.join(box.home, "cache", "wright", "lsp", "npm", "typescript-5.3.0-5.9.3")
  expect(existsSync(`${root}.failed`)).toBe(false)
  expect(existsSync(path.join(root, ".installed"))).toBe(false)
}, 60_000)
