// Background subagents in process: the task tool's `background: true`, task_status, the note
// the parent gets at its next step, and the parent woken when it was idle. The scripted model
// answers by who asks (a router), since the children and the parent ask at the same time.
import { afterAll, beforeAll, expect, test } from "vitest"
import { startLLMServer, type LLMServer, type RecordedRequest, type Reply } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"

let llm: LLMServer
let route: (req: RecordedRequest) => Reply = () => ({ text: "unrouted" })
beforeAll(async () => {
  llm = await startLLMServer({ fallback: (req) => route(req) })
})
afterAll(() => llm.close())

/** Every text a request's messages carry, joined. */
const textOf = (req: RecordedRequest) => JSON.stringify(req.body.messages)
/** A child's conversation starts with its brief; the parent's only names it in its tool call. */
const isChild = (req: RecordedRequest, name: string) => JSON.stringify(req.body.messages.find((m: { role: string }) => m.role === "user")).includes(`brief-${name}`)
const notesIn = (req: RecordedRequest) => textOf(req).split("<task_notification>").length - 1

test("background - two background tasks run at once, the parent goes on and hears of each once", async () => {
  const core = await testCore({ llm })
  // The children answer once both are at the model and the parent asked again after the tool
  // results: a fixed delay only made that likely, and a loaded machine could outrun it.
  const parentAgain = () => llm.requests.filter((r) => textOf(r).includes("delegate both")).length >= 2
  const together = until(() => ["A", "B"].every((n) => llm.requests.some((r) => isChild(r, n))) && parentAgain())
  route = (req) => {
    for (const name of ["A", "B"]) if (isChild(req, name)) return { text: [`child ${name} `, "finished ", "its work"], delayMs: 50, gate: { after: 1, open: together } }
    if (!textOf(req).includes('"role":"tool"'))
      return {
        toolCalls: [
          { name: "task", input: { description: "Task A", prompt: "brief-A", subagent_type: "general", background: true } },
          { name: "task", input: { description: "Task B", prompt: "brief-B", subagent_type: "general", background: true } },
        ],
      }
    return { text: `parent saw ${notesIn(req)} notes` }
  }
  const session = await core.client.session.create()
  const first = await core.client.session.prompt(session.id, prompt("delegate both"))
  // The turn ended while both children still worked: the task calls returned at once.
  expect(first.parts.find((p) => p.type === "text")?.type === "text" && (first.parts.find((p) => p.type === "text") as { text: string }).text).toBe("parent saw 0 notes")
  const children = core.app.sessions.children(session.id)
  expect(children).toHaveLength(2)
  await waitFor(() => !core.app.sessions.busy(session.id) && children.every((c) => !core.app.sessions.busy(c.id)) && core.app.background.running(session.id).length === 0, 20_000)
  await waitFor(() => lastParentText(core) === "parent saw 2 notes", 20_000)

  // Ran concurrently: each child's request overlaps the other's.
  const [a, b] = ["A", "B"].map((n) => llm.requests.find((r) => isChild(r, n))!)
  expect(a!.time.start).toBeLessThan(b!.time.end!)
  expect(b!.time.start).toBeLessThan(a!.time.end!)
  // The parent's request after the tool results went out before either child was done.
  const parentSecond = llm.requests.filter((r) => textOf(r).includes("delegate both"))[1]!
  expect(parentSecond.time.start).toBeLessThan(Math.min(a!.time.end!, b!.time.end!))

  // Each note is in the parent's history once, with the child's final text.
  const history = core.app.sessions.messages(session.id)
  const notes = history.flatMap((m) => m.parts).filter((p) => p.type === "text" && p.synthetic && p.text.includes("<task_notification>"))
  const noteText = notes.map((p) => (p.type === "text" ? p.text : "")).join("\n")
  for (const c of children) expect(noteText.split(`<task id="${c.id}" state="completed">`).length - 1).toBe(1)
  expect(noteText).toContain("child A finished its work")
  expect(noteText).toContain("child B finished its work")
  await core.close()
})

