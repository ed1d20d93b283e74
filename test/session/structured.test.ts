import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const schema = {
  type: "object",
  properties: { files: { type: "integer" }, language: { type: "string", enum: ["ts", "py"] } },
  required: ["files", "language"],
  additionalProperties: false,
}

test("structured output - a valid StructuredOutput call is stored on the message and ends the run", async () => {
  const core = await testCore({ llm })
  llm.script(toolCall("StructuredOutput", { files: 3, language: "ts" }))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("count files", { format: { type: "json_schema", schema } }))
  expect(result.info.role === "assistant" && result.info.structured).toEqual({ files: 3, language: "ts" })
  const body = llm.requests[0]!.body
  expect(body.tool_choice).toBe("required")
  expect(JSON.stringify(body.messages.slice(0, 2))).toContain("requested structured output")
  const tool = body.tools.find((t: { function: { name: string } }) => t.function.name === "StructuredOutput")
  expect(tool.function.parameters.properties.language.enum).toEqual(["ts", "py"])
  expect(llm.requests).toHaveLength(1)
  await core.close()
})

test("structured output - invalid input is refused with the reasons and retried", async () => {
  const core = await testCore({ llm })
  llm.script(toolCall("StructuredOutput", { files: "three", language: "rust" }), toolCall("StructuredOutput", { files: 3, language: "py" }))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("count", { format: { type: "json_schema", schema } }))
  expect(result.info.role === "assistant" && result.info.structured).toEqual({ files: 3, language: "py" })
  expect(JSON.stringify(llm.requests[1]!.body)).toContain("does not match the schema")
})

test("structured output - a model that keeps failing ends with StructuredOutputError", async () => {
  const core = await testCore({ llm })
  llm.script(
    toolCall("StructuredOutput", { files: "x" }),
    toolCall("StructuredOutput", { files: "y" }),
    toolCall("StructuredOutput", { files: "z" }),
  )
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("count", { format: { type: "json_schema", schema, retryCount: 2 } }))
  expect(result.info.role === "assistant" && result.info.error?.name).toBe("StructuredOutputError")
  expect(llm.requests).toHaveLength(3)
  await core.close()
})

test("structured output - answering in plain text instead is a StructuredOutputError", async () => {
  const core = await testCore({ llm })
  llm.script(text("there are three files"))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("count", { format: { type: "json_schema", schema } }))
  expect(result.info.role === "assistant" && result.info.error).toMatchObject({ name: "StructuredOutputError", data: { message: "Model did not produce structured output" } })
  await core.close()
})
