import Database from "better-sqlite3"
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { text, toolCall, type Protocol } from "../lib/llm-server"
import { providerConfig, sandbox, storedParts, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

function scriptThreeSteps() {
  server.script(
    toolCall("read", { filePath: "notes.txt" }, { text: "Let me read the notes first." }),
    toolCall("write", { filePath: "out/result.txt", content: "written by wright\n" }),
    toolCall("bash", { command: "cat out/result.txt > copied.txt && echo bash-ran", description: "Copy the result" }),
    text("All done: the notes were read, out/result.txt written and copied."),
  )
}

const PROTOCOLS: Protocol[] = ["openai-chat", "openai-responses", "anthropic", "google"]

describe.each(PROTOCOLS)("run - a 3-step tool loop over %s", (protocol) => {
  test(`run - ${protocol}: reads, writes, runs bash, answers, and persists everything`, async () => {
    const box = sandbox()
    writeFileSync(path.join(box.project, "notes.txt"), "hello from the project notes\n")
    writeConfig(box.project, providerConfig(server, protocol))
    scriptThreeSteps()

    const r = await wright(["run", "copy the notes"], { cwd: box.project, env: box.env })
    expect(r.stderr).not.toMatch(/Error:/)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("All done: the notes were read")
    expect(readFileSync(path.join(box.project, "out/result.txt"), "utf8")).toBe("written by wright\n")
    expect(readFileSync(path.join(box.project, "copied.txt"), "utf8")).toBe("written by wright\n")

    // The model saw each tool's output in the next request.
    expect(server.requests).toHaveLength(4)
    expect(JSON.stringify(server.requests[1]!.body)).toContain("hello from the project notes")
    expect(JSON.stringify(server.requests[3]!.body)).toContain("bash-ran")

    const db = new Database(box.dbPath, { readonly: true })
    const sessions = db.prepare("SELECT data FROM session").all() as { data: string }[]
    expect(sessions).toHaveLength(1)
    const messages = (db.prepare("SELECT data FROM message ORDER BY id").all() as { data: string }[]).map((r) => JSON.parse(r.data))
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant", "assistant", "assistant"])
    expect(messages.slice(1).map((m) => m.finish)).toEqual(["tool-calls", "tool-calls", "tool-calls", "stop"])
    expect(messages.every((m) => m.role === "user" || (m.time.completed && !m.error))).toBe(true)
    const parts = storedParts(db)
    const tools = parts.filter((p) => p.type === "tool")
    expect(tools.map((p) => [p.tool, p.state.status])).toEqual([
      ["read", "completed"],
      ["write", "completed"],
      ["bash", "completed"],
    ])
    expect(tools[2].state.output).toContain("bash-ran")
    expect(parts.filter((p) => p.type === "step-finish")).toHaveLength(4)
    const answer = parts.filter((p) => p.type === "text" && p.text.includes("All done"))
    expect(answer).toHaveLength(1)
    expect(answer[0].time.end).toBeGreaterThan(0)
    db.close()
  })

  test(`run - ${protocol}: --format json prints one event per line`, async () => {
    const box = sandbox()
    writeFileSync(path.join(box.project, "notes.txt"), "hello\n")
    writeConfig(box.project, providerConfig(server, protocol))
    scriptThreeSteps()

    const r = await wright(["run", "--format", "json", "copy the notes"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(0)
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l))
    const types = events.map((e) => e.type)
    expect(types.filter((t) => t === "step_start")).toHaveLength(4)
    expect(types.filter((t) => t === "step_finish")).toHaveLength(4)
    expect(events.filter((e) => e.type === "tool_use").map((e) => e.part.tool)).toEqual(["read", "write", "bash"])
    expect(events.filter((e) => e.type === "text").map((e) => e.part.text).join("")).toContain("All done")
    expect(new Set(events.map((e) => e.sessionID)).size).toBe(1)
    expect(events.every((e) => typeof e.timestamp === "number")).toBe(true)
  })
})
