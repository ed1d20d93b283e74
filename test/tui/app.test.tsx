import { afterEach, expect, test } from "vitest"
import { cleanup } from "ink-testing-library"
import type { AssistantMessage, MessageWithParts, Part, PermissionRequest, UserMessage } from "../../src/protocol"
import { mount, session, stubServer, tick } from "./stub"

afterEach(() => cleanup())

const user = (id: string, created = 1000): UserMessage => ({ id, sessionID: "ses_1", role: "user", time: { created }, agent: "build", model: { providerID: "fake", modelID: "m" } })
const assistant = (id: string, parentID: string, completed?: number): AssistantMessage => ({
  id,
  sessionID: "ses_1",
  role: "assistant",
  parentID,
  time: { created: 1001, ...(completed ? { completed } : {}) },
  modelID: "m",
  providerID: "fake",
  mode: "build",
  agent: "build",
  path: { cwd: "/tmp/project", root: "/tmp/project" },
  cost: 0,
  tokens: { input: 1200, output: 30, reasoning: 0, cache: { read: 0, write: 0 } },
  ...(completed ? { finish: "stop" } : {}),
})

async function openSession(stub: ReturnType<typeof stubServer>) {
  const ui = mount(stub)
  await ui.controller.boot()
  await ui.controller.openSession("ses_1")
  stub.emit({ type: "session.status", properties: { sessionID: "ses_1", status: { type: "busy" } } })
  stub.emit({ type: "message.updated", properties: { sessionID: "ses_1", info: user("msg_1") } })
  stub.emit({ type: "message.part.updated", properties: { sessionID: "ses_1", time: 1, part: { id: "prt_1", sessionID: "ses_1", messageID: "msg_1", type: "text", text: "hi there" } } })
  stub.emit({ type: "message.updated", properties: { sessionID: "ses_1", info: assistant("msg_2", "msg_1") } })
  return ui
}

const part = (p: Record<string, unknown>) => ({ type: "message.part.updated" as const, properties: { sessionID: "ses_1", time: 1, part: { sessionID: "ses_1", messageID: "msg_2", ...p } as Part } })

test("tui view - streamed text shows up as it arrives, many deltas coalesced into one frame", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  stub.emit(part({ id: "prt_2", type: "text", text: "" }))
  await tick()
  const before = ui.frames.length
  const words = Array.from({ length: 200 }, (_, i) => `w${i} `)
  for (const w of words) stub.emit({ type: "message.part.delta", properties: { sessionID: "ses_1", messageID: "msg_2", partID: "prt_2", field: "text", delta: w } })
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("❯ hi there")
  expect(frame).toContain("w199")
  expect(frame).toContain("working")
  // 200 deltas in one burst: a handful of frames, not 200.
  expect(ui.frames.length - before).toBeLessThan(5)
})

test("tui view - a running tool is one line with a spinner; when it completes it moves to scrollback with its output", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  const summary = { title: "$ npm test", kind: "execute", locations: [] }
  stub.emit(part({ id: "prt_3", type: "tool", callID: "c1", tool: "bash", state: { status: "running", input: { command: "npm test" }, metadata: { summary }, time: { start: Date.now() } } }))
  await tick()
  const running = ui.lastFrame()!
  expect(running).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \$ npm test/)
  stub.emit(
    part({
      id: "prt_3",
      type: "tool",
      callID: "c1",
      tool: "bash",
      state: { status: "completed", input: { command: "npm test" }, output: "12 passed\n", title: "npm test", metadata: { summary }, time: { start: 1, end: 2 } },
    }),
  )
  await tick()
  const done = ui.lastFrame()!
  expect(done).toContain("✓ $ npm test")
  expect(done).toContain("12 passed")
  // It was printed once to the static part: the live region no longer holds it.
  expect(ui.store.getState().live.some((b) => b.key === "prt_3")).toBe(false)
  expect(ui.store.getState().printed.some((p) => p.block.key === "prt_3")).toBe(true)
})

test("tui view - an edit shows its diff coloured by line", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  const diff = "Index: a.ts\n===\n--- a.ts\n+++ a.ts\n@@ -1,1 +1,1 @@\n-const a = 1\n+const a = 2\n"
  const summary = { title: "Edit a.ts", kind: "edit", locations: [{ path: "a.ts", line: 1 }] }
  stub.emit(part({ id: "prt_4", type: "tool", callID: "c2", tool: "edit", state: { status: "completed", input: { filePath: "a.ts" }, output: "ok", title: "a.ts", metadata: { diff, summary }, time: { start: 1, end: 2 } } }))
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("✓ Edit a.ts")
  expect(frame).toContain("-const a = 1")
  expect(frame).toContain("+const a = 2")
  expect(frame).not.toContain("+++ a.ts")
})

