import { expect, test } from "vitest"
import { text } from "../lib/llm-server"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

test("manage - models, session list/delete, export and agent list work through the API", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const opts = { cwd: box.project, env: box.env }
  server.script(text("first answer"))
  expect((await wright(["run", "hello"], opts)).code).toBe(0)

  const models = await wright(["models"], opts)
  expect(models.stdout).toContain("fake/chat-model (default)")

  const list = await wright(["session", "list", "--format", "json"], opts)
  const sessions = JSON.parse(list.stdout)
  expect(sessions).toHaveLength(1)

  const exported = JSON.parse((await wright(["export"], opts)).stdout)
  expect(exported.info.id).toBe(sessions[0].id)
  expect(exported.messages.map((m: { info: { role: string } }) => m.info.role)).toEqual(["user", "assistant"])

  const agents = await wright(["agent", "list"], opts)
  expect(agents.stdout).toMatch(/^build \(primary\)/m)
  expect(agents.stdout).not.toMatch(/^title/m)

  const missing = await wright(["session", "delete", "ses_nope"], opts)
  expect(missing.code).toBe(1)
  expect(missing.stderr).toContain("no session with id ses_nope")
  expect((await wright(["session", "delete", sessions[0].id], opts)).code).toBe(0)
  expect(JSON.parse((await wright(["session", "list", "--format", "json"], opts)).stdout)).toEqual([])
})

test("manage - models for an unknown provider names the usable ones", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "anthropic"))
  const r = await wright(["models", "nope"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain('no usable provider "nope". Usable: fakeanthropic')
})
