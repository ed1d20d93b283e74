// `wright run --variant` and the cache figures of `--format json`, with the built binary
// against the scripted Anthropic wire.
import { expect, test } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

function config() {
  return {
    model: "fa/claude-think",
    provider: {
      fa: {
        npm: "@ai-sdk/anthropic",
        options: { baseURL: `${server.url}/v1`, apiKey: "k" },
        models: {
          "claude-think": { reasoning: true, limit: { context: 200_000, output: 64_000 } },
          "claude-plain": { limit: { context: 200_000, output: 8_000 } },
        },
      },
    },
  }
}

test("run --variant - the thinking budget reaches Anthropic; --format json shows each step's cache reads and writes and the session's sums", async () => {
  const box = sandbox()
  writeConfig(box.project, config())
  server.script(
    toolCall("glob", { pattern: "*" }, { usage: { input: 5_000, output: 30, cacheWrite: 4_000 } }),
    text("Done.", { usage: { input: 5_200, output: 10, cacheRead: 4_000, cacheWrite: 1_100 } }),
  )
  const r = await wright(["run", "--variant", "max", "--format", "json", "look around"], { cwd: box.project, env: box.env })
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  for (const req of server.requests) expect(req.body.thinking).toEqual({ type: "enabled", budget_tokens: 31_999 })
  const steps = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "step_finish")
  expect(steps.map((s) => s.part.tokens.cache)).toEqual([
    { read: 0, write: 4_000 },
    { read: 4_000, write: 1_100 },
  ])
  expect(steps.map((s) => s.session.tokens.cache)).toEqual([
    { read: 0, write: 4_000 },
    { read: 4_000, write: 5_100 },
  ])
}, 90_000)

test("run --variant - a model without variants is an error naming the flag and the model", async () => {
  const box = sandbox()
  writeConfig(box.project, config())
  const r = await wright(["run", "-m", "fa/claude-plain", "--variant", "high", "hi"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain('--variant: Model fa/claude-plain has no variants, so variant "high" cannot apply')
  expect(server.requests).toHaveLength(0)
  const typo = await wright(["run", "--variant", "hgih", "hi"], { cwd: box.project, env: box.env })
  expect(typo.code).toBe(1)
  expect(typo.stderr).toContain('--variant: Model fa/claude-think has no variant "hgih" (variant). Its variants: high, max.')
}, 90_000)
