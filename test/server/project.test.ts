import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import type { ApiError } from "../../src/sdk"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { tempDir } from "../lib/tool-context"
import { raw, startServer, type Harness } from "./harness"
import { requires } from "../lib/requires"

let llm: LLMServer
let h: Harness | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  await h?.close()
  h = undefined
})
afterAll(() => llm.close())

const status = async (p: Promise<unknown>) => ((await p.catch((e) => e)) as ApiError).status

test("config - GET answers the merged config; PATCH merges into the project file and keeps its comments", async () => {
  h = await startServer({ llm, config: { command: { hello: { template: "Say hello to $1" } } } })
  const file = path.join(h.box.project, "wright.json")
  const original = JSON.parse(readFileSync(file, "utf8"))
  writeFileSync(path.join(h.box.project, "wright.json"), `{\n  // the model\n${JSON.stringify(original).slice(1, -1)}\n}\n`)
  const config = await h.client.config.get()
  expect(config.model).toBe("fake/chat-model")

  const updated = await h.client.config.update({ username: "ada", command: { bye: { template: "Say bye" } } })
  expect(updated.username).toBe("ada")
  expect(Object.keys(updated.command as object).sort()).toEqual(["bye", "hello"])
  const written = readFileSync(file, "utf8")
  expect(written).toContain("// the model")
  expect(written).toContain('"bye"')
  // The App was reloaded: a fresh GET sees the change.
  expect((await h.client.config.get()).username).toBe("ada")

  const bad = await raw(h, "PATCH", "/config", { body: JSON.stringify({ logLevel: "LOUD" }) })
  expect(bad.status).toBe(400)
  expect((await bad.json()).data.issues[0].path).toBe("body.logLevel")
})

test("provider - /config/providers and /provider answer OpenCode's shapes with each provider's default model", async () => {
  h = await startServer({ llm })
  const configured = await h.client.config.providers()
  expect(configured.providers.map((p) => p.id)).toEqual(["fake"])
  expect(configured.default).toEqual({ fake: "chat-model" })
  const model = configured.providers[0]!.models["chat-model"]!
  expect(model).toMatchObject({ id: "chat-model", providerID: "fake", limit: { context: 200_000, output: 8_000 }, status: "active" })
  expect(model.api.npm).toBe("@ai-sdk/openai-compatible")
  expect(JSON.stringify(configured)).not.toContain("test-key")

  const all = await h.client.provider.list()
  expect(all.connected).toEqual(["fake"])
  expect(all.all.length).toBeGreaterThan(1)
  expect(all.default.fake).toBe("chat-model")
})

test("agent - /agent lists the default agent first; /command lists commands with argument hints", async () => {
  h = await startServer({ llm, config: { command: { review: { template: "Review $1 then $ARGUMENTS", description: "review code" } } } })
  const agents = await h.client.agent.list()
  expect(agents[0]!.name).toBe("build")
  expect(agents.map((a) => a.name)).toContain("plan")
  const commands = await h.client.command.list()
  expect(commands.find((c) => c.name === "review")).toMatchObject({ description: "review code", source: "command", hints: ["$1", "$ARGUMENTS"] })
  expect(commands.map((c) => c.name)).toContain("init")
})