test("tui view - a tool line is the title of the summary the part carries, whatever the tool", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  // Nothing in the TUI could derive this from "read" and its input: it must come from the part.
  const summary = { title: "Consult the oracle about lib/x.ts", kind: "other", locations: [{ path: "lib/x.ts" }] }
  stub.emit(part({ id: "prt_6", type: "tool", callID: "c6", tool: "read", state: { status: "completed", input: { filePath: "/abs/lib/x.ts" }, output: "…", title: "lib/x.ts", metadata: { summary }, time: { start: 1, end: 2 } } }))
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("✓ Consult the oracle about lib/x.ts")
  expect(frame).not.toContain("/abs/lib/x.ts")
})

test("tui view - without a summary (an old server) a tool line is the tool's name and its own title", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  stub.emit(part({ id: "prt_7", type: "tool", callID: "c7", tool: "mcp_search", state: { status: "completed", input: { q: "x" }, output: "", title: "3 results\nmore", metadata: { summary: { title: 5 } }, time: { start: 1, end: 2 } } }))
  await tick()
  expect(ui.lastFrame()).toContain("✓ mcp_search 3 results")
})

const ask = (id: string): PermissionRequest => ({ id, sessionID: "ses_1", permission: "bash", patterns: ["rm -rf build"], metadata: { command: "rm -rf build" }, always: ["rm *"] })

test("tui view - a permission ask is a dialog; Enter allows once", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  stub.emit({ type: "permission.asked", properties: ask("per_1") })
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("Permission required: bash")
  expect(frame).toContain("$ rm -rf build")
  expect(frame).toContain("Allow always")
  expect(frame).toContain("always applies to: rm *")
  ui.stdin.write("\r")
  await tick()
  expect(stub.requests.find((r) => r.path === "/permission/per_1/reply")?.body).toEqual({ reply: "once" })
  expect(ui.lastFrame()).not.toContain("Permission required")
})

test("tui view - permission: arrows pick 'always'; 4 asks for a message and sends it with reject", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  stub.emit({ type: "permission.asked", properties: ask("per_2") })
  await tick()
  ui.stdin.write("\x1b[C")
  await tick()
  ui.stdin.write("\r")
  await tick()
  expect(stub.requests.find((r) => r.path === "/permission/per_2/reply")?.body).toEqual({ reply: "always" })

  stub.emit({ type: "permission.asked", properties: ask("per_3") })
  await tick()
  ui.stdin.write("4")
  await tick()
  expect(ui.lastFrame()).toContain("Tell the model what to do instead")
  ui.stdin.write("use make clean")
  await tick()
  ui.stdin.write("\r")
  await tick()
  expect(stub.requests.find((r) => r.path === "/permission/per_3/reply")?.body).toEqual({ reply: "reject", message: "use make clean" })
})

test("tui view - a question from the question tool: pick an option by number", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  stub.emit({
    type: "question.asked",
    properties: { id: "que_1", sessionID: "ses_1", questions: [{ question: "Which database?", header: "Storage", options: [{ label: "SQLite", description: "a file" }, { label: "Postgres", description: "a server" }] }] },
  })
  await tick()
  expect(ui.lastFrame()).toContain("Which database?")
  expect(ui.lastFrame()).toContain("Type your own answer")
  ui.stdin.write("2")
  await tick()
  expect(stub.requests.find((r) => r.path === "/question/que_1/reply")?.body).toEqual({ answers: [["Postgres"]] })
})

test("tui view - typing: Enter sends the prompt, Ctrl+J makes a newline, Up recalls it, Tab switches to plan", async () => {
  const stub = stubServer()
  const ui = mount(stub)
  await ui.controller.boot()
  await tick()
  ui.stdin.write("first line")
  await tick()
  ui.stdin.write("\n")
  await tick()
  ui.stdin.write("second line")
  await tick()
  expect(ui.lastFrame()).toContain("first line")
  expect(ui.lastFrame()).toContain("second line")
  ui.stdin.write("\r")
  await tick(100)
  const prompt = stub.requests.find((r) => r.path === "/session/ses_1/prompt_async")
  expect(prompt?.body).toMatchObject({ agent: "build", parts: [{ type: "text", text: "first line\nsecond line" }] })
  ui.stdin.write("\x1b[A")
  await tick()
  expect(ui.lastFrame()).toContain("second line")
  ui.stdin.write("\x03")
  await tick()
  expect(ui.lastFrame()).not.toContain("second line")
  ui.stdin.write("\t")
  await tick()
  expect(ui.store.getState().agent).toBe("plan")
  expect(ui.exited()).toBe(0)
  ui.stdin.write("\x03")
  await tick()
  expect(ui.exited()).toBe(1)
})

