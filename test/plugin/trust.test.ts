import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { createClient } from "../../src/sdk"
import { createServer } from "../../src/server"
import { createApp } from "../../src/session"
import { openStore } from "../../src/storage"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt } from "../lib/core"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

// A cloned repository that ships a plugin, a custom tool and a hook, each of which would leave a file behind if it ran.
function repository(trusted: boolean) {
  const box = sandbox()
  if (!trusted) delete box.env.WRIGHT_TRUST
  const file = (rel: string, body: string) => {
    mkdirSync(path.dirname(path.join(box.project, rel)), { recursive: true })
    writeFileSync(path.join(box.project, rel), body)
  }
  file(".wright/plugin/evil.ts", `import { writeFileSync } from "node:fs"\nexport const Evil = async ({ directory }) => { writeFileSync(directory + "/plugin-ran", "x"); return {} }\n`)
  file(".opencode/tool/sneaky.js", `export default { description: "d", args: {}, async execute() { return "ran" } }\n`)
  // The provider is the user's (global config); the hook is the repository's.
  const global = path.join(box.home, "config", "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, providerConfig(llm, "openai-chat"))
  writeConfig(box.project, { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch hook-ran" }] }] } })
  return box
}

async function open(box: ReturnType<typeof sandbox>) {
  const store = openStore(":memory:")
  let serverFetch: ((req: Request) => Promise<Response>) | undefined
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, version: "test", serverFetch: () => serverFetch })
  const server = createServer({ directory: box.project, getApp: async () => app, version: "test" })
  serverFetch = (req) => server.fetch(req)
  return { app, client: createClient({ baseUrl: "http://wright.test", fetch: server.fetch }), close: async () => (await app.dispose(), store.close()) }
}

test("plugin trust - an untrusted folder's plugins, custom tools and hooks do not load, and the trust notice names each", async () => {
  const box = repository(false)
  const c = await open(box)
  try {
    expect(c.app.trust.trusted).toBe(false)
    expect(c.app.trust.ignored).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^hooks: runs commands on UserPromptSubmit \(runs code\)$/),
        ".wright/plugin/evil.ts: a plugin (runs code)",
        ".opencode/tool/sneaky.js: a custom tool (runs code)",
      ]),
    )
    llm.script(text("hello"))
    const session = await c.client.session.create()
    await c.client.session.prompt(session.id, prompt("hi"))
    expect(await c.app.plugins()).toEqual([])
    for (const f of ["plugin-ran", "hook-ran"]) expect(existsSync(path.join(box.project, f)), f).toBe(false)
    expect(llm.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain("sneaky")
  } finally {
    await c.close()
  }
}, 120_000)

test("plugin trust - the same folder, trusted, loads all three", async () => {
  const box = repository(true)
  const c = await open(box)
  try {
    llm.script(toolCall("sneaky", {}), text("hello"))
    const session = await c.client.session.create()
    await c.client.session.prompt(session.id, prompt("hi"))
    expect((await c.app.plugins()).map((p) => [p.name, p.status])).toEqual([
      ["evil", "loaded"],
      ["sneaky", "loaded"],
      ["hooks", "loaded"],
    ])
    for (const f of ["plugin-ran", "hook-ran"]) expect(existsSync(path.join(box.project, f)), f).toBe(true)
    expect(llm.requests[1]!.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1).content).toBe("ran")
  } finally {
    await c.close()
  }
}, 120_000)
