// The lsp tool against the real typescript-language-server, and its gate: off unless the
// experimental flag is set, as in OpenCode.
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, beforeAll, expect, test } from "vitest"
import { createCodeIntel, type CodeIntel } from "../../src/lsp"
import { createExec } from "../../src/process"
import { createApp } from "../../src/session"
import { openStore } from "../../src/storage"
import { lspTool } from "../../src/tool"
import { sandbox } from "../lib/e2e"
import { tempDir, toolContext, type TestContext } from "../lib/tool-context"

const BIN = path.resolve("node_modules/.bin")
const env = { PATH: `${BIN}:${process.env.PATH}`, HOME: process.env.HOME }
let intel: CodeIntel
let ctx: TestContext
let dir: string

beforeAll(() => {
  dir = tempDir("wright-lsp-tool-")
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, lib: ["es2022"], types: [], noEmit: true } }))
  writeFileSync(path.join(dir, "greet.ts"), "/** Says hello. */\nexport function greet(name: string): string {\n  return `hello ${name}`\n}\nexport const twice = greet(greet(\"x\"))\n")
  writeFileSync(path.join(dir, "main.ts"), 'import { greet } from "./greet"\n\nconsole.log(greet("you"))\n')
  intel = createCodeIntel({ config: { formatter: false, lsp: { timeout: 120_000 } } as Record<string, unknown>, exec: createExec({ env }), directory: dir, env, trusted: true, publish: () => {} })
  ctx = toolContext({ directory: dir })
  ctx.services.lsp = intel.queries
})
afterAll(() => intel.shutdown())

test("lsp tool - goToDefinition, hover, findReferences, documentSymbol and workspaceSymbol answer from the server", async () => {
  const def = await lspTool.execute({ operation: "goToDefinition", filePath: "greet.ts", line: 5, character: 22 }, ctx)
  expect(def.metadata.results).toEqual([expect.objectContaining({ uri: expect.stringMatching(/\/greet\.ts$/), range: expect.objectContaining({ start: { line: 1, character: 16 } }) })])
  expect(ctx.asks.at(-1)).toMatchObject({ permission: "lsp", patterns: ["greet.ts"] })

  const hover = await lspTool.execute({ operation: "hover", filePath: "main.ts", line: 3, character: 13 }, ctx)
  expect(hover.output).toContain("(alias) greet(name: string): string")
  expect(hover.output).toContain("Says hello.")

  const refs = await lspTool.execute({ operation: "findReferences", filePath: "greet.ts", line: 2, character: 17 }, ctx)
  const files = (refs.metadata.results as { uri: string }[]).map((r) => path.basename(r.uri)).sort()
  expect(files).toEqual(["greet.ts", "greet.ts", "greet.ts", "main.ts", "main.ts"])

  const symbols = await lspTool.execute({ operation: "documentSymbol", filePath: "greet.ts" }, ctx)
  expect((symbols.metadata.results as { name: string }[]).map((s) => s.name)).toEqual(["greet", "twice"])

  const ws = await lspTool.execute({ operation: "workspaceSymbol", filePath: "main.ts", query: "greet" }, ctx)
  expect(ws.output).toContain('"name": "greet"')
}, 240_000)

test("lsp tool - a position is required where the operation needs one", async () => {
  await expect(lspTool.execute({ operation: "hover", filePath: "main.ts" }, ctx)).rejects.toThrow("hover needs line and character (1-based)")
})

test("lsp tool - offered only when the experimental flag is set", async () => {
  for (const flag of [undefined, "1"]) {
    const box = sandbox()
    const store = openStore(":memory:")
    const app = await createApp({ directory: box.project, store, env: { ...box.env, OPENCODE_EXPERIMENTAL_LSP_TOOL: flag }, home: box.home, version: "test" })
    expect(app.registry.get("lsp") !== undefined).toBe(flag === "1")
    await app.dispose()
    store.close()
  }
})
