// Files a bash command changed get diagnostics like a write's, through the real App: the model
// faked at the wire runs bash, the snapshot store names what the command changed, and the real
// typescript-language-server (from node_modules/.bin, on PATH) reports the error into the bash
// result, which the next request to the model carries. Reading a file starts its server. A
// result never waits for a server that is not warm (test/lsp/diagnostics.test.ts covers the late
// report), so these tests warm the server first, as a read of the project's files would.
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { prompt, testCore } from "../lib/core"
import { sandbox } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"

const BIN = path.resolve("node_modules/.bin")
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: "es2022", lib: ["es2022"], types: [], noEmit: true } })
// A cold tsserver on this shared machine can take many seconds: the bound is not what is tested here.
const SLOW = { lsp: { timeout: 120_000 }, formatter: false }

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

/** A sandbox whose PATH has the real servers from node_modules/.bin. */
function withServers() {
  const box = sandbox()
  box.env.PATH = `${BIN}:${box.env.PATH}`
  return box
}

/** Starts the TypeScript server on `file` and waits until it is connected, as a read before the command would. */
async function warmed(core: Awaited<ReturnType<typeof testCore>>, file: string) {
  core.app.codeIntel.manager.warm(path.join(core.box.project, file))
  const deadline = Date.now() + 120_000
  while (core.app.codeIntel.status()[0]?.status !== "connected" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
}

function toolOutputs(core: Awaited<ReturnType<typeof testCore>>, sessionID: string, tool: string): string[] {
  return core.app.sessions
    .messages(sessionID)
    .flatMap((m) => m.parts)
    .flatMap((p) => (p.type === "tool" && p.tool === tool && p.state.status === "completed" ? [p.state.output] : []))
}

test("bash - a command that writes a type error into a.ts gets the error in its result, and the model's next request carries it", async () => {
  const core = await testCore({ llm, box: withServers(), config: SLOW, files: { "tsconfig.json": TSCONFIG, "b.ts": "export const ok = 1\n" } })
  try {
    await warmed(core, "b.ts")
    const s = await core.client.session.create()
    llm.script(
      toolCall("bash", { command: `printf 'const x: number = "s"\\n' > a.ts`, description: "write a.ts" }),
      toolCall("bash", { command: `printf 'export const x: number = 1\\n' > a.ts && echo fixed`, description: "fix a.ts" }),
      text("done"),
    )
    await core.client.session.prompt(s.id, prompt("make a.ts"))
    const [bad, fixed] = toolOutputs(core, s.id, "bash")
    const file = path.join(core.box.project, "a.ts")
    expect(bad).toContain(`LSP errors detected in a.ts, please fix:\n<diagnostics file="${file}">\nERROR [1:7] Type 'string' is not assignable to type 'number'.\n</diagnostics>`)
    expect(JSON.stringify(llm.requests[1]!.body)).toContain("Type 'string' is not assignable to type 'number'.")
    // The fix comes back clean; b.ts, untouched, is not reported on.
    expect(fixed).toBe("fixed\n")
    expect(core.events).toContainEqual(expect.objectContaining({ type: "lsp.diagnostics", properties: { file, errors: 1, warnings: 0 } }))
    expect(core.events.filter((e) => e.type === "lsp.diagnostics").map((e) => (e.properties as { file: string }).file)).toEqual([file, file])
  } finally {
    await core.close()
  }
}, 240_000)

test("bash - a command that changes no file with a server reports nothing and starts no server", async () => {
  const core = await testCore({ llm, box: withServers(), config: SLOW, files: { "tsconfig.json": TSCONFIG } })
  try {
    const s = await core.client.session.create()
    llm.script(toolCall("bash", { command: "echo hi > notes.txt && echo done", description: "notes" }), text("ok"))
    await core.client.session.prompt(s.id, prompt("notes"))
    expect(toolOutputs(core, s.id, "bash")).toEqual(["done\n"])
    expect(core.app.codeIntel.manager.clients()).toEqual([])
  } finally {
    await core.close()
  }
}, 120_000)

test("bash - a command that changes many files has the first ten checked and says how many were not", async () => {
  const core = await testCore({ llm, box: withServers(), config: SLOW, files: { "tsconfig.json": TSCONFIG, "b.ts": "export const ok = 1\n" } })
  try {
    await warmed(core, "b.ts")
    const s = await core.client.session.create()
    llm.script(toolCall("bash", { command: `for i in $(seq 10 21); do printf 'export const v: number = "s"\n' > f$i.ts; done`, description: "generate" }), text("ok"))
    await core.client.session.prompt(s.id, prompt("generate"))
    const [out] = toolOutputs(core, s.id, "bash")
    expect(out!.match(/LSP errors detected in f\d+\.ts, please fix:/g)).toHaveLength(10)
    expect(out).toMatch(/\n\n2 more changed files were not checked for errors\.$/)
  } finally {
    await core.close()
  }
}, 240_000)

test("read - reading a TypeScript file starts its server in the background, before any edit", async () => {
  const core = await testCore({ llm, box: withServers(), config: SLOW, files: { "tsconfig.json": TSCONFIG, "a.ts": "export const n: number = 1\n" } })
  try {
    const s = await core.client.session.create()
    llm.script(toolCall("read", { filePath: "a.ts" }), text("read it"))
    await core.client.session.prompt(s.id, prompt("read a.ts"))
    const deadline = Date.now() + 120_000
    while (core.app.codeIntel.status().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    expect(core.app.codeIntel.status()).toEqual([{ id: "typescript", name: "typescript", root: ".", status: "connected" }])
  } finally {
    await core.close()
  }
}, 180_000)
