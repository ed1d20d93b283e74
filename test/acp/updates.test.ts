import { expect, test } from "vitest"
import { diffSides, promptParts, replay, UpdateMapper } from "../../src/acp"
import type { AssistantMessage, BusEvent, Part, ToolPart, UserMessage } from "../../src/protocol"

const DIR = "/work/project"
const S = "ses_1"

const assistant: AssistantMessage = {
  id: "msg_2",
  sessionID: S,
  role: "assistant",
  time: { created: 1 },
  parentID: "msg_1",
  modelID: "m",
  providerID: "p",
  mode: "build",
  agent: "build",
  path: { cwd: DIR, root: DIR },
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
}
const user: UserMessage = { id: "msg_1", sessionID: S, role: "user", time: { created: 0 }, agent: "build", model: { providerID: "p", modelID: "m" } }

const updated = (info: AssistantMessage | UserMessage): BusEvent => ({ type: "message.updated", properties: { sessionID: S, info } })
const part = (p: Part): BusEvent => ({ type: "message.part.updated", properties: { sessionID: S, part: p, time: 0 } })
const delta = (partID: string, d: string): BusEvent => ({ type: "message.part.delta", properties: { sessionID: S, messageID: "msg_2", partID, field: "text", delta: d } })
const text = (id: string, t: string, messageID = "msg_2"): Part => ({ id, sessionID: S, messageID, type: "text", text: t })
const tool = (state: ToolPart["state"]): Part => ({ id: "prt_t", sessionID: S, messageID: "msg_2", type: "tool", callID: "call_1", tool: "edit", state })