test("skill - skills found in the project's config folder are listed", async () => {
  const project = tempDir("wright-skill-project-")
  mkdirSync(path.join(project, ".wright", "skills", "deploy"), { recursive: true })
  writeFileSync(path.join(project, ".wright", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Ship it\n---\nRun the deploy script.\n")
  writeFileSync(path.join(project, "wright.json"), JSON.stringify({ model: "fake/chat-model" }))
  h = await startServer({ llm, allowDirs: [project] })
  const skills = await h.clientFor(project).skill.list()
  expect(skills).toEqual([{ name: "deploy", description: "Ship it", location: path.join(project, ".wright", "skills", "deploy", "SKILL.md"), content: expect.stringContaining("Run the deploy script.") }])
  expect((await h.clientFor(project).command.list()).find((c) => c.name === "deploy")?.source).toBe("skill")
})

test("path - /path answers home, state, config, worktree and directory", async () => {
  h = await startServer({ llm })
  const p = await h.client.path.get()
  expect(p.directory).toBe(h.box.project)
  expect(p.worktree).toBe(h.box.project)
  expect(p.config).toBe(path.join(h.box.home, "config", "wright"))
  expect(p.state).toBe(path.join(h.box.home, "state", "wright"))
})

test("tool - /experimental/tool/ids and /experimental/tool list the tools with JSON Schemas", async () => {
  h = await startServer({ llm })
  const ids = await h.client.tool.ids()
  expect(ids).toEqual(expect.arrayContaining(["bash", "read", "edit", "write", "apply_patch", "grep", "glob"]))
  const tools = await h.client.tool.list("fake", "chat-model")
  const bash = tools.find((t) => t.id === "bash")!
  expect(bash.description.length).toBeGreaterThan(50)
  expect((bash.parameters as { properties: Record<string, unknown> }).properties).toHaveProperty("command")
  // GPT-style models get apply_patch instead of edit/write.
  const gpt = (await h.client.tool.list("openai", "gpt-5")).map((t) => t.id)
  expect(gpt).toContain("apply_patch")
  expect(gpt).not.toContain("edit")
  const missing = await raw(h, "GET", "/experimental/tool?provider=fake")
  expect(missing.status).toBe(400)
  expect((await missing.json()).data.issues[0].path).toBe("query.model")
})

test("file - /file lists directories first with .gitignore marks; /file/content reads text and binary", async () => {
  h = await startServer({ llm })
  const dir = h.box.project
  mkdirSync(path.join(dir, "src"))
  mkdirSync(path.join(dir, "dist"))
  writeFileSync(path.join(dir, ".gitignore"), "dist/\n*.log\n")
  writeFileSync(path.join(dir, "src", "main.ts"), "export const x = 1\n")
  writeFileSync(path.join(dir, "debug.log"), "noise")
  writeFileSync(path.join(dir, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]))

  const list = await h.client.file.list()
  expect(list.map((n) => [n.name, n.type, n.ignored])).toEqual([
    ["dist", "directory", true],
    ["src", "directory", false],
    [".gitignore", "file", false],
    ["debug.log", "file", true],
    ["logo.png", "file", false],
    ["wright.json", "file", false],
  ])
  expect((await h.client.file.list("src"))[0]).toEqual({ name: "main.ts", path: "src/main.ts", absolute: path.join(dir, "src", "main.ts"), type: "file", ignored: false })
  expect(await h.client.file.read("src/main.ts")).toEqual({ type: "text", content: "export const x = 1\n" })
  expect(await h.client.file.read("logo.png")).toEqual({ type: "binary", content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString("base64"), encoding: "base64", mimeType: "image/png" })
})

test("file - paths outside the project are refused with 400, missing ones 404", async () => {
  h = await startServer({ llm })
  const outside = tempDir("wright-outside-")
  writeFileSync(path.join(outside, "secret.txt"), "secret")
  symlinkSync(outside, path.join(h.box.project, "escape"))
  for (const p of ["../../etc/passwd", path.join(outside, "secret.txt"), "escape/secret.txt"]) {
    const res = await raw(h, "GET", `/file/content?path=${encodeURIComponent(p)}`)
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.data.issues[0].path).toBe("query.path")
    expect(body.data.message).toContain("outside the project")
  }
  expect(await status(h.client.file.list("../"))).toBe(400)
  expect(await status(h.client.file.read("nope.txt"))).toBe(404)
  expect(await status(h.client.file.list("nope"))).toBe(404)
  expect(await status(h.client.file.read("."))).toBe(400)
})