test("tui view - slash commands complete from a prefix and /help prints the keys", async () => {
  const stub = stubServer()
  const ui = mount(stub)
  await tick()
  ui.stdin.write("/he")
  await tick()
  expect(ui.lastFrame()).toContain("/help")
  ui.stdin.write("\r")
  await tick()
  expect(ui.lastFrame()).toContain("ctrl+j")
  expect(ui.lastFrame()).toContain("/undo")
})

test("tui view - a 2,000-message session prints only its newest page; /history prints the one before", async () => {
  const all: MessageWithParts[] = []
  for (let i = 0; i < 1000; i++) {
    const u = `msg_${String(i * 2).padStart(5, "0")}`
    const a = `msg_${String(i * 2 + 1).padStart(5, "0")}`
    all.push({ info: user(u), parts: [{ id: `prt_${u}`, sessionID: "ses_1", messageID: u, type: "text", text: `question ${i}` }] })
    all.push({ info: assistant(a, u, 2000), parts: [{ id: `prt_${a}`, sessionID: "ses_1", messageID: a, type: "text", text: `answer ${i}` }] })
  }
  const stub = stubServer({ messages: { ses_1: all } })
  const ui = mount(stub)
  await ui.controller.openSession("ses_1")
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("answer 999")
  expect(frame).toContain("question 975")
  expect(frame).not.toContain("question 974")
  expect(frame).toContain("/history")
  await ui.controller.older()
  await tick()
  expect(ui.lastFrame()).toContain("question 974")
  expect(ui.lastFrame()).toContain("question 950")
  expect(ui.lastFrame()).not.toContain("question 949")
})

test("tui view - a failed step shows its error once, in the turn's footer", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  const error = { name: "APIError" as const, data: { message: "rate limited", statusCode: 429, isRetryable: false } }
  stub.emit({ type: "session.error", properties: { sessionID: "ses_1", error } })
  stub.emit({ type: "message.updated", properties: { sessionID: "ses_1", info: { ...assistant("msg_2", "msg_1", 3000), error } as AssistantMessage } })
  stub.emit({ type: "session.status", properties: { sessionID: "ses_1", status: { type: "idle" } } })
  await tick()
  const frame = ui.lastFrame()!
  expect(frame.match(/rate limited/g)).toHaveLength(1)
  expect(frame).toContain("✗ APIError: rate limited")
})

test("tui view - an error before any answer (no assistant message) is printed as a notice", async () => {
  const stub = stubServer()
  const ui = mount(stub)
  await ui.controller.openSession("ses_1")
  stub.emit({ type: "session.error", properties: { sessionID: "ses_1", error: { name: "ProviderAuthError", data: { providerID: "fake", message: "no API key for fake" } } } })
  await tick()
  expect(ui.lastFrame()).toContain("ProviderAuthError: no API key for fake")
})

test("tui view - a server command completes after / and runs in the session with its arguments", async () => {
  const stub = stubServer({ commands: [{ name: "review", description: "review the changes" }] })
  const ui = mount(stub)
  await ui.controller.boot()
  await tick()
  ui.stdin.write("/rev")
  await tick()
  expect(ui.lastFrame()).toContain("review the changes")
  ui.stdin.write("\t")
  await tick()
  ui.stdin.write("src/a.ts")
  await tick()
  ui.stdin.write("\r")
  await tick(100)
  expect(stub.requests.find((r) => r.path === "/session/ses_1/command")?.body).toMatchObject({ command: "review", arguments: "src/a.ts", agent: "build" })
})

test("tui view - todowrite shows the list with each item's state", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  const todos = [
    { content: "write the parser", status: "completed", priority: "high" },
    { content: "test it", status: "in_progress", priority: "high" },
    { content: "ship", status: "pending", priority: "low" },
  ]
  stub.emit(part({ id: "prt_9", type: "tool", callID: "c9", tool: "todowrite", state: { status: "completed", input: { todos }, output: "", title: "2 todos", metadata: { todos }, time: { start: 1, end: 2 } } }))
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("☑ write the parser")
  expect(frame).toContain("▶ test it")
  expect(frame).toContain("☐ ship")
})

test("tui view - ctrl+o prints the last tool call again with its whole output", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  // Fits the 24-row screen (taller output opens the pager: test/e2e/tui-pager.test.ts).
  const output = Array.from({ length: 20 }, (_, i) => `out ${i}`).join("\n")
  stub.emit(part({ id: "prt_5", type: "tool", callID: "c5", tool: "bash", state: { status: "completed", input: { command: "seq" }, output, title: "seq", metadata: {}, time: { start: 1, end: 2 } } }))
  await tick()
  expect(ui.lastFrame()).toContain("out 5")
  expect(ui.lastFrame()).not.toContain("out 19")
  ui.stdin.write("\x0f")
  await tick()
  expect(ui.lastFrame()).toContain("out 19")
})

