// A tool part's output lives in its own column, and a cleared (compacted) output is not read
// when a session loads: the part reads it from disk when someone asks for it.
import Database from "better-sqlite3"
import path from "node:path"
import { expect, test } from "vitest"
import { openStore, outputOnDisk } from "../../src/storage"
import { migrations } from "../../src/storage/migrations"
import type { Part, Session, ToolPart } from "../../src/protocol"
import { tempDir } from "../lib/tool-context"

const session: Session = { id: "ses_1", slug: "s", projectID: "p", directory: "/tmp/p", title: "t", version: "test", time: { created: 1, updated: 1 } }
const message = { id: "msg_1", sessionID: "ses_1", role: "user" as const, time: { created: 1 }, agent: "build", model: { providerID: "p", modelID: "m" } }

function tool(id: string, output: string, compacted?: number): ToolPart {
  return {
    id,
    sessionID: "ses_1",
    messageID: "msg_1",
    type: "tool",
    callID: `call_${id}`,
    tool: "read",
    state: { status: "completed", input: { filePath: "a.ts" }, output, title: "a.ts", metadata: { lines: 3 }, time: { start: 1, end: 2, ...(compacted ? { compacted } : {}) } },
  }
}

function seeded(file: string) {
  const store = openStore(file)
  store.sessions.put(session)
  store.messages.put(message)
  return store
}

test("storage - a tool output round-trips exactly, in the same key order, and is not duplicated in data", () => {
  const file = path.join(tempDir(), "w.db")
  const a = seeded(file)
  const live = tool("prt_1", "line one\nline \"two\" \u00e9\n")
  a.parts.put(live)
  a.close()
  const b = openStore(file)
  const [loaded] = b.messages.list("ses_1")[0]!.parts
  expect(JSON.stringify(loaded)).toBe(JSON.stringify(live))
  expect(outputOnDisk(loaded!)).toBe(false)
  const row = b.db.prepare("SELECT data, output FROM part WHERE id = 'prt_1'").get() as { data: string; output: string }
  expect(row.output).toBe(live.state.status === "completed" ? live.state.output : "")
  expect(row.data).not.toContain("line one")
  b.close()
})

test("storage - a cleared output stays on disk at load, yet JSON, spread, clone and ofMessage all give its text", () => {
  const file = path.join(tempDir(), "w.db")
  const a = seeded(file)
  const big = "x".repeat(50_000)
  const live = tool("prt_1", big, 5)
  a.parts.put(live)
  a.parts.put(tool("prt_2", "kept"))
  a.close()
  const b = openStore(file)
  const [cleared, kept] = b.messages.list("ses_1")[0]!.parts as [Part, Part]
  expect(outputOnDisk(cleared)).toBe(true)
  expect(outputOnDisk(kept)).toBe(false)
  expect(JSON.stringify(cleared)).toBe(JSON.stringify(live))
  expect(structuredClone(cleared)).toEqual(live)
  const spread = { ...(cleared as ToolPart).state } as { output: string }
  expect(spread.output).toBe(big)
  expect(JSON.stringify(b.parts.ofMessage("msg_1")[0])).toBe(JSON.stringify(live))
  // Assigning replaces the on-disk read with a plain value.
  ;(cleared as ToolPart & { state: { output: string } }).state.output = "new"
  expect(outputOnDisk(cleared)).toBe(false)
  expect((cleared as ToolPart & { state: { output: string } }).state.output).toBe("new")
  // Writing it back keeps the column and the flag in step.
  b.parts.put(cleared)
  expect(b.db.prepare("SELECT compacted, output FROM part WHERE id = 'prt_1'").get()).toEqual({ compacted: 5, output: "new" })
  b.close()
})

test("storage - a version-2 database is migrated: outputs move to their column and every part reads back the same", () => {
  const file = path.join(tempDir(), "old.db")
  const raw = new Database(file)
  for (const m of migrations.filter((m) => m.version <= 2)) raw.exec(m.sql)
  raw.pragma("user_version = 2")
  raw.prepare("INSERT INTO session (id, project_id, directory, title, time_created, time_updated, data) VALUES (?, ?, ?, ?, 1, 1, ?)").run("ses_1", "p", "/tmp/p", "t", JSON.stringify(session))
  raw.prepare("INSERT INTO message (id, session_id, time_created, data) VALUES (?, ?, 1, ?)").run("msg_1", "ses_1", JSON.stringify(message))
  const parts: Part[] = [
    tool("prt_1", "old output", 7),
    tool("prt_2", "recent output"),
    { id: "prt_3", sessionID: "ses_1", messageID: "msg_1", type: "text", text: "hello" },
    { ...tool("prt_4", ""), state: { status: "error", input: {}, error: "boom", time: { start: 1, end: 2 } } },
  ]
  for (const p of parts) raw.prepare("INSERT INTO part (id, message_id, session_id, data) VALUES (?, ?, ?, ?)").run(p.id, p.messageID, p.sessionID, JSON.stringify(p))
  raw.close()

  const store = openStore(file)
  const loaded = store.messages.list("ses_1")[0]!.parts
  expect(loaded.map((p) => JSON.stringify(p))).toEqual(parts.map((p) => JSON.stringify(p)))
  expect(loaded.map(outputOnDisk)).toEqual([true, false, false, false])
  const rows = store.db.prepare("SELECT id, compacted, output FROM part ORDER BY id").all()
  expect(rows).toEqual([
    { id: "prt_1", compacted: 7, output: "old output" },
    { id: "prt_2", compacted: null, output: "recent output" },
    { id: "prt_3", compacted: null, output: null },
    { id: "prt_4", compacted: null, output: null },
  ])
  store.close()
})
