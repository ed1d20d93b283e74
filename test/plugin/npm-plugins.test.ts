// Real OpenCode plugins published on npm, unchanged: two installed by wright's own npm path
// into a cache shared by this file's tests (the registry must be reachable), one committed as
// a fixture (see fixtures/README.md), all driven by the scripted model.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { createClient } from "../../src/sdk"
import { createServer } from "../../src/server"
import { createApp } from "../../src/session"
import { openStore } from "../../src/storage"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt } from "../lib/core"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { tempDir } from "../lib/tool-context"

// Pinned: what the assertions below were written against. All three are MIT.
const RECORDER = "opencode-prompt-recorder@1.9.9" // an `event` hook that files each prompt under .prompts/
const DESTRUCTIVE = "@sureshsankaran/opencode-destructive-check@1.0.5" // a TypeScript entry (src/index.ts): tool.execute.before, permission.ask
const BACKGROUND = pathToFileURL(path.join(import.meta.dirname, "fixtures", "opencode-background")).href // @zenobius/opencode-background: four tools, spawns with execa

let llm: LLMServer
const cache = tempDir("wright-plugin-cache-")
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

async function core(plugin: string[], progress: string[] = []) {
  const box = sandbox()
  box.env.XDG_CACHE_HOME = cache
  // npm reaches the registry with this machine's certificate setup, as it would for the user.
  for (const k of ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"]) if (process.env[k]) box.env[k] = process.env[k]
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), plugin })
  // Hook timeouts come from the user's own config only.
  const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, { experimental: { plugin_timeout: 30_000 } })
  const store = openStore(":memory:")
  let serverFetch: ((req: Request) => Promise<Response>) | undefined
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, version: "test", serverFetch: () => serverFetch, progress: (l) => progress.push(l) })
  const server = createServer({ directory: box.project, getApp: async () => app, version: "test" })
  serverFetch = (req) => server.fetch(req)
  const client = createClient({ baseUrl: "http://wright.test", fetch: server.fetch })
  return { box, app, client, close: async () => (await app.dispose(), store.close()) }
}

const lastToolResult = (i: number) => llm.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1)!.content as string

function recorded(project: string): string {
  const root = path.join(project, ".prompts")
  if (!existsSync(root)) return ""
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".txt"))
    .map((f) => readFileSync(path.join(root, f), "utf8"))
    .join("\n")
}

test("npm plugins - installed with progress: the recorder's event hook files the prompt, destructive-check's TypeScript hooks run, the background plugin's tools run a real command", async () => {
  const progress: string[] = []
  const c = await core([RECORDER, DESTRUCTIVE, BACKGROUND], progress)
  const warnings: string[] = []
  const warn = console.warn
  console.warn = (...args: unknown[]) => void warnings.push(args.join(" "))
  try {
    llm.script(
      // The plugin runs commands in the process's cwd (the project, for a user): the path is absolute here.
      toolCall("createBackgroundProcess", { command: `echo from-the-background > ${path.join(c.box.project, "bg.txt")}`, name: "writer", tags: ["t1"] }),
      toolCall("listBackgroundProcesss", { tags: ["t1"] }),
      toolCall("bash", { command: "git push --force origin main || true", description: "Push" }),
      text("started it"),
    )
    const session = await c.client.session.create()
    await c.client.session.prompt(session.id, prompt("start the writer in the background"))

    expect(progress.filter((l) => l.startsWith("Installing plugin"))).toEqual([`Installing plugin ${RECORDER} with npm…`, `Installing plugin ${DESTRUCTIVE} with npm…`])
    expect(progress.filter((l) => l.startsWith("Installed plugin")).map((l) => l.replace(/ in [\d.]+ s$/, ""))).toEqual([
      "Installed plugin opencode-prompt-recorder@1.9.9",
      "Installed plugin @sureshsankaran/opencode-destructive-check@1.0.5",
    ])

    // The background plugin's tools, their zod arguments offered as JSON Schema.
    const offered = llm.requests[0]!.body.tools.map((t: { function: { name: string; parameters: { properties: object } } }) => t.function)
    const create = offered.find((t: { name: string }) => t.name === "createBackgroundProcess")
    expect(Object.keys(create.parameters.properties)).toEqual(["command", "name", "tags", "global"])
    expect(lastToolResult(1)).toMatch(/^[\w-]+$/) // the task id
    const listed = JSON.parse(lastToolResult(2)) as { name: string; command: string; sessionId: string }[]
    expect(listed.map((t) => [t.name, t.command, t.sessionId])).toEqual([["writer", `echo from-the-background > ${path.join(c.box.project, "bg.txt")}`, session.id]])
    const bg = path.join(c.box.project, "bg.txt")
    await expect.poll(() => existsSync(bg) && readFileSync(bg, "utf8"), { timeout: 10_000 }).toBe("from-the-background\n")

    // destructive-check saw the bash call in tool.execute.before (it warns; the call goes on to the permission rules).
    expect(warnings.join("\n")).toContain("[destructive-check] Detected HIGH destructive command")

    // The recorder saw the user's message on the bus and filed it under .prompts/YYYY/MM/DD/.
    await expect.poll(() => recorded(c.box.project), { timeout: 10_000 }).toContain(`SessionID: ${session.id}`)
    expect(recorded(c.box.project)).toContain("start the writer in the background")

    const list = await c.app.plugins()
    expect(list.map((p) => [p.name, p.kind, p.status, p.version])).toEqual([
      [RECORDER, "npm", "loaded", "1.9.9"],
      [DESTRUCTIVE, "npm", "loaded", "1.0.5"],
      ["opencode-background", "url", "loaded", "0.1.0-alpha.2"],
    ])
    expect(list[0]!.hooks).toEqual(["event"])
    expect(list[1]!.hooks).toEqual(expect.arrayContaining(["tool.execute.before", "permission.ask", "tool.execute.after"]))
    expect(list[2]!.tools).toEqual(["createBackgroundProcess", "getBackgroundProcess", "listBackgroundProcesss", "killTasks"])
  } finally {
    console.warn = warn
    await c.close()
  }
}, 400_000)

test("npm plugins - a second start finds them in the cache and runs no npm", async () => {
  const progress: string[] = []
  const c = await core([RECORDER, DESTRUCTIVE], progress)
  try {
    const list = await c.app.plugins()
    expect(list.map((p) => p.status)).toEqual(["loaded", "loaded"])
    expect(progress).toEqual([])
  } finally {
    await c.close()
  }
}, 120_000)

test("npm plugins - a package npm cannot fetch is an error naming it; the other plugins and the agent keep working", async () => {
  const progress: string[] = []
  const box = sandbox()
  box.env.XDG_CACHE_HOME = tempDir("wright-plugin-offline-")
  box.env.npm_config_registry = "http://127.0.0.1:9/"
  box.env.npm_config_fetch_retries = "0"
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), plugin: ["opencode-wakatime@1.3.9", BACKGROUND] })
  const store = openStore(":memory:")
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, version: "test", progress: (l) => progress.push(l) })
  try {
    const list = await app.plugins()
    expect(list[0]!.status).toBe("failed")
    expect(list[0]!.error).toMatch(/^failed to load: Could not install plugin opencode-wakatime@1\.3\.9 with npm: .*ECONNREFUSED/)
    expect(list[0]!.error).toContain("are you offline?")
    expect(list[1]!.status).toBe("loaded")
    expect(app.registry.get("killTasks")).toBeDefined()
  } finally {
    await app.dispose()
    store.close()
  }
}, 120_000)