test("tui view - /sessions lists sessions, filters by typing, opens one with Enter and deletes with Del", async () => {
  const stub = stubServer({ sessions: [session("ses_1", "Fix the parser"), session("ses_2", "Write docs"), session("ses_3", "Refactor the store")] })
  const ui = mount(stub)
  await ui.controller.boot()
  ui.stdin.write("/sessions")
  await tick()
  ui.stdin.write("\r")
  await tick(100)
  expect(ui.lastFrame()).toContain("Write docs")
  ui.stdin.write("the")
  await tick()
  expect(ui.lastFrame()).not.toContain("Write docs")
  expect(ui.lastFrame()).toContain("Refactor the store")
  ui.stdin.write("\x1b[B")
  await tick()
  ui.stdin.write("\x1b[3~")
  await tick(100)
  expect(stub.requests.some((r) => r.method === "DELETE" && r.path === "/session/ses_3")).toBe(true)
  ui.stdin.write("\r")
  await tick(100)
  expect(ui.store.getState().session?.id).toBe("ses_1")
  expect(ui.lastFrame()).toContain("── Fix the parser")
})

test("tui view - /models picks a model, used by the next prompt and shown in the status line", async () => {
  const stub = stubServer()
  const ui = mount(stub)
  await ui.controller.boot()
  await tick()
  expect(ui.lastFrame()).toContain("fake/m")
  ui.stdin.write("/models")
  await tick()
  ui.stdin.write("\r")
  await tick(100)
  ui.stdin.write("big")
  await tick()
  ui.stdin.write("\r")
  await tick()
  expect(ui.lastFrame()).toContain("build · fake/big")
  ui.stdin.write("hello")
  await tick()
  ui.stdin.write("\r")
  await tick(100)
  expect(stub.requests.find((r) => r.path === "/session/ses_1/prompt_async")?.body).toMatchObject({ model: { providerID: "fake", modelID: "big" } })
})

test("tui view - ctrl+t as soon as the prompt is ready knows the configured model, however late the config answers", async () => {
  const stub = stubServer({ slow: { "/config": 300 } })
  const ui = mount(stub)
  await ui.controller.boot()
  await tick()
  expect(ui.lastFrame()).toContain("tab agents")
  ui.stdin.write("\x14")
  await tick(100)
  expect(ui.lastFrame()).toContain("fake/m has no variants")
  expect(ui.lastFrame()).not.toContain("Pick a model first")
})

test("tui view - plan_exit shows the plan to approve; approving hands over, the prompt's agent follows to build and the switch is shown", async () => {
  const stub = stubServer()
  const ui = await openSession(stub)
  ui.store.set({ agent: "plan" })
  const plan = "# Plan\n\n1. Rename greet() to hello() in src/app.ts.\n2. Run the tests."
  stub.emit({
    type: "permission.asked",
    properties: { id: "per_9", sessionID: "ses_1", permission: "plan_exit", patterns: [".wright/plans/ses_1.md"], metadata: { filepath: ".wright/plans/ses_1.md", plan }, always: ["*"] },
  })
  await tick()
  const frame = ui.lastFrame()!
  expect(frame).toContain("Approve the plan and switch to build?")
  expect(frame).toContain("1. Rename greet() to hello() in src/app.ts.")
  expect(frame).toContain("Keep planning")
  ui.stdin.write("\r")
  await tick()
  expect(stub.requests.find((r) => r.path === "/permission/per_9/reply")?.body).toEqual({ reply: "once" })
  // The tool's hand-off: a synthetic user message for build.
  stub.emit({ type: "message.updated", properties: { sessionID: "ses_1", info: { ...user("msg_3", 2000), agent: "build" } } })
  stub.emit({
    type: "message.part.updated",
    properties: { sessionID: "ses_1", time: 2, part: { id: "prt_9", sessionID: "ses_1", messageID: "msg_3", type: "text", text: "Carry out this plan: …", synthetic: true, metadata: { handoff: { from: "plan", to: "build", filepath: ".wright/plans/ses_1.md" } } } },
  })
  await tick()
  expect(ui.lastFrame()).toContain("⇄ plan → build: carrying out the approved plan (.wright/plans/ses_1.md)")
  expect(ui.lastFrame()).not.toContain("Carry out this plan")
  expect(ui.store.getState().agent).toBe("build")
})
