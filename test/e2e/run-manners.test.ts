// `wright run` keeps the user informed, through the built binary against the scripted model:
// each retry says why on stderr.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  return box
}

test("run - each retry of the provider is shown on stderr with its reason and attempt", async () => {
  const box = project()
  const busy = { error: { status: 503, headers: { "retry-after-ms": "10" }, body: { error: { message: "the model is overloaded" } } } }
  server.script(busy, busy, text("answered at last"))
  const r = await wright(["run", "hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toBe("answered at last\n")
  const retries = r.stderr.split("\n").filter((l) => l.includes("Retrying"))
  expect(retries).toHaveLength(2)
  expect(retries[0]).toMatch(/attempt 1\b/)
  expect(retries[0]).toContain("overloaded")
  expect(retries[1]).toMatch(/attempt 2\b/)
})