test("background - task_status reads a running child and waits for its result", async () => {
  const core = await testCore({ llm })
  let childID = ""
  route = (req) => {
    if (isChild(req, "S")) return { text: "status child answer", delayMs: 300 }
    const body = textOf(req)
    if (!body.includes('"role":"tool"')) return { toolCalls: [{ name: "task", input: { description: "Slow one", prompt: "brief-S", subagent_type: "general", background: true } }] }
    childID = /task id=\\"(ses_[^\\"]+)\\"/.exec(body)![1]!
    if (!body.includes(`"name":"task_status"`)) return { toolCalls: [{ name: "task_status", input: { task_id: childID, wait: true } }] }
    return { text: "done waiting" }
  }
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("check on it"))
  const status = core.app.sessions
    .messages(session.id)
    .flatMap((m) => m.parts)
    .find((p) => p.type === "tool" && p.tool === "task_status")
  expect(status?.type === "tool" && status.state.status === "completed" && status.state.output).toContain(`<task id="${childID}" state="completed">`)
  expect(status?.type === "tool" && status.state.status === "completed" && status.state.output).toContain("status child answer")
  await waitFor(() => !core.app.sessions.busy(session.id) && core.app.background.running(session.id).length === 0, 20_000)
  await core.close()
})

test("background - aborting the parent aborts its background child, and the parent is not woken", async () => {
  const core = await testCore({ llm })
  route = (req) => {
    if (isChild(req, "H")) return { hang: "after-headers" }
    if (!textOf(req).includes('"role":"tool"')) return { toolCalls: [{ name: "task", input: { description: "Hangs", prompt: "brief-H", subagent_type: "general", background: true } }] }
    return { text: "parent idle" }
  }
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("start it"))
  const child = core.app.sessions.children(session.id)[0]!
  await waitFor(() => llm.inFlight() === 1, 20_000)
  const before = llm.requests.length
  await core.client.session.abort(session.id)
  await waitFor(() => core.app.background.get(child.id)?.state.status === "failed", 20_000)
  const state = core.app.background.get(child.id)!.state
  expect(state.status === "failed" && state.aborted).toBe(true)
  await new Promise((r) => setTimeout(r, 200))
  expect(core.app.sessions.busy(session.id)).toBe(false)
  expect(llm.requests.length).toBe(before)
  await core.close()
})

test("background - a child that finishes while its parent works is told at the parent's next step, in the same run", async () => {
  const core = await testCore({ llm })
  let parentID = ""
  route = (req) => {
    if (isChild(req, "Q")) return { text: "quick child answer", delayMs: 100 }
    const body = textOf(req)
    if (!body.includes('"role":"tool"')) return { toolCalls: [{ name: "task", input: { description: "Quick", prompt: "brief-Q", subagent_type: "general", background: true } }] }
    // The parent's next step is a slow one: it ends only once the child is done (a fixed delay
    // only made that likely).
    const childDone = () => llm.requests.some((r) => isChild(r, "Q") && r.time.end !== undefined) && core.app.background.running(parentID).length === 0
    if (!body.includes(`"name":"glob"`)) return { toolCalls: [{ name: "glob", input: { pattern: "*.none" } }], delayMs: 100, gate: { after: 1, open: until(childDone) } }
    return { text: `parent saw ${notesIn(req)} notes` }
  }
  const session = await core.client.session.create()
  parentID = session.id
  const answer = await core.client.session.prompt(session.id, prompt("delegate quickly"))
  await waitFor(() => !core.app.sessions.busy(session.id), 20_000)
  const parentRequests = llm.requests.filter((r) => textOf(r).includes("delegate quickly"))
  // Three steps in one run: the note rode along with the third, and nothing woke the parent again.
  expect(parentRequests.map(notesIn)).toEqual([0, 0, 1])
  expect(answer.parts.some((p) => p.type === "text" && p.text === "parent saw 1 notes")).toBe(true)
  await core.close()
})

function lastParentText(core: Awaited<ReturnType<typeof testCore>>) {
  const session = core.app.sessions.list().find((s) => !s.parentID)!
  const last = core.app.sessions.messages(session.id).findLast((m) => m.info.role === "assistant")
  const t = last?.parts.findLast((p) => p.type === "text")
  return t?.type === "text" ? t.text : undefined
}

/** Resolves once `cond` holds, or after 30 s (past any test's deadline) so no loop outlives a failed test. */
async function until(cond: () => boolean) {
  for (const end = Date.now() + 30_000; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20))
}

async function waitFor(cond: () => boolean, ms: number) {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting")
    await new Promise((r) => setTimeout(r, 20))
  }
}
