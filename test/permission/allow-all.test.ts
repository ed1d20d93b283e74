// Issue 12, part 3: when every rule that could apply to a command allows it, a command the
// gate cannot read is allowed, not asked. Played end to end: `wright run` (the built binary)
// against the scripted model; the command's effect is checked on disk. With a rule that is
// not allow the same command is still asked, and `run` (without --auto) refuses it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
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

async function runWith(permission: unknown, command: string) {
  const box = sandbox()
  mkdirSync(path.join(box.project, "victims"))
  writeFileSync(path.join(box.project, "victims", "a"), "a\n")
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), permission })
  server.script(toolCall("bash", { command, description: "Run it" }), text("done"))
  const r = await wright(["run", "go"], { cwd: box.project, env: box.env, timeoutMs: 90_000 })
  return { box, r }
}

describe("allow-all means allow", () => {
  test.each([
    ["\"*\": \"allow\"", "allow"],
    ["\"bash\": \"allow\"", { bash: "allow" }],
    ["\"*\": \"allow\" and \"bash\": {\"*\": \"allow\", \"git status\": \"allow\"}", { "*": "allow", bash: { "*": "allow", "git status": "allow" } }],
  ])("allow-all - under %s an unreadable `echo victims/a | xargs rm` runs", async (_name, permission) => {
    const { box, r } = await runWith(permission, "echo victims/a | xargs rm")
    expect(r.stderr).not.toContain("permission requested")
    expect(r.code).toBe(0)
    expect(existsSync(path.join(box.project, "victims", "a"))).toBe(false)
  }, 120_000)

  test("allow-all - with any bash rule that is not allow, the same command is asked and refused in run", async () => {
    const { box, r } = await runWith({ "*": "allow", bash: { "*": "allow", "git push *": "ask" } }, "echo victims/a | xargs rm")
    expect(r.stderr).toContain("permission requested: bash")
    expect(readFileSync(path.join(box.project, "victims", "a"), "utf8")).toBe("a\n")
  }, 120_000)
})