test.skipIf(requires("git"))("file - /file/status parses git status with line counts", async () => {
  h = await startServer({ llm })
  const dir = h.box.project
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } })
  writeFileSync(path.join(dir, "keep.txt"), "a\nb\nc\n")
  writeFileSync(path.join(dir, "gone.txt"), "x\ny\n")
  git("init", "-q")
  git("add", ".")
  git("commit", "-q", "-m", "init")
  writeFileSync(path.join(dir, "keep.txt"), "a\nB\nc\nd\n")
  execFileSync("rm", [path.join(dir, "gone.txt")])
  writeFileSync(path.join(dir, "new.txt"), "1\n2\n3\n")
  await h.close()
  h = await startServer({ llm, allowDirs: [dir] })
  // The new server's project is another sandbox: point it at the git repo.
  const files = await h.clientFor(dir).file.status()
  expect(files.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
    { path: "gone.txt", added: 0, removed: 2, status: "deleted" },
    { path: "keep.txt", added: 2, removed: 1, status: "modified" },
    { path: "new.txt", added: 3, removed: 0, status: "added" },
  ])
  expect(await h.client.file.status()).toEqual([])
})

test("find - /find searches text with ripgrep; /find/file finds files and directories fuzzily", async () => {
  h = await startServer({ llm })
  const dir = h.box.project
  mkdirSync(path.join(dir, "src", "server"), { recursive: true })
  writeFileSync(path.join(dir, "src", "server", "routes.ts"), "const needle = 1\nconst other = 2\n")
  writeFileSync(path.join(dir, "src", "main.ts"), "// needle here too\n")
  writeFileSync(path.join(dir, "README.md"), "nothing\n")

  const matches = await h.client.find.text("needle")
  expect(matches.map((m) => m.path.text).sort()).toEqual(["src/main.ts", "src/server/routes.ts"])
  const hit = matches.find((m) => m.path.text === "src/server/routes.ts")!
  expect(hit).toMatchObject({ line_number: 1, lines: { text: "const needle = 1\n" }, submatches: [{ match: { text: "needle" }, start: 6, end: 12 }] })
  expect(await h.client.find.text("needle", 1)).toHaveLength(1)
  const badRegex = await raw(h, "GET", `/find?pattern=${encodeURIComponent("(unclosed")}`)
  expect(badRegex.status).toBe(400)
  expect((await badRegex.json()).data.issues[0].path).toBe("query.pattern")

  expect((await h.client.find.files("routes"))[0]).toBe("src/server/routes.ts")
  expect(await h.client.find.files("srvr", { type: "directory" })).toEqual(["src/server/"])
  expect(await h.client.find.files("server", { dirs: false })).toEqual(["src/server/routes.ts"])
  expect(await h.client.find.files("zzzz")).toEqual([])
  expect(await h.client.find.files("", { limit: 2 })).toHaveLength(2)
})

test("doc - the OpenAPI document lists every route with its body schema and error answers", async () => {
  h = await startServer({ llm })
  const doc = (await h.client.doc()) as { openapi: string; paths: Record<string, Record<string, any>> }
  expect(doc.openapi).toBe("3.1.0")
  for (const r of h.server.routes) {
    const op = doc.paths[r.path.replace(/:(\w+)/g, "{$1}")]?.[r.method]
    expect(op, `${r.method} ${r.path}`).toBeDefined()
    expect(op.operationId).toBe(r.operationId)
    expect(op.responses["400"]).toBeDefined()
  }
  const create = doc.paths["/session"]!.post
  expect(create.requestBody.content["application/json"].schema.properties).toHaveProperty("title")
  expect(doc.paths["/session/{id}/revert"]!.post.responses["409"]).toBeDefined()
  expect(doc.paths["/session/{id}"]!.get.responses["404"]).toBeDefined()
  expect(doc.paths["/session/{id}/prompt_async"]!.post.responses["204"]).toBeDefined()
  const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId))
  expect(new Set(ops).size).toBe(ops.length)
})
