// `wright run` where nobody watches it (a CI runner, a benchmark harness, a subprocess with a
// pipe): the built binary against a scripted model. Stdin left open never blocks a run with a
// message; an ask nobody can answer fails the run, a subagent's too; --timeout stops the run.
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { finished, LAUNCHER, providerConfig, sandbox, type Sandbox, storedParts, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

function project(config: Record<string, unknown> = {}): Sandbox {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), ...config })
  return box
}

/** The binary with a stdin pipe this test holds open and never writes to, as a CI runner does. */
function spawnOpenStdin(args: string[], box: Sandbox) {
  const child = spawn(LAUNCHER, args, { cwd: box.project, env: { ...box.env, WRIGHT_NODE: process.execPath }, stdio: ["pipe", "pipe", "pipe"] }) as ReturnType<typeof spawn> & { output: { stdout: string; stderr: string } }
  child.output = { stdout: "", stderr: "" }
  child.stdout!.on("data", (d) => (child.output.stdout += d))
  child.stderr!.on("data", (d) => (child.output.stderr += d))
  return child
}

test("run headless - a message with stdin an open pipe nobody closes: the run answers and says it did not wait", async () => {
  const box = project()
  server.script(text("Answered without stdin."))
  const child = spawnOpenStdin(["run", "say hello"], box)
  // Before the fix the run read stdin to its end and never got there.
  const r = await finished(child as never, 30_000)
  child.stdin!.destroy()
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain("Answered without stdin.")
  expect(r.stderr).toMatch(/stdin: nothing arrived within \d+ ms, going on without it/)
  expect(JSON.stringify(server.requests[0]!.body)).toContain("say hello")
})

test("run headless - piped input that arrives at once is appended; a `-` waits for stdin to its end", async () => {
  const box = project()
  server.script(text("ok"), text("ok"), text("ok"))
  const appended = await wright(["run", "summarise this"], { cwd: box.project, env: box.env, input: "PIPED-CONTENT\n" })
  expect(appended.code, appended.stderr).toBe(0)
  expect(appended.stderr).not.toContain("nothing arrived")
  expect(JSON.stringify(server.requests[0]!.body)).toContain("summarise this\\n\\nPIPED-CONTENT")

  // `-`: a writer that takes its time is still waited for.
  const child = spawnOpenStdin(["run", "-"], box)
  setTimeout(() => child.stdin!.end("ONLY-FROM-STDIN\n"), 800)
  const dash = await finished(child as never, 30_000)
  expect(dash.code, dash.stderr).toBe(0)
  const body = JSON.stringify(server.requests[1]!.body)
  expect(body).toContain("ONLY-FROM-STDIN")
  expect(body).not.toContain('"-"')

  // `-` beside a message: a slow writer's input is appended to it.
  const slow = spawnOpenStdin(["run", "review this", "-"], box)
  setTimeout(() => slow.stdin!.end("SLOW-DIFF\n"), 800)
  const beside = await finished(slow as never, 30_000)
  expect(beside.code, beside.stderr).toBe(0)
  expect(JSON.stringify(server.requests[2]!.body)).toContain("review this\\n\\nSLOW-DIFF")
})

test("run headless - a subagent's ask nobody can answer is refused at once and the run exits 1 naming the rule that would allow it", async () => {
  const box = project({ permission: { bash: { "*": "ask" } } })
  server.script(
    toolCall("task", { description: "make a file", prompt: "touch made-by-child", subagent_type: "general" }),
    toolCall("bash", { command: "touch made-by-child", description: "make it" }),
    text("The subagent reported back."),
  )
  const r = await wright(["run", "delegate it"], { cwd: box.project, env: box.env })
  expect(r.stderr).toMatch(/permission requested: bash \(touch made-by-child\); auto-rejecting/)
  expect(existsSync(path.join(box.project, "made-by-child"))).toBe(false)
  // The parent went on and answered; before the fix that was exit 0.
  expect(r.stdout).toContain("The subagent reported back.")
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(/A tool call was refused and stopped:.*Allow it with "permission": \{"bash": \{"touch \*": "allow"\}\}/)
})

test("run headless - --timeout stops a run past its budget: the session is aborted, the running call settled, exit 124", async () => {
  const box = project()
  server.script(toolCall("bash", { command: "sleep 60", description: "wait a long time" }), text("never reached"))
  const started = Date.now()
  const r = await wright(["run", "--timeout", "3", "wait"], { cwd: box.project, env: box.env, timeoutMs: 40_000 })
  expect(r.code, r.stderr).toBe(124)
  expect(Date.now() - started).toBeLessThan(20_000)
  expect(r.stderr).toContain("Timed out: the run passed its --timeout of 3 s")
  const db = new Database(box.dbPath, { readonly: true })
  const tools = storedParts(db).filter((p) => p.type === "tool")
  db.close()
  expect(tools.map((p) => p.state.status)).toEqual(["completed"])
  expect(tools[0].state.output).toContain("User aborted the command")
  expect(server.pending()).toBe(1)

  // The budget counts from the start: waiting for stdin to close (`-`) is in it too.
  const waiting = spawnOpenStdin(["run", "--timeout", "1", "-"], box)
  const early = await finished(waiting as never, 20_000)
  waiting.stdin!.destroy()
  expect(early.code).toBe(124)
  expect(early.stderr).toContain("the run passed its --timeout of 1 s before the agent started")

  const bad = await wright(["run", "--timeout", "0", "x"], { cwd: box.project, env: box.env })
  expect(bad.code).toBe(1)
  expect(bad.stderr).toContain("--timeout: give the run's budget in seconds")
})
