// Helpers of the resume tests (resume.test.ts, resume-bound.test.ts): the database read as a
// third process sees it, and a run killed with SIGKILL once it reached a given state.
import Database from "better-sqlite3"
import { expect } from "vitest"
import type { LLMServer } from "../lib/llm-server"
import { finished, providerConfig, sandbox, spawnWright, storedParts, writeConfig, type Sandbox } from "../lib/e2e"

/** The crash note the model reads for a call that was running (session/tool-state.ts CRASHED). */
export const NOTE = "interrupted: wright stopped while this ran"

/** A fresh home and project whose model is the scripted one. */
export function project(llm: LLMServer) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  return box
}

/** The database as a third process sees it. */
export function read(box: Sandbox) {
  const db = new Database(box.dbPath, { readonly: true, fileMustExist: true })
  try {
    const rows = (sql: string) => (db.prepare(sql).all() as { data: string }[]).map((r) => JSON.parse(r.data))
    return { sessions: rows("SELECT data FROM session ORDER BY id"), messages: rows("SELECT data FROM message ORDER BY id"), parts: storedParts(db) }
  } finally {
    db.close()
  }
}

export async function until(pred: () => boolean, what: string, ms = 20_000) {
  const start = Date.now()
  for (;;) {
    let ok = false
    try {
      ok = pred()
    } catch {
      ok = false // the database may not exist yet
    }
    if (ok) return
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

export const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `)
export const textOf = (s: ReturnType<typeof read>, messageID: string) =>
  s.parts
    .filter((p) => p.messageID === messageID && p.type === "text" && !p.synthetic)
    .map((p) => p.text)
    .join("")

/** Starts `run`, waits until `ready` holds for the database, and kills it with SIGKILL. */
export async function crash(box: Sandbox, args: string[], ready: (s: ReturnType<typeof read>) => boolean, what: string) {
  const child = spawnWright(args, { cwd: box.project, env: box.env })
  const exited = finished(child, 40_000)
  await until(() => ready(read(box)), what)
  child.kill("SIGKILL")
  expect((await exited).signal).toBe("SIGKILL")
}

/** Every part id is stored once, and every message has at most one step-start per step. */
export function expectNoDuplicates(s: ReturnType<typeof read>) {
  const ids = s.parts.map((p) => p.id)
  expect(new Set(ids).size).toBe(ids.length)
  for (const m of s.messages.filter((m) => m.role === "assistant")) expect(s.parts.filter((p) => p.messageID === m.id && p.type === "step-start").length).toBeLessThanOrEqual(1)
}

/** The tool result the model was sent for `callID` (OpenAI Chat: a `tool` message). */
export function toolResultSent(body: any, callID: string): string | undefined {
  const m = (body.messages as any[]).find((x) => x.role === "tool" && x.tool_call_id === callID)
  return m === undefined ? undefined : typeof m.content === "string" ? m.content : JSON.stringify(m.content)
}
