// Nothing the user was shown is lost: a SIGKILL in the middle of a streamed answer leaves a
// database that opens, with the session and every part persisted before the kill, and
// `wright run -c` carries on from it. The BUILT binary against the scripted llm-server.
import Database from "better-sqlite3"
import { existsSync } from "node:fs"
import { expect, test } from "vitest"
import { text } from "../lib/llm-server"
import { finished, providerConfig, sandbox, type Sandbox, spawnWright, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

interface Snapshot {
  sessions: any[]
  messages: any[]
  parts: any[]
}

/** Reads the database as another process would, while wright may still be writing to it. */
function snapshot(box: Sandbox): Snapshot {
  const db = new Database(box.dbPath, { readonly: true, fileMustExist: true })
  try {
    const rows = (table: string, order: string) => (db.prepare(`SELECT data FROM ${table} ORDER BY ${order}`).all() as { data: string }[]).map((r) => JSON.parse(r.data))
    return { sessions: rows("session", "id"), messages: rows("message", "id"), parts: rows("part", "message_id, id") }
  } finally {
    db.close()
  }
}

function until(pred: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const start = Date.now()
    const tick = () => {
      let ok = false
      try {
        ok = pred()
      } catch {
        ok = false // e.g. the database does not exist yet
      }
      if (ok) return resolve()
      if (Date.now() - start > timeoutMs) return reject(new Error(`timed out waiting for ${what}`))
      setTimeout(tick, 20)
    }
    tick()
  })
}

const answerText = (s: Snapshot) => s.parts.find((p) => p.type === "text" && s.messages.some((m) => m.id === p.messageID && m.role === "assistant"))?.text as string | undefined

test("durability - SIGKILL mid-answer keeps what was persisted, and run -c continues the session", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  // 300 words, 10 ms apart; after 150 events the stream hangs, so the kill comes mid-answer
  // however slow the machine (3 s of streaming could end before a loaded machine killed it).
  const words = Array.from({ length: 300 }, (_, i) => `w${i} `)
  const sent = words.join("")
  server.script({ text: words, delayMs: 10, hang: 150 })

  const child = spawnWright(["run", "tell me the long story"], { cwd: box.project, env: box.env })
  const exited = finished(child, 30_000)
  await until(() => child.output.stdout.includes("w40 "), "part of the answer on stdout")
  // Text is persisted on a short throttle while it streams: wait until some of it is on disk.
  await until(() => (answerText(snapshot(box)) ?? "").length > 0, "streamed text in the database")
  const seenBeforeKill = answerText(snapshot(box))!
  child.kill("SIGKILL")
  const killed = await exited
  expect(killed.signal).toBe("SIGKILL")
  expect(child.output.stdout.length).toBeLessThan(sent.length) // it really died mid-answer

  // The database opens and holds the session, the user message and the partial answer.
  const after = snapshot(box)
  expect(after.sessions).toHaveLength(1)
  expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant"])
  const user = after.parts.find((p) => p.type === "text" && p.messageID === after.messages[0].id)
  expect(user.text).toBe("tell me the long story")
  expect(after.parts.some((p) => p.type === "step-start")).toBe(true)
  const partial = answerText(after)!
  expect(partial.length).toBeGreaterThanOrEqual(seenBeforeKill.length)
  expect(partial.length).toBeLessThan(sent.length)
  expect(sent.startsWith(partial)).toBe(true)

  // A new process continues the same session; the model sees the earlier conversation.
  server.script(text("Continuing where we stopped."))
  const r = await wright(["run", "-c", "please go on"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Continuing where we stopped.")
  expect(server.requests).toHaveLength(2)
  const history = JSON.stringify(server.requests[1]!.body.messages)
  expect(history).toContain("tell me the long story")
  expect(history).toContain("please go on")

  const final = snapshot(box)
  expect(final.sessions).toHaveLength(1)
  expect(final.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"])
  // The step cut off by the kill is closed as interrupted, not left running for ever.
  expect(final.messages[1].time.completed).toBeGreaterThan(0)
  expect(final.messages[1].error?.name).toBe("MessageAbortedError")
  const last = final.messages[3]
  expect(last.finish).toBe("stop")
  expect(last.error).toBeUndefined()
  expect(final.parts.some((p) => p.messageID === last.id && p.type === "text" && p.text === "Continuing where we stopped.")).toBe(true)
})

test("durability - a SIGKILL before any answer leaves a database that the next run opens", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  server.script({ hang: "after-headers" })
  const child = spawnWright(["run", "first question"], { cwd: box.project, env: box.env })
  const exited = finished(child, 30_000)
  await until(() => server.inFlight() === 1, "the request to reach the llm-server")
  child.kill("SIGKILL")
  await exited
  expect(existsSync(box.dbPath)).toBe(true)

  server.script(text("Fresh answer."))
  const r = await wright(["run", "second question"], { cwd: box.project, env: box.env })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Fresh answer.")
  const s = snapshot(box)
  expect(s.sessions).toHaveLength(2)
  expect(s.parts.some((p) => p.type === "text" && p.text === "first question")).toBe(true)
})

test("durability - the whole answer reaches stdout even when the reader is slow", async () => {
  // More than a pipe buffer (64 KiB) of answer, read slowly: wright must wait for the pipe
  // to drain before it exits, never drop the tail.
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const chunks = Array.from({ length: 200 }, (_, i) => `${String(i).padStart(4, "0")}:${"x".repeat(995)}\n`)
  server.script({ text: chunks })
  const child = spawnWright(["run", "print a lot"], { cwd: box.project, env: box.env })
  child.stdout!.removeAllListeners("data")
  let stdout = ""
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  // A slow reader: it listens from the start (Node drops a child's output nobody listens to
  // when the child exits), but holds the first chunk for 500 ms and each later one for 5 ms.
  let first = true
  await new Promise<void>((resolve) => {
    child.stdout!.on("data", (d) => {
      stdout += d
      child.stdout!.pause()
      setTimeout(() => child.stdout!.resume(), first ? 500 : 5)
      first = false
    })
    child.stdout!.on("end", () => resolve())
  })
  expect(await exit).toBe(0)
  const sent = chunks.join("").trimEnd()
  const got = stdout.trimEnd()
  // Compared as a summary: a 200 KB diff helps nobody.
  expect({ chars: got.length, intact: got === sent }).toEqual({ chars: sent.length, intact: true })
})
