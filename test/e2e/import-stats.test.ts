// wright import / export --format markdown / stats / session list --all, through the built binary.
// The OpenCode export in test/fixtures/opencode/ was written by the real `opencode export`
// (OpenCode 1.18.33 from npm, run against the scripted model: scripts/fixtures/opencode-export.mjs).
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test, vi } from "vitest"
import { openStore } from "../../src/storage"
import type { AssistantMessage, Session, UserMessage } from "../../src/protocol"
import { providerConfig, ROOT, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"

// Each test spawns the binary several times; the shared machine can be slow.
vi.setConfig({ testTimeout: 120_000 })

const OPENCODE_EXPORT = path.join(ROOT, "test/fixtures/opencode/export-1.18.33.json")

const server = useLLMServer()

test("import - OpenCode's own export becomes a session of this project, and wright can go on with it", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const opts = { cwd: box.project, env: box.env }
  const original = JSON.parse(readFileSync(OPENCODE_EXPORT, "utf8"))

  const r = await wright(["import", OPENCODE_EXPORT], opts)
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  expect(r.stdout).toContain(`Imported session: ${original.info.id}`)
  expect(r.stdout).toContain("6 messages, 19 parts")

  const [listed] = JSON.parse((await wright(["session", "list", "--format", "json"], opts)).stdout) as Session[]
  expect(listed!.id).toBe(original.info.id)
  expect(listed!.directory).toBe(box.project)
  expect(listed!.title).toBe(original.info.title)

  // The conversation reads back as OpenCode wrote it: the same ids, tools and outputs.
  const exported = JSON.parse((await wright(["export", original.info.id], opts)).stdout)
  expect(exported.messages.map((m: { info: { id: string } }) => m.info.id)).toEqual(original.messages.map((m: { info: { id: string } }) => m.info.id))
  const tools = (doc: typeof original) => doc.messages.flatMap((m: { parts: Array<{ type: string; tool?: string; state?: { output?: string } }> }) => m.parts.filter((p) => p.type === "tool").map((p) => [p.tool, p.state?.output]))
  expect(tools(exported)).toEqual(tools(original))

  // The imported history goes to the model with the next prompt.
  server.script(text("continuing"))
  const next = await wright(["run", "-s", original.info.id, "-m", "fake/chat-model", "what did you fix?"], opts)
  expect(next.stderr).not.toMatch(/error/i)
  expect(next.code).toBe(0)
  const sent = JSON.stringify(server.requests.at(-1)!.body)
  expect(sent).toContain("npm test fails, fix it")
  expect(sent).toContain("return a + b")

  // Importing again moves nothing and duplicates nothing.
  const again = await wright(["import", OPENCODE_EXPORT], opts)
  expect(again.code).toBe(0)
  expect(again.stdout).toContain("0 messages, 0 parts")
  expect(again.stdout).toContain("6 messages and 19 parts were already here and kept")
})

test("import - a wright export round-trips into another project, and bad files are refused naming the field", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const opts = { cwd: box.project, env: box.env }
  server.script(toolCall("bash", { command: "echo hi", description: "say hi" }), text("done"))
  expect((await wright(["run", "say hi"], opts)).code).toBe(0)
  const exportFile = path.join(box.home, "export.json")
  writeFileSync(exportFile, (await wright(["export"], opts)).stdout)
  const doc = JSON.parse(readFileSync(exportFile, "utf8"))

  const other = sandbox()
  const imported = await wright(["import", exportFile], { cwd: other.project, env: other.env })
  expect(imported.code).toBe(0)
  const [s] = JSON.parse((await wright(["session", "list", "--format", "json"], { cwd: other.project, env: other.env })).stdout) as Session[]
  expect(s!.id).toBe(doc.info.id)
  expect(s!.directory).toBe(other.project)
  const back = JSON.parse((await wright(["export", s!.id], { cwd: other.project, env: other.env })).stdout)
  expect(back.messages).toEqual(doc.messages)

  const bad = structuredClone(doc)
  bad.messages[1].info.role = "robot"
  writeFileSync(path.join(box.home, "bad.json"), JSON.stringify(bad))
  const refused = await wright(["import", path.join(box.home, "bad.json")], { cwd: other.project, env: other.env })
  expect(refused.code).toBe(1)
  expect(refused.stderr).toMatch(/bad\.json: messages\[1\]\.info(\.role)? is not valid/)

  writeFileSync(path.join(box.home, "not.json"), "{ nope")
  const notJson = await wright(["import", path.join(box.home, "not.json")], opts)
  expect(notJson.code).toBe(1)
  expect(notJson.stderr).toContain("not.json is not JSON")
  const missing = await wright(["import", "nowhere.json"], opts)
  expect(missing.stderr).toContain("no such file nowhere.json")
})

