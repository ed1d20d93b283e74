// The subscription sign-ins through the built binary, against fakes of GitHub and OpenAI on
// loopback (the test hooks WRIGHT_GITHUB_URL, WRIGHT_GITHUB_API_URL, WRIGHT_OPENAI_AUTH_URL,
// WRIGHT_CHATGPT_URL, WRIGHT_OPENAI_CALLBACK_PORT): `wright auth login github-copilot` prints the
// code and waits for GitHub; `wright auth login chatgpt` prints the page, and the test plays the
// browser; `auth list` names the method; `wright run` then reaches the llm-server with the
// login's headers, and a revoked login ends the run telling the user to sign in again.
import { spawn } from "node:child_process"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { finished, LAUNCHER, sandbox, spawnWright, waitForOutput, wright, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { startFakeGitHub, startFakeOpenAIAuth, type FakeGitHub, type FakeOpenAIAuth } from "../lib/login-fakes"

let github: FakeGitHub
let openai: FakeOpenAIAuth
let llm: LLMServer
beforeAll(async () => {
  ;[github, openai, llm] = await Promise.all([startFakeGitHub(), startFakeOpenAIAuth(), startLLMServer()])
  github.endpoint = `${llm.url}/v1`
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => Promise.all([github.close(), openai.close(), llm.close()]))

function box(): Sandbox {
  const b = sandbox()
  Object.assign(b.env, {
    WRIGHT_GITHUB_URL: github.url,
    WRIGHT_GITHUB_API_URL: github.url,
    WRIGHT_OPENAI_AUTH_URL: openai.url,
    WRIGHT_CHATGPT_URL: `${llm.url}/v1`,
    WRIGHT_OPENAI_CALLBACK_PORT: "0",
  })
  return b
}
const authFile = (b: Sandbox) => path.join(b.env.XDG_DATA_HOME!, "wright", "auth.json")

test("login - wright auth login github-copilot prints the code, waits for GitHub, stores the login; auth list and run use it", async () => {
  const b = box()
  github.device = { interval: 1, expires_in: 900 }
  github.polls = ["authorization_pending", "gho_github_token"]
  const login = await wright(["auth", "login", "github-copilot"], { cwd: b.project, env: b.env })
  expect(login.code, login.stderr).toBe(0)
  expect(login.stdout).toContain("https://github.com/login/device")
  expect(login.stdout).toContain("WDJB-MJHT")
  expect(login.stdout + login.stderr).not.toContain("gho_github_token")
  const stored = JSON.parse(readFileSync(authFile(b), "utf8"))["github-copilot"]
  expect(stored).toMatchObject({ type: "oauth", refresh: "gho_github_token", access: github.issued.at(-1) })
  expect(statSync(authFile(b)).mode & 0o777).toBe(0o600)

  const list = await wright(["auth", "list"], { cwd: b.project, env: b.env })
  expect(list.code, list.stderr).toBe(0)
  expect(list.stdout).toMatch(/github-copilot\s+…\s+oauth \(GitHub Copilot sign-in, .*access token expires \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
  expect(list.stdout).not.toContain(github.issued.at(-1)!)

  llm.script(text("Hello from Copilot."))
  const run = await wright(["run", "-m", "github-copilot/gpt-4.1", "hi"], { cwd: b.project, env: b.env })
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toContain("Hello from Copilot.")
  expect(llm.requests[0]!.headers.authorization).toBe(`Bearer ${github.issued.at(-1)}`)
  expect(llm.requests[0]!.headers["copilot-integration-id"]).toBe("vscode-chat")

  // GitHub revokes the token and the Copilot token expires: the run says to sign in again.
  const entry = JSON.parse(readFileSync(authFile(b), "utf8"))["github-copilot"]
  writeFileSync(authFile(b), JSON.stringify({ "github-copilot": { ...entry, refresh: "gho_revoked", expires: Date.now() - 1000 } }), { mode: 0o600 })
  const revoked = await wright(["run", "-m", "github-copilot/gpt-4.1", "hi"], { cwd: b.project, env: b.env })
  expect(revoked.code).not.toBe(0)
  expect(revoked.stdout + revoked.stderr).toContain("sign in again with `wright auth login github-copilot`")
  expect(llm.requests).toHaveLength(1)
})

test("login - wright auth login chatgpt: the browser's return signs in; run reaches the Codex backend with the account header", async () => {
  const b = box()
  const child = spawnWright(["auth", "login", "chatgpt", "--no-browser"], { cwd: b.project, env: b.env })
  await waitForOutput(child, (o) => o.stdout.includes("/oauth/authorize?"))
  const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(child.output.stdout)![1]!
  const authorize = await fetch(url, { redirect: "manual" })
  const callback = new URL(authorize.headers.get("location")!)
  const forged = new URL(callback)
  forged.searchParams.set("state", "forged")
  expect((await fetch(forged)).status).toBe(400)
  expect((await fetch(callback)).status).toBe(200)
  const done = await finished(child)
  expect(done.code, done.stderr).toBe(0)
  expect(done.stdout).toContain("Signed in")
  const stored = JSON.parse(readFileSync(authFile(b), "utf8")).openai
  expect(stored).toMatchObject({ type: "oauth", accountId: "acct-1234", access: openai.issued.at(-1) })

  const list = await wright(["auth", "list"], { cwd: b.project, env: b.env })
  expect(list.stdout).toMatch(/openai\s+…\s+oauth \(ChatGPT sign-in/)

  llm.script(text("Hello from ChatGPT."))
  const run = await wright(["run", "-m", "openai/gpt-5", "hi"], { cwd: b.project, env: b.env })
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toContain("Hello from ChatGPT.")
  const sent = llm.requests[0]!
  expect(sent.path).toBe("/v1/responses")
  expect(sent.headers.authorization).toBe(`Bearer ${openai.issued.at(-1)}`)
  expect(sent.headers["chatgpt-account-id"]).toBe("acct-1234")
  expect(sent.body.store).toBe(false)

  const logout = await wright(["auth", "logout", "chatgpt"], { cwd: b.project, env: b.env })
  expect(logout.code, logout.stderr).toBe(0)
  expect(logout.stdout).toContain("Signed out of openai")
  expect(JSON.parse(readFileSync(authFile(b), "utf8"))).toEqual({})
})

test("login - on a terminal, wright auth login lists the two sign-ins first; answering 1 signs in to GitHub Copilot", async () => {
  const b = box()
  github.device = { interval: 1, expires_in: 900 }
  github.polls = ["gho_github_token"]
  // util-linux `script` gives wright a pseudo-terminal (the list is only offered on one); the answer is typed into it.
  const child = spawn("script", ["-qec", `${LAUNCHER} auth login`, "/dev/null"], { cwd: b.project, env: { ...b.env, WRIGHT_NODE: process.execPath, TERM: "dumb" } })
  let output = ""
  child.stdout.on("data", (d) => (output += d))
  child.stderr.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
  const until = async (text: string) => {
    for (let i = 0; i < 300 && !output.includes(text); i++) await new Promise((r) => setTimeout(r, 50))
    expect(output).toContain(text)
  }
  await until("Number or name:")
  expect(output).toMatch(/1\. github-copilot\s+GitHub Copilot: sign in with GitHub/)
  expect(output).toMatch(/2\. chatgpt\s+ChatGPT \(Plus\/Pro\)/)
  child.stdin.write("1\r")
  await until("Signed in")
  expect(await exited).toBe(0)
  expect(output).toContain("WDJB-MJHT")
  expect(JSON.parse(readFileSync(authFile(b), "utf8"))["github-copilot"]).toMatchObject({ type: "oauth", refresh: "gho_github_token" })
})
