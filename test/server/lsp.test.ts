// GET /lsp and GET /formatter through the SDK client, and the lsp.* events on the bus, with
// an App whose model edits a file: servers appear only once a file of their language is written.
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { prompt, testCore } from "../lib/core"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const STUB = path.resolve("test/lsp/fixtures/stub-server.mjs")

test("lsp routes - GET /lsp lists a server once a file of its language is written; GET /formatter says which apply", async () => {
  const core = await testCore({
    llm,
    files: { "a.stub": "one\n", "package.json": JSON.stringify({ name: "x", devDependencies: { prettier: "^3" } }) },
    config: { lsp: { timeout: 2000, stub: { command: [process.execPath, STUB, "crash"], extensions: [".stub"] } } },
  })
  core.box.env.PATH = `${path.resolve("node_modules/.bin")}:${process.env.PATH}`
  expect(await core.client.lsp.status()).toEqual([])
  const formatters = await core.client.formatter.status()
  expect(formatters.find((f) => f.name === "prettier")).toMatchObject({ enabled: true, extensions: expect.arrayContaining([".ts", ".json"]) })
  // clang-format applies only with a .clang-format, which this project lacks (gofmt, installed with Go, would apply).
  expect(formatters.find((f) => f.name === "clang-format")).toMatchObject({ enabled: false })

  llm.script(toolCall("edit", { filePath: "a.stub", oldString: "one", newString: "two" }), text("done"))
  const session = await core.client.session.create({})
  await core.client.session.prompt(session.id, prompt("edit it"))
  // The edit did not wait for the server: it comes up (and crashes) in the background.
  let status = await core.client.lsp.status()
  for (let i = 0; i < 100 && status.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100))
    status = await core.client.lsp.status()
  }
  expect(status).toEqual([{ id: "stub", name: "stub", root: ".", status: "error", error: "the server exited" }])
  expect(core.events.some((e) => e.type === "lsp.updated")).toBe(true)
  // A server that never reported is not published as "0 errors".
  expect(core.events.some((e) => e.type === "lsp.diagnostics")).toBe(false)
  await core.close()
}, 60_000)