test("export --format markdown writes the transcript", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const opts = { cwd: box.project, env: box.env }
  server.script(toolCall("bash", { command: "echo hi", description: "say hi" }), text("All **done**."))
  expect((await wright(["run", "say hi please"], opts)).code).toBe(0)
  const md = (await wright(["export", "--format", "markdown"], opts)).stdout
  expect(md).toMatch(/^# /)
  expect(md).toContain("## User\n\nsay hi please")
  expect(md).toContain('- **bash** `{"command":"echo hi","description":"say hi"}`')
  expect(md).toContain("All **done**.")
})

test("stats - per model, day, project and tool from a seeded database; --days, --project and json", async () => {
  const box = sandbox()
  const opts = { cwd: box.project, env: box.env }
  const day = 86_400_000
  const now = Date.now()
  const store = openStore(box.dbPath)
  const seed = (id: string, directory: string, replies: Array<{ model: string; ago: number; cost: number; input: number; output: number; read?: number; tools?: Array<[string, "completed" | "error"]> }>) => {
    const created = now - Math.max(...replies.map((r) => r.ago))
    store.sessions.put({ id, slug: id, projectID: "global", directory, title: id, version: "test", time: { created, updated: created } })
    replies.forEach((r, i) => {
      const time = now - r.ago
      const user: UserMessage = { id: `msg_${id}_${i}a`, sessionID: id, role: "user", time: { created: time }, agent: "build", model: { providerID: "p", modelID: "m" } }
      const [providerID, modelID] = r.model.split("/") as [string, string]
      const reply: AssistantMessage = {
        id: `msg_${id}_${i}b`, sessionID: id, role: "assistant", time: { created: time + 1, completed: time + 2 }, parentID: user.id, providerID, modelID,
        mode: "build", agent: "build", path: { cwd: directory, root: directory }, cost: r.cost, finish: "stop",
        tokens: { input: r.input, output: r.output, reasoning: 0, cache: { read: r.read ?? 0, write: 0 } },
      }
      store.messages.put(user)
      store.messages.put(reply)
      ;(r.tools ?? []).forEach(([tool, status], j) =>
        store.parts.put({
          id: `prt_${id}_${i}_${j}`, sessionID: id, messageID: reply.id, type: "tool", callID: `c${j}`, tool,
          state: status === "completed"
            ? { status, input: {}, output: "ok", title: tool, metadata: {}, time: { start: time, end: time } }
            : { status, input: {}, error: "failed", time: { start: time, end: time } },
        }),
      )
    })
  }
  const a = box.project
  const b = path.join(box.home, "other-project")
  seed("ses_a1", a, [
    { model: "anthropic/claude", ago: 0, cost: 0.5, input: 1000, output: 100, read: 800, tools: [["bash", "completed"], ["bash", "error"], ["read", "completed"]] },
    { model: "openai/gpt", ago: 3 * day, cost: 0.25, input: 500, output: 50 },
  ])
  seed("ses_b1", b, [{ model: "anthropic/claude", ago: 10 * day, cost: 1, input: 2000, output: 200, tools: [["edit", "completed"]] }])
  store.close()

  const all = JSON.parse((await wright(["stats", "--format", "json"], opts)).stdout)
  expect(all.sessions).toBe(2)
  expect(all.totals.messages).toBe(3)
  expect(all.totals.cost).toBeCloseTo(1.75)
  expect(all.totals.tokens).toMatchObject({ input: 3500, output: 350, cache: { read: 800, write: 0 } })
  expect(all.models.map((m: { model: string; messages: number }) => [m.model, m.messages])).toEqual([["anthropic/claude", 2], ["openai/gpt", 1]])
  expect(all.days).toHaveLength(3)
  expect(all.projects.map((p: { directory: string; sessions: number }) => [p.directory, p.sessions])).toEqual([[b, 1], [a, 1]])
  expect(all.tools).toEqual([{ tool: "bash", calls: 2, errors: 1 }, { tool: "edit", calls: 1, errors: 0 }, { tool: "read", calls: 1, errors: 0 }])

  const week = JSON.parse((await wright(["stats", "--days", "7", "--format", "json"], opts)).stdout)
  expect(week.totals.messages).toBe(2)
  expect(week.totals.cost).toBeCloseTo(0.75)
  expect(week.tools.map((t: { tool: string }) => t.tool)).toEqual(["bash", "read"])

  const here = JSON.parse((await wright(["stats", "--project", "", "--models", "1", "--tools", "1", "--format", "json"], opts)).stdout)
  expect(here.project).toBe(a)
  expect(here.sessions).toBe(1)
  expect(here.models.map((m: { model: string }) => m.model)).toEqual(["anthropic/claude"])
  expect(here.tools).toEqual([{ tool: "bash", calls: 2, errors: 1 }])

  const table = (await wright(["stats"], opts)).stdout
  expect(table).toContain("2 sessions, 3 model replies, $1.75")
  expect(table).toMatch(/anthropic\/claude\s+2\s+3000\s+300\s+800\/0\s+\$1\.50/)

  const bad = await wright(["stats", "--days", "0"], opts)
  expect(bad.code).toBe(1)
  expect(bad.stderr).toContain("--days must be a whole number of days, 1 or more")

  const list = (await wright(["session", "list", "--all"], opts)).stdout
  expect(list).toContain("ses_a1")
  expect(list).toContain("ses_b1")
  expect(list).toContain("other-project")
  const scoped = JSON.parse((await wright(["session", "list", "--format", "json"], opts)).stdout) as Session[]
  expect(scoped.map((s) => s.id)).toEqual(["ses_a1"])
})

