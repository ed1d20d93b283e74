import Database from "better-sqlite3"
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { LATEST_VERSION, StorageError, databasePath, openStore } from "../../src/storage"
import type { Session } from "../../src/protocol"
import { tempDir } from "../lib/tool-context"

function session(id: string, over: Partial<Session> = {}): Session {
  return {
    id,
    slug: "calm-river",
    projectID: "p1",
    directory: "/tmp/p",
    title: "New session",
    version: "test",
    time: { created: 1, updated: 1 },
    ...over,
  }
}

describe("storage", () => {
  test("storage - sessions, messages, parts and todos survive closing and reopening the file", () => {
    const file = path.join(tempDir(), "w.db")
    const a = openStore(file)
    a.sessions.put(session("ses_1"))
    a.messages.put({
      id: "msg_1",
      sessionID: "ses_1",
      role: "user",
      time: { created: 2 },
      agent: "build",
      model: { providerID: "p", modelID: "m" },
    })
    a.parts.put({ id: "prt_1", sessionID: "ses_1", messageID: "msg_1", type: "text", text: "hello" })
    a.todos.set("ses_1", [{ content: "a", status: "pending", priority: "high" }])
    a.close()

    const b = openStore(file)
    expect(b.sessions.get("ses_1")?.title).toBe("New session")
    const msgs = b.messages.list("ses_1")
    expect(msgs).toHaveLength(1)
    expect(msgs[0]!.parts[0]).toMatchObject({ type: "text", text: "hello" })
    expect(b.todos.get("ses_1")).toEqual([{ content: "a", status: "pending", priority: "high" }])
    expect(b.db.pragma("journal_mode", { simple: true })).toBe("wal")
    b.close()
  })

  test("storage - deleting a session removes its messages, parts, todos and child sessions", () => {
    const s = openStore(":memory:")
    s.sessions.put(session("ses_parent"))
    s.sessions.put(session("ses_child", { parentID: "ses_parent" }))
    s.messages.put({ id: "msg_c", sessionID: "ses_child", role: "user", time: { created: 1 }, agent: "b", model: { providerID: "p", modelID: "m" } })
    s.parts.put({ id: "prt_c", sessionID: "ses_child", messageID: "msg_c", type: "text", text: "x" })
    s.todos.set("ses_parent", [{ content: "t", status: "pending", priority: "low" }])
    s.sessions.remove("ses_parent")
    expect(s.sessions.get("ses_child")).toBeUndefined()
    expect(s.messages.list("ses_child")).toEqual([])
    expect(s.db.prepare("SELECT count(*) n FROM part").get()).toEqual({ n: 0 })
    expect(s.todos.get("ses_parent")).toEqual([])
  })

  test("storage - sessions list newest-updated first, with search, limit and roots", () => {
    const s = openStore(":memory:")
    s.sessions.put(session("ses_a", { title: "fix the parser", time: { created: 1, updated: 10 } }))
    s.sessions.put(session("ses_b", { title: "add 100% coverage", time: { created: 2, updated: 30 } }))
    s.sessions.put(session("ses_c", { title: "child", parentID: "ses_a", time: { created: 3, updated: 20 } }))
    s.sessions.put(session("ses_d", { projectID: "other", time: { created: 4, updated: 40 } }))
    expect(s.sessions.list({ projectID: "p1" }).map((x) => x.id)).toEqual(["ses_b", "ses_c", "ses_a"])
    expect(s.sessions.list({ projectID: "p1", roots: true }).map((x) => x.id)).toEqual(["ses_b", "ses_a"])
    expect(s.sessions.list({ projectID: "p1", search: "100%" }).map((x) => x.id)).toEqual(["ses_b"])
    expect(s.sessions.list({ projectID: "p1", limit: 1 }).map((x) => x.id)).toEqual(["ses_b"])
  })

  test("storage - a database from a newer wright is refused and left unchanged", () => {
    const file = path.join(tempDir(), "newer.db")
    const raw = new Database(file)
    raw.pragma(`user_version = ${LATEST_VERSION + 5}`)
    raw.exec("CREATE TABLE future (x)")
    raw.close()
    const before = readFileSync(file)
    expect(() => openStore(file)).toThrow(StorageError)
    expect(() => openStore(file)).toThrow(/newer wright \(schema version \d+; this wright knows up to \d+\)/)
    expect(readFileSync(file).equals(before)).toBe(true)
  })

  test("storage - a corrupt file gives a clear error naming it and is never wiped", () => {
    const file = path.join(tempDir(), "corrupt.db")
    const junk = Buffer.from("this is definitely not sqlite ".repeat(200))
    writeFileSync(file, junk)
    let error: unknown
    try {
      openStore(file)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(StorageError)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toMatch(/damaged or not a SQLite file/)
    expect(readFileSync(file).equals(junk)).toBe(true)
  })

  test("storage - WRIGHT_DB overrides the path; relative paths live in the data dir", () => {
    const env = { XDG_DATA_HOME: "/x/data" }
    expect(databasePath(env)).toBe("/x/data/wright/wright.db")
    expect(databasePath({ ...env, WRIGHT_DB: ":memory:" })).toBe(":memory:")
    expect(databasePath({ ...env, WRIGHT_DB: "/abs/a.db" })).toBe("/abs/a.db")
    expect(databasePath({ ...env, WRIGHT_DB: "dev.db" })).toBe("/x/data/wright/dev.db")
  })
})
