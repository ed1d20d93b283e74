// The sdk's session state reducer, as the web UI folds the global event stream with it.
import { expect, test } from "vitest"
import type { BusEvent, MessageWithParts, Session } from "../../src/protocol"
import { addSessions, applyEvent, createSessionState, isBusy, loadMessages } from "../../src/sdk"

const session = (id: string, title = id): Session => ({ id, slug: id, projectID: "p", directory: "/p", title, version: "1", time: { created: 1, updated: 1 } }) as Session
const user = (id: string): MessageWithParts => ({ info: { id, sessionID: "ses_a", role: "user", agent: "build", model: { providerID: "f", modelID: "m" }, time: { created: 1 } } as never, parts: [] })
const ev = (e: { type: string; properties: unknown }) => e as BusEvent

test("session state - a text delta appends to its part; parts and messages stay in id order", () => {
  const s = createSessionState()
  addSessions(s, "/p", [session("ses_a")])
  loadMessages(s, "ses_a", [user("msg_2"), user("msg_1")])
  expect(s.messages.get("ses_a")!.map((m) => m.info.id)).toEqual(["msg_1", "msg_2"])
  const part = (id: string, text: string) => ({ id, sessionID: "ses_a", messageID: "msg_2", type: "text", text })
  applyEvent(s, ev({ type: "message.part.updated", properties: { sessionID: "ses_a", part: part("prt_2", "b"), time: 1 } }), "/p")
  applyEvent(s, ev({ type: "message.part.updated", properties: { sessionID: "ses_a", part: part("prt_1", "Hel"), time: 1 } }), "/p")
  const before = s.version
  expect(applyEvent(s, ev({ type: "message.part.delta", properties: { sessionID: "ses_a", messageID: "msg_2", partID: "prt_1", field: "text", delta: "lo" } }), "/p")).toBe(true)
  expect(s.version).toBe(before + 1)
  expect(s.messages.get("ses_a")![1]!.parts.map((p) => [p.id, (p as { text: string }).text])).toEqual([
    ["prt_1", "Hello"],
    ["prt_2", "b"],
  ])
  // A delta of a session whose history is not loaded changes nothing.
  expect(applyEvent(s, ev({ type: "message.part.delta", properties: { sessionID: "ses_x", messageID: "m", partID: "p", field: "text", delta: "x" } }), "/p")).toBe(false)
})

test("session state - sessions of any project, their status, asks and the inbox follow the events", () => {
  const s = createSessionState()
  applyEvent(s, ev({ type: "session.created", properties: { sessionID: "ses_b", info: session("ses_b", "from run") } }), "/other")
  expect(s.sessions.get("ses_b")).toMatchObject({ directory: "/other", info: { title: "from run" } })
  applyEvent(s, ev({ type: "session.status", properties: { sessionID: "ses_b", status: { type: "busy" } } }), "/other")
  expect(isBusy(s, "ses_b")).toBe(true)
  applyEvent(s, ev({ type: "permission.asked", properties: { id: "per_1", sessionID: "ses_b", permission: "edit", patterns: ["a"], metadata: {}, always: ["*"] } }), "/other")
  expect([...s.permissions.keys()]).toEqual(["per_1"])
  applyEvent(s, ev({ type: "permission.replied", properties: { sessionID: "ses_b", requestID: "per_1", reply: "once" } }), "/other")
  expect(s.permissions.size).toBe(0)
  applyEvent(s, ev({ type: "session.inbox.updated", properties: { sessionID: "ses_b", items: [{ id: "inb_1", sessionID: "ses_b", delivery: "queue", parts: [{ type: "text", text: "next" }], time: { created: 1 } }] } }), "/other")
  expect(s.inbox.get("ses_b")!.map((i) => i.parts[0]!.text)).toEqual(["next"])
  applyEvent(s, ev({ type: "session.idle", properties: { sessionID: "ses_b" } }), "/other")
  expect(isBusy(s, "ses_b")).toBe(false)
})
