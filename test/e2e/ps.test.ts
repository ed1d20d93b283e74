// `wright ps` through the built binary: a `run` working in one project and a `serve` whose
// session waits for a permission in another are both listed, with their state, directory and
// model, from a third process; once the working process is killed its session is gone.
import { mkdirSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { providerConfig, sandbox, spawnWright, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { send, startServe, stopServe } from "./serve-helpers"

const llm = useLLMServer()

interface Entry {
  id: string
  state: string
  waiting?: string
  directory: string
  model?: string
  title: string
  cost: number
  time: { since: number }
}

async function psUntil(env: NodeJS.ProcessEnv, cwd: string, pred: (list: Entry[]) => boolean): Promise<Entry[]> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const r = await wright(["ps", "--all", "--format", "json"], { cwd, env })
    expect(r.code, r.stderr).toBe(0)
    const list = JSON.parse(r.stdout) as Entry[]
    if (pred(list)) return list
    if (Date.now() > deadline) throw new Error(`wright ps never showed it: ${r.stdout}`)
    await new Promise((res) => setTimeout(res, 200))
  }
}

test("ps e2e - lists a session working in one process and one waiting for a permission in another; a killed process's session is not listed", { timeout: 90_000 }, async () => {
  const box = sandbox()
  const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, { ...providerConfig(llm, "openai-chat"), permission: { bash: "ask" } })
  const working = path.join(box.home, "alpha")
  const waiting = path.join(box.home, "beta")
  mkdirSync(working)
  mkdirSync(waiting)

  // A run whose model never finishes answering: it stays working.
  llm.script({ hang: "after-headers" })
  const run = spawnWright(["run", "--title", "slow one", "think long"], { cwd: working, env: box.env })
  const served = await startServe({ ...box, project: waiting })
  try {
    await psUntil(box.env, box.home, (l) => l.some((e) => e.directory === working && e.state === "working"))

    // A served session whose model asks to run a command: it waits for the user's answer.
    llm.script(toolCall("bash", { command: "echo hi", description: "say hi" }), text("done"))
    const headers = { "content-type": "application/json" }
    const session = (await send(served.url, "POST", "/session", { headers, body: JSON.stringify({ title: "asks first" }) })).json()
    const sent = await send(served.url, "POST", `/session/${session.id}/prompt_async`, { headers, body: JSON.stringify({ parts: [{ type: "text", text: "run it" }] }) })
    expect(sent.status, sent.text).toBe(204)
    const list = await psUntil(box.env, box.home, (l) => l.some((e) => e.id === session.id && e.state === "waiting"))
    expect(list.find((e) => e.directory === working)).toMatchObject({ state: "working", title: "slow one", model: "fake/chat-model" })
    expect(list.find((e) => e.id === session.id)).toMatchObject({ state: "waiting", waiting: "permission", directory: waiting, title: "asks first", model: "fake/chat-model", cost: 0 })

    const table = await wright(["ps"], { cwd: box.home, env: box.env })
    expect(table.stdout).toMatch(/waiting \(permission\)/)
    expect(table.stdout).toMatch(/working/)

    // Killed without a chance to clean up: its registry file names a dead pid, and is ignored.
    const pid = (list.find((e) => e.directory === working) as Entry & { pid: number }).pid
    process.kill(pid, "SIGKILL")
    const after = await psUntil(box.env, box.home, (l) => !l.some((e) => e.directory === working))
    expect(after.map((e) => e.id)).toContain(session.id)
  } finally {
    run.kill("SIGKILL")
    await stopServe(served)
  }
})
