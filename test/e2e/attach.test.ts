import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { createClient } from "../../src/sdk"
import { providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { startServe, stopServe, type Served } from "./serve-helpers"

let llm: LLMServer
let served: Served | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  if (served) await stopServe(served)
  served = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("attach - run --attach sends the run to a running server without a password", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  served = await startServe(box)
  llm.script(text("Answered by the attached server."))
  const r = await wright(["run", "--attach", served.url, "say something"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Answered by the attached server.")
  const sessions = await createClient({ baseUrl: served.url, directory: box.project }).session.list()
  expect(sessions).toHaveLength(1)
})

test("attach - with a password: -p or WRIGHT_SERVER_PASSWORD gets in, no password is refused", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  served = await startServe(box, [], { WRIGHT_SERVER_PASSWORD: "open sesame" })

  llm.script(text("Hello with -p."))
  const withFlag = await wright(["run", "--attach", served.url, "-p", "open sesame", "hi"], { cwd: box.project, env: box.env })
  expect(withFlag.code).toBe(0)
  expect(withFlag.stdout).toContain("Hello with -p.")

  llm.script(text("Hello with the variable."))
  const withEnv = await wright(["run", "--attach", served.url, "hi"], { cwd: box.project, env: { ...box.env, WRIGHT_SERVER_PASSWORD: "open sesame" } })
  expect(withEnv.code).toBe(0)
  expect(withEnv.stdout).toContain("Hello with the variable.")

  const without = await wright(["run", "--attach", served.url, "hi"], { cwd: box.project, env: box.env })
  expect(without.code).toBe(1)
  expect(without.stderr).toContain("Unauthorized")
  const wrong = await wright(["run", "--attach", served.url, "-p", "guess", "hi"], { cwd: box.project, env: box.env })
  expect(wrong.code).toBe(1)
  expect(wrong.stderr).toContain("Unauthorized")

  const sessions = await createClient({ baseUrl: served.url, directory: box.project, auth: { password: "open sesame" } }).session.list()
  expect(sessions).toHaveLength(2)
  expect(llm.requests).toHaveLength(2)
})
