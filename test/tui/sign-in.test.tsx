// /connect's subscription sign-ins through a real core (its HTTP API in-process) against fakes
// of GitHub and OpenAI on loopback: the list offers GitHub Copilot and ChatGPT first; choosing
// Copilot prints the page and the device code, the core polls GitHub, and once the code is
// "entered" the login is stored and its models are listed. The ChatGPT route pair is driven as
// a client would (the test plays the browser).
import { readFileSync } from "node:fs"
import path from "node:path"
import { cleanup, render } from "ink-testing-library"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { App } from "../../src/tui/app"
import { createController } from "../../src/tui/controller"
import { createStore } from "../../src/tui/store"
import { testCore, type TestCore } from "../lib/core"
import { sandbox } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { startFakeGitHub, startFakeOpenAIAuth, type FakeGitHub, type FakeOpenAIAuth } from "../lib/login-fakes"
import { tick } from "./stub"

let github: FakeGitHub
let openai: FakeOpenAIAuth
let llm: LLMServer
let core: TestCore | undefined
beforeAll(async () => {
  ;[github, openai, llm] = await Promise.all([startFakeGitHub(), startFakeOpenAIAuth(), startLLMServer()])
  github.endpoint = `${llm.url}/v1`
})
afterEach(async () => {
  cleanup()
  await core?.close()
  core = undefined
})
afterAll(() => Promise.all([github.close(), openai.close(), llm.close()]))

async function start() {
  const box = sandbox()
  Object.assign(box.env, { WRIGHT_GITHUB_URL: github.url, WRIGHT_GITHUB_API_URL: github.url, WRIGHT_OPENAI_AUTH_URL: openai.url, WRIGHT_OPENAI_CALLBACK_PORT: "0" })
  core = await testCore({ llm, box })
  return { core, authFile: path.join(box.env.XDG_DATA_HOME!, "wright", "auth.json") }
}

async function until(check: () => boolean, ms = 10_000) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out")
    await tick(50)
  }
}

test("tui connect - /connect offers the two sign-ins first; choosing GitHub Copilot shows the code, waits for GitHub, stores the login and lists its models", async () => {
  const { core, authFile } = await start()
  github.device = { interval: 1, expires_in: 900 }
  github.polls = ["authorization_pending", "gho_github_token"]
  const store = createStore()
  const controller = createController({ client: core.client, store, directory: core.box.project, remember: () => {} })
  const ui = render(<App store={store} controller={controller} onExit={() => {}} />)
  await controller.boot()
  ui.stdin.write("/connect")
  await tick()
  ui.stdin.write("\r")
  await until(() => ui.lastFrame()!.includes("Connect a provider"))
  const list = ui.lastFrame()!
  expect(list).toMatch(/github-copilot\s+GitHub Copilot · sign in with GitHub/)
  expect(list).toMatch(/chatgpt\s+ChatGPT Plus\/Pro · sign in/)
  expect(list.indexOf("github-copilot")).toBeLessThan(list.indexOf("anthropic"))

  ui.stdin.write("\r")
  await until(() => ui.lastFrame()!.includes("WDJB-MJHT"))
  expect(ui.lastFrame()).toContain("https://github.com/login/device")
  await until(() => ui.lastFrame()!.includes("Signed in to GitHub Copilot"))
  expect(JSON.parse(readFileSync(authFile, "utf8"))["github-copilot"]).toMatchObject({ type: "oauth", refresh: "gho_github_token" })
  for (const frame of ui.frames) expect(frame).not.toContain("gho_github_token")
  const providers = await core.client.config.providers()
  expect(providers.providers.map((p) => p.id)).toContain("github-copilot")
})

test("provider oauth routes - ChatGPT: authorize answers the page, the browser's return (right state only) finishes callback, and the login is stored", async () => {
  const { core, authFile } = await start()
  expect((await core.client.provider.auth()).openai!.map((m) => m.type)).toEqual(["oauth", "api"])
  const started = await core.client.provider.oauth.authorize("openai", { method: 0 })
  expect(started.method).toBe("auto")
  const callback = core.client.provider.oauth.callback("openai", { method: 0 })
  const authorize = await fetch(started.url, { redirect: "manual" })
  const back = new URL(authorize.headers.get("location")!)
  const forged = new URL(back)
  forged.searchParams.set("state", "forged")
  expect((await fetch(forged)).status).toBe(400)
  expect((await fetch(back)).status).toBe(200)
  expect(await callback).toBe(true)
  expect(JSON.parse(readFileSync(authFile, "utf8")).openai).toMatchObject({ type: "oauth", accountId: "acct-1234" })
  const answer = JSON.stringify(await core.client.provider.list())
  expect(answer).not.toContain(openai.issued.at(-1)!)
  await expect(core.client.provider.oauth.authorize("anthropic", { method: 0 })).rejects.toThrow(/has no sign-in/)
})
