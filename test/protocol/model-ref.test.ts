// "provider/model" has one reading (protocol's parseModelRef): the first "/" splits, both
// sides non-empty, and the error names the field. Every place that reads one uses it.
import { expect, test } from "vitest"
import { createAgents } from "../../src/agent"
import { parseConfigText } from "../../src/config"
import { BadRequestError, parseModelRef } from "../../src/protocol"

test.each([
  ["anthropic/claude-sonnet-4-5", { providerID: "anthropic", modelID: "claude-sonnet-4-5" }],
  ["openrouter/anthropic/claude-sonnet-4.5", { providerID: "openrouter", modelID: "anthropic/claude-sonnet-4.5" }],
  ["ollama/qwen3:8b", { providerID: "ollama", modelID: "qwen3:8b" }],
  ["p/m/", { providerID: "p", modelID: "m/" }],
])("model ref - %s splits at the first slash", (text, ref) => {
  expect(parseModelRef(text)).toEqual(ref)
})

test.each(["gpt-5", "", "/claude", "anthropic/", "/"])("model ref - %j is refused with a BadRequestError naming the field", (text) => {
  const e = (() => {
    try {
      parseModelRef(text, "agent.build.model")
    } catch (e) {
      return e
    }
  })()
  expect(e).toBeInstanceOf(BadRequestError)
  const err = e as InstanceType<typeof BadRequestError>
  expect(err.message).toBe(`agent.build.model: expected "provider/model" (e.g. anthropic/claude-sonnet-4-5), got ${JSON.stringify(text)}`)
  expect(err.data.issues).toEqual([{ path: "agent.build.model", message: expect.stringContaining('expected "provider/model"') }])
})

test("model ref - an agent's model in config is read by the same rule, naming agent.<name>.model", () => {
  const agents = (model: string) =>
    createAgents({ config: parseConfigText(JSON.stringify({ agent: { build: { model } } }), "wright.json"), dirs: [], toolOutputDir: "/tmp/wright-tool-output", home: "/home/u" })
  expect(agents("openrouter/a/b").require("build").model).toEqual({ providerID: "openrouter", modelID: "a/b" })
  // The old rule there let an empty model through.
  expect(() => agents("anthropic/")).toThrow('agent.build.model: expected "provider/model"')
})
