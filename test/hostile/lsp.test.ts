// A cloned repository's code must not run when wright's language servers and formatters look at
// it. The repository plants a fake `node_modules/typescript` (whose tsserver.js writes a marker
// outside the project) and a prettier.config.mjs that does the same; the built binary reads and
// writes its files for a scripted model, in an untrusted folder, with the real
// typescript-language-server and prettier from this repository's node_modules on PATH (as a
// user's global install would be). The markers must never appear. We run as root: the sandbox
// still stops the writes because bwrap mounts everything outside the project read-only (EROFS
// for any uid) and drops every capability.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer, type RecordedRequest } from "../lib/llm-server"
import { ROOT, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"

let server: LLMServer
/** Decides each reply once the script is used up (see poll). */
let next: (req: RecordedRequest) => ReturnType<typeof text> = () => text("done")
beforeAll(async () => {
  server = await startLLMServer({ fallback: (req) => next(req) })
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

const limit = { context: 200_000, output: 8_000 }

/** The text of every tool result in one recorded Chat Completions request. */
function toolResults(req: RecordedRequest): string {
  const messages = (req.body as { messages: { role: string; content: unknown }[] }).messages
  return messages
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n")
}

/** The user's machine: their provider in the global config, this repository's servers on PATH, and a cloned (untrusted) repository. */
function userWithClone(global: Record<string, unknown> = {}): Sandbox & { marker: string } {
  const box = sandbox()
  delete box.env.WRIGHT_TRUST
  box.env.PATH = `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`
  const globalDir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(globalDir, { recursive: true })
  writeConfig(globalDir, {
    model: "fake/chat-model",
    provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${server.url}/v1`, apiKey: "k" }, models: { "chat-model": { limit } } } },
    lsp: { timeout: 60_000 },
    ...global,
  })
  const marker = path.join(box.home, "project-code-ran")
  const p = box.project
  writeFileSync(path.join(p, "package.json"), JSON.stringify({ name: "clone", devDependencies: { prettier: "*", typescript: "*" } }))
  writeFileSync(path.join(p, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, lib: ["es2022"], types: [], noEmit: true } }))
  writeFileSync(path.join(p, "a.ts"), "export const n: number = 1\n")
  // The repository's "TypeScript": typescript-language-server prefers it over its own.
  mkdirSync(path.join(p, "node_modules/typescript/lib"), { recursive: true })
  writeFileSync(path.join(p, "node_modules/typescript/package.json"), JSON.stringify({ name: "typescript", version: "5.9.3", main: "lib/typescript.js" }))
  writeFileSync(path.join(p, "node_modules/typescript/lib/typescript.js"), "module.exports = {}\n")
  writeFileSync(path.join(p, "node_modules/typescript/lib/tsserver.js"), `require("fs").appendFileSync(${JSON.stringify(marker)}, "tsserver\\n")\n`)
  // A formatter's JavaScript config: prettier imports it.
  writeFileSync(path.join(p, "prettier.config.mjs"), `import fs from "node:fs"\nfs.appendFileSync(${JSON.stringify(marker)}, "prettier\\n")\nexport default {}\n`)
  return { ...box, marker }
}

/** What project code ran (one line each: "tsserver", "prettier"); "" for none. */
function ran(marker: string): string {
  return existsSync(marker) ? readFileSync(marker, "utf8") : ""
}

/**
 * After the script: the model reads a.ts again (slowly) until `done(results)` or `maxMs` passed
 * (by the clock: a count of rounds gave a language server on a loaded machine too little time), then answers.
 */
function poll(box: { marker: string }, done: (results: string) => boolean, maxMs = 120_000) {
  let rounds = 0
  let deadline = 0
  next = (req) => {
    deadline ||= Date.now() + maxMs
    rounds++
    if (existsSync(box.marker) || done(toolResults(req)) || Date.now() > deadline) return text("done")
    // A different limit each time: the same call three times over would be a doom loop.
    return toolCall("read", { filePath: "a.ts", limit: 100 + rounds }, { text: ["reading", " again", " once", " more"], delayMs: 150 })
  }
}

test("hostile lsp - reading and editing a .ts file in a cloned repository never runs its TypeScript or its prettier config; wright's own tsserver reports the error, sandboxed", async () => {
  const box = userWithClone()
  server.script(
    toolCall("read", { filePath: "a.ts" }),
    toolCall("edit", { filePath: "a.ts", oldString: "= 1", newString: '= "one"' }),
  )
  poll(box, (r) => r.includes("Type 'string' is not assignable to type 'number'"))
  const r = await wright(["run", "look at a.ts"], { cwd: box.project, env: box.env, timeoutMs: 200_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(ran(box.marker)).toBe("")
  // The server did run (so the test could fail): the error came from wright's own TypeScript.
  const all = toolResults(server.requests.at(-1)!)
  expect(all).toContain("ERROR [1:14] Type 'string' is not assignable to type 'number'.")
  expect(all).toContain("Late diagnostics from the typescript language server")
  // The model and the user are told once how project tools run here.
  expect(all.split("run in wright's sandbox without network").length - 1).toBe(1)
}, 240_000)

test("hostile lsp - with the sandbox off, an untrusted folder's language servers and formatters do not run at all, and the model is told", async () => {
  const box = userWithClone({ sandbox: { mode: "off" } })
  server.script(toolCall("read", { filePath: "a.ts" }), toolCall("edit", { filePath: "a.ts", oldString: "= 1", newString: '= "one"' }))
  poll(box, () => false, 5_000)
  const r = await wright(["run", "look at a.ts"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code, r.stderr).toBe(0)
  expect(ran(box.marker)).toBe("")
  const all = toolResults(server.requests.at(-1)!)
  expect(all).toContain("Edit applied successfully.")
  expect(all).toContain("do not run: this folder is not trusted and the sandbox is off")
}, 180_000)