test("updates - streamed text is sent once: deltas, then only what the final part adds", () => {
  const m = new UpdateMapper(DIR)
  expect(m.map(updated(assistant))).toEqual([])
  expect(m.map(part(text("prt_a", "")))).toEqual([])
  expect(m.map(delta("prt_a", "Hel"))).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hel" } }])
  expect(m.map(delta("prt_a", "lo"))).toHaveLength(1)
  expect(m.map(part(text("prt_a", "Hello")))).toEqual([])
  // A part stored whole, with no deltas, still reaches the editor.
  expect(m.map(part(text("prt_b", "Whole.")))).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Whole." } }])
  expect(m.map(part({ id: "prt_r", sessionID: S, messageID: "msg_2", type: "reasoning", text: "hmm", time: { start: 0 } }))).toEqual([
    { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
  ])
})

test("updates - the user's own parts are not echoed back", () => {
  const m = new UpdateMapper(DIR)
  m.map(updated(user))
  expect(m.map(part(text("prt_u", "my prompt", "msg_1")))).toEqual([])
})

test("updates - a tool part becomes one tool_call and one update per real change", () => {
  const m = new UpdateMapper(DIR)
  m.map(updated(assistant))
  const input = { filePath: "src/a.ts", oldString: "x", newString: "y" }
  const summary = { title: "Edit src/a.ts", kind: "edit", locations: [{ path: "src/a.ts" }] }
  // While the arguments stream there is no summary yet: the call is announced generically.
  const [call] = m.map(part(tool({ status: "pending", input: {}, raw: "" })))
  expect(call).toEqual({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "edit", kind: "other", status: "pending", locations: [], rawInput: {} })
  expect(m.map(part(tool({ status: "pending", input: {}, raw: "{\"file" })))).toEqual([])
  const running = m.map(part(tool({ status: "running", input, metadata: { summary }, time: { start: 1 } })))
  expect(running).toEqual([
    { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress", title: "Edit src/a.ts", kind: "edit", locations: [{ path: "/work/project/src/a.ts" }], rawInput: input },
  ])
  expect(m.map(part(tool({ status: "running", input, metadata: { summary }, time: { start: 1 } })))).toEqual([])
  const diff = "Index: /work/project/src/a.ts\n===\n--- /work/project/src/a.ts\n+++ /work/project/src/a.ts\n@@ -1,2 +1,2 @@\n keep\n-x\n+y\n"
  const settled = { ...summary, locations: [{ path: "src/a.ts", line: 2 }] }
  const done = m.map(part(tool({ status: "completed", input, output: "Edit applied successfully.", title: "src/a.ts", metadata: { diff, filepath: "/work/project/src/a.ts", summary: settled }, time: { start: 1, end: 2 } })))
  expect(done).toHaveLength(1)
  expect(done[0]).toMatchObject({
    sessionUpdate: "tool_call_update",
    status: "completed",
    title: "Edit src/a.ts",
    kind: "edit",
    locations: [{ path: "/work/project/src/a.ts", line: 2 }],
    content: [
      { type: "content", content: { type: "text", text: "Edit applied successfully." } },
      { type: "diff", path: "/work/project/src/a.ts", oldText: "keep\nx", newText: "keep\ny" },
    ],
  })
  // A late duplicate of a settled call changes nothing.
  expect(m.map(part(tool({ status: "error", input, error: "late", time: { start: 1, end: 3 } })))).toEqual([])
})

test("updates - title, kind and files come from the summary the part carries, its paths against the message's worktree", () => {
  const m = new UpdateMapper(DIR)
  // The session runs in a package; the worktree is the repository above it.
  m.map(updated({ ...assistant, path: { cwd: DIR, root: "/work" } }))
  const summary = { title: "Frobnicate the widget", kind: "move", locations: [{ path: "lib/widget.rs", line: 7 }, { path: "/tmp/out" }] }
  const [call] = m.map(part(tool({ status: "running", input: { filePath: "ignored.ts" }, metadata: { summary }, time: { start: 1 } })))
  expect(call).toMatchObject({
    sessionUpdate: "tool_call",
    title: "Frobnicate the widget",
    kind: "move",
    status: "in_progress",
    locations: [{ path: "/work/lib/widget.rs", line: 7 }, { path: "/tmp/out" }],
  })
})

test("updates - without a summary (an old server) a call shows its tool's name and title, kind other", () => {
  const m = new UpdateMapper(DIR)
  m.map(updated(assistant))
  const input = { filePath: "src/a.ts" }
  expect(m.map(part(tool({ status: "running", input, time: { start: 1 } })))[0]).toMatchObject({ title: "edit", kind: "other", locations: [] })
  const bogus = { title: 3, kind: "teleport", locations: "x" }
  const [done] = m.map(part(tool({ status: "completed", input, output: "ok", title: "src/a.ts", metadata: { summary: bogus }, time: { start: 1, end: 2 } })))
  expect(done).toMatchObject({ status: "completed", title: "edit src/a.ts" })
  expect(done).not.toHaveProperty("kind")
  expect(done).not.toHaveProperty("locations")
})

test("updates - todos become the editor's plan (cancelled ones left out)", () => {
  const m = new UpdateMapper(DIR)
  const out = m.map({
    type: "todo.updated",
    properties: {
      sessionID: S,
      todos: [
        { content: "write tests", status: "in_progress", priority: "high" },
        { content: "dropped", status: "cancelled", priority: "low" },
      ],
    },
  })
  expect(out).toEqual([{ sessionUpdate: "plan", entries: [{ content: "write tests", status: "in_progress", priority: "high" }] }])
})

test("updates - diffSides reads both sides of a unified diff; a new file has no old text", () => {
  expect(diffSides("--- a\n+++ a\n@@ -0,0 +1,2 @@\n+one\n+two\n")).toEqual({ oldText: null, newText: "one\ntwo" })
  expect(diffSides("--- a\n+++ a\n@@ -1,2 +1,2 @@\n same\n-old\n\\ No newline at end of file\n+new\n")).toEqual({ oldText: "same\nold", newText: "same\nnew" })
  expect(diffSides("not a diff")).toBeUndefined()
})

test("updates - replay shows the user's text, then the answer and its finished tools", () => {
  const out = replay(
    [
      { info: user, parts: [text("prt_1", "question?", "msg_1"), { ...text("prt_s", "hidden", "msg_1"), synthetic: true } as Part] },
      { info: assistant, parts: [text("prt_2", "answer."), tool({ status: "error", input: { filePath: "b.ts" }, error: "boom", time: { start: 0, end: 1 } })] },
    ],
    DIR,
  )
  expect(out.map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update"])
  expect(out[3]).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: "boom" } }] })
})

test("updates - prompt blocks become parts; unsupported content and empty prompts are refused by field", () => {
  expect(promptParts([{ type: "text", text: "hi" }, { type: "image", data: "AAA", mimeType: "image/png" }, { type: "resource_link", uri: "https://example.com/x", name: "x" }])).toEqual([
    { type: "text", text: "hi" },
    { type: "file", mime: "image/png", url: "data:image/png;base64,AAA" },
    { type: "text", text: "x: https://example.com/x" },
  ])
  expect(() => promptParts([{ type: "text", text: "" }])).toThrow(/prompt: nothing to send/)
  expect(() => promptParts([{ type: "text", text: "a" }, { type: "audio", data: "", mimeType: "audio/wav" }])).toThrow(/prompt\[1\]: audio content is not supported/)
})
