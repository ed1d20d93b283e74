// Plan mode through the built binary: the plan agent's edits outside its plan file are denied,
// the plan file is written by wright's own writer, and plan_exit hands the session to build
// with the plan in the model's context once the user (here --auto) approves.
import Database from "better-sqlite3"
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall, toolCalls } from "../lib/llm-server"
import { providerConfig, sandbox, storedParts, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

const PLAN = "# Plan\n\n1. Rename greet() to hello() in src/app.ts.\n2. Run the tests.\n"

function planBox() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeFileSync(path.join(box.project, "app.ts"), "export const greet = () => 'hi'\n")
  return box
}

function sessionID(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true })
  const id = (db.prepare("SELECT id FROM session").get() as { id: string }).id
  db.close()
  return id
}

test("plan mode - the plan agent's edit of a source file is denied, not asked, and the file is untouched", async () => {
  const box = planBox()
  server.script(toolCall("write", { filePath: "app.ts", content: "changed by the planner\n" }))
  const r = await wright(["run", "--agent", "plan", "--auto", "rename greet"], { cwd: box.project, env: box.env })
  // --auto approves every ask: a denied edit proves it was never asked.
  expect(readFileSync(path.join(box.project, "app.ts"), "utf8")).toBe("export const greet = () => 'hi'\n")
  expect(r.stderr).not.toContain("permission requested")
  const db = new Database(box.dbPath, { readonly: true })
  const write = storedParts(db).find((p) => p.type === "tool" && p.tool === "write")
  db.close()
  expect(write.state.status).toBe("error")
  expect(write.state.error).toMatch(/rule/i)
  // The model was told where its plan goes.
  expect(JSON.stringify(server.requests[0]!.body)).toContain(`.wright/plans/${sessionID(box.dbPath)}.md`)
})

test("plan mode - the plan file is written, plan_exit with --auto hands over to build with the plan in its context", async () => {
  const box = planBox()
  // A first turn makes the session (its id names the plan file).
  server.script(text("I will look around first."))
  expect((await wright(["run", "--agent", "plan", "rename greet"], { cwd: box.project, env: box.env })).code).toBe(0)
  const id = sessionID(box.dbPath)
  const plan = `.wright/plans/${id}.md`
  server.script(
    toolCall("write", { filePath: plan, content: PLAN }),
    toolCall("plan_exit", {}),
    text("Carrying out the plan."),
  )
  const r = await wright(["run", "--agent", "plan", "--session", id, "--auto", "write the plan and hand it over"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  expect(readFileSync(path.join(box.project, plan), "utf8")).toBe(PLAN)
  // The hand-off shows: the plan agent's header, then build's.
  expect(r.stderr).toMatch(/> plan · [\s\S]*Hand the plan to build[\s\S]*> build · /)

  // Request 2 (first turn) + 3 of this turn; the last one is build's, with the plan in it.
  const last = server.requests.at(-1)!.body
  const shown = JSON.stringify(last)
  expect(shown).toContain("Rename greet() to hello() in src/app.ts")
  expect(shown).toContain("operational mode has changed from plan to build")
  // build may edit: its tool list offers write, and plan_exit is gone.
  const tools = (last.tools ?? []).map((t: { function: { name: string } }) => t.function.name)
  expect(tools).toContain("write")
  expect(tools).not.toContain("plan_exit")

  const db = new Database(box.dbPath, { readonly: true })
  const messages = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((m) => JSON.parse(m.data))
  db.close()
  expect(messages.at(-1).agent).toBe("build")
  expect(messages.filter((m) => m.role === "user").map((m) => m.agent)).toEqual(["plan", "plan", "build"])
})

test("plan mode - without --auto a headless run refuses plan_exit and stays in plan mode", async () => {
  const box = planBox()
  server.script(text("Looking."))
  expect((await wright(["run", "--agent", "plan", "look"], { cwd: box.project, env: box.env })).code).toBe(0)
  const id = sessionID(box.dbPath)
  server.script(
    toolCall("bash", { command: "ls", description: "List the project" }),
    toolCall("write", { filePath: `.wright/plans/${id}.md`, content: PLAN }),
    toolCall("plan_exit", {}),
  )
  const r = await wright(["run", "--agent", "plan", "--session", id, "hand it over"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(1)
  // Reading commands and the plan file need no approval; only the hand-off did.
  expect(JSON.stringify(server.requests[2]!.body)).toContain("app.ts")
  expect(r.stderr.match(/permission requested/g)).toHaveLength(1)
  expect(r.stderr).toMatch(/plan_exit.*auto-rejecting/)
  const db = new Database(box.dbPath, { readonly: true })
  const messages = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((m) => JSON.parse(m.data))
  db.close()
  expect(messages.filter((m) => m.role === "user").map((m) => m.agent)).toEqual(["plan", "plan"])
  expect(existsSync(path.join(box.project, `.wright/plans/${id}.md`))).toBe(true)
})

test("plan mode - a plan written while a sandboxed command runs survives the command (a missing .wright was its mount point, swept after it)", async () => {
  const box = planBox()
  server.script(text("Looking."))
  expect((await wright(["run", "--agent", "plan", "look"], { cwd: box.project, env: box.env })).code).toBe(0)
  const id = sessionID(box.dbPath)
  const plan = `.wright/plans/${id}.md`
  // One step, two calls: a command still running when the plan is written beside it.
  server.script(
    toolCalls([
      { name: "bash", input: { command: "sleep 2", description: "Wait" } },
      { name: "write", input: { filePath: plan, content: PLAN } },
    ]),
    text("Plan written."),
  )
  const r = await wright(["run", "--agent", "plan", "--session", id, "--auto", "write the plan"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(existsSync(path.join(box.project, plan))).toBe(true)
})

test("plan mode - plan_exit reads only a real plan file: a link planted in its place is refused and its target never reaches the model", async () => {
  const box = planBox()
  server.script(text("Looking."))
  expect((await wright(["run", "--agent", "plan", "look"], { cwd: box.project, env: box.env })).code).toBe(0)
  const id = sessionID(box.dbPath)
  writeFileSync(path.join(box.home, "secret.txt"), "TOP-SECRET-TOKEN\n")
  mkdirSync(path.join(box.project, ".wright/plans"), { recursive: true })
  symlinkSync(path.join(box.home, "secret.txt"), path.join(box.project, `.wright/plans/${id}.md`))
  server.script(toolCall("plan_exit", {}), text("Understood."))
  const r = await wright(["run", "--agent", "plan", "--session", id, "--auto", "hand it over"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  const last = JSON.stringify(server.requests.at(-1)!.body)
  expect(last).toContain("is not a regular file")
  expect(last).not.toContain("TOP-SECRET-TOKEN")
})
