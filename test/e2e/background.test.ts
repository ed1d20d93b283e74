// Background subagents through the built binary: `wright run` waits for them (and for the turn
// their parent takes on hearing of them) before it exits, unless --detach. The scripted model
// answers by who asks: the two children and the parent ask at the same time.
import Database from "better-sqlite3"
import { afterAll, beforeAll, expect, test } from "vitest"
import { startLLMServer, type LLMServer, type RecordedRequest, type Reply } from "../lib/llm-server"
import { providerConfig, sandbox, storedParts, wright, writeConfig } from "../lib/e2e"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer({ fallback: (req) => route(req) })
})
afterAll(() => llm.close())

const textOf = (req: RecordedRequest) => JSON.stringify(req.body.messages)
/** A child's conversation starts with its brief; the parent's only names it in its tool call. */
const childOf = (req: RecordedRequest) => /brief-(\w)/.exec(JSON.stringify(req.body.messages.find((m: { role: string }) => m.role === "user")))?.[1]

/** What a child's answer waits for after its first event (set by each test). */
let childGate: Promise<unknown> = Promise.resolve()

function route(req: RecordedRequest): Reply {
  const child = childOf(req)
  // Five stream events 500 ms apart, held after the first until the test's gate opens: each
  // child's answer takes over two seconds.
  if (child) return { text: [`child ${child} finished its work`], delayMs: 500, gate: { after: 1, open: childGate } }
  if (!textOf(req).includes('"role":"tool"'))
    return {
      toolCalls: ["A", "B"].map((n) => ({ name: "task", input: { description: `Task ${n}`, prompt: `brief-${n}`, subagent_type: "general", background: true } })),
    }
  return { text: `parent saw ${textOf(req).split("<task_notification>").length - 1} notes` }
}

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  return box
}

/** Resolves once `cond` holds, or after `ms`. */
async function until(cond: () => boolean, ms = 30_000) {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20))
}

test("background e2e - run waits for two background subagents that ran concurrently, and the parent answers with both results", async () => {
  llm.reset()
  const box = project()
  // The children answer once both are at the model and the parent asked again after the tool
  // results (on a loaded machine a fixed stream could end before either).
  const parentAgain = () => llm.requests.filter((q) => !childOf(q) && textOf(q).includes('"role":"tool"')).length > 0
  childGate = until(() => ["A", "B"].every((n) => llm.requests.some((q) => childOf(q) === n)) && parentAgain())
  const r = await wright(["run", "delegate both"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  // The first turn ended while the children worked; the last one heard of both.
  expect(r.stdout).toContain("parent saw 0 notes")
  expect(r.stdout).toContain("parent saw 2 notes")
  // The user sees that the calls returned while the subagents worked on.
  expect(r.stderr).toContain("Task A (@general, in the background)")

  // Ran concurrently: each child's request overlaps the other's, and each took its ~2 s.
  const [a, b] = ["A", "B"].map((n) => llm.requests.find((q) => childOf(q) === n)!)
  expect(a!.time.start).toBeLessThan(b!.time.end!)
  expect(b!.time.start).toBeLessThan(a!.time.end!)
  for (const q of [a!, b!]) expect(q.time.end! - q.time.start).toBeGreaterThan(1500)

  const db = new Database(box.dbPath, { readonly: true })
  const notes = storedParts(db).filter((p) => p.type === "text" && p.synthetic && p.text.includes("<task_notification>"))
  const all = notes.map((p) => p.text).join("\n")
  // Each child's result reached the parent once.
  expect(all.split("child A finished its work").length - 1).toBe(1)
  expect(all.split("child B finished its work").length - 1).toBe(1)
  db.close()
})

test("background e2e - run --detach exits when the parent's turn ends and stops its background subagents", async () => {
  llm.reset()
  const box = project()
  // The children hold for 20 s (their requests end when run's process does): a slow exit on a
  // loaded machine is not a child that got to answer; a run that waits for them still sees them answer.
  childGate = new Promise((r) => setTimeout(r, 20_000).unref())
  const r = await wright(["run", "--detach", "delegate both"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("parent saw 0 notes")
  expect(r.stdout).not.toMatch(/parent saw [12] notes/)
  // Neither child got to answer: the run did not wait for them.
  const db = new Database(box.dbPath, { readonly: true })
  const texts = storedParts(db).filter((p) => p.type === "text")
  expect(texts.some((p) => p.text.includes("finished its work"))).toBe(false)
  db.close()
})