test("agent create - the model writes the agent, it is saved as Markdown and wright lists it", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const opts = { cwd: box.project, env: box.env }
  const answer = {
    identifier: "Test Runner",
    whenToUse: "Use this agent when the test suite must be run and its failures explained.",
    systemPrompt: "You are a careful test runner.\nRun the tests, then explain each failure.",
  }
  server.script(text("Here it is:\n```json\n" + JSON.stringify(answer) + "\n```"))
  const r = await wright(["agent", "create", "--description", "runs the tests and explains failures", "--mode", "subagent", "--tools", "bash,read"], opts)
  expect(r.stderr).not.toMatch(/error/i)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Created agent test-runner")
  const sent = JSON.stringify(server.requests.at(-1)!.body)
  expect(sent).toContain("runs the tests and explains failures")
  expect(sent).toContain("build") // the names already taken are given to the model

  const file = readFileSync(path.join(box.project, ".wright/agent/test-runner.md"), "utf8")
  expect(file).toContain("description: Use this agent when the test suite must be run and its failures explained.")
  expect(file).toContain("mode: subagent")
  expect(file).toMatch(/tools:\n(\s+\w+: false\n)+/)
  expect(file).toContain("  edit: false")
  expect(file).not.toContain("bash: false")
  expect(file).toContain("You are a careful test runner.\nRun the tests, then explain each failure.")

  const listed = await wright(["agent", "list"], opts)
  expect(listed.stdout).toMatch(/^test-runner \(subagent\)\s+Use this agent when the test suite/m)

  // The same name again is refused before anything is written; so is a bad --tools.
  server.script(text(JSON.stringify(answer)))
  const again = await wright(["agent", "create", "-d", "the same again"], opts)
  expect(again.code).toBe(1)
  expect(again.stderr).toContain('named the agent "test-runner", which is already an agent here')
  const badTools = await wright(["agent", "create", "-d", "x", "--tools", "bash,teleport"], opts)
  expect(badTools.code).toBe(1)
  expect(badTools.stderr).toContain("--tools has unknown tool teleport")
  const noDescription = await wright(["agent", "create"], opts)
  expect(noDescription.code).toBe(1)
  expect(noDescription.stderr).toContain("--description is required when stdin is not a terminal")
})
