// `wright run` as Harbor's OpenCode adapter drives it and reads it: its own command line
// (`run --format=json --thinking --dangerously-skip-permissions -- "<task>"`) against a scripted
// model, and its JSON lines turned into a trajectory by a small parser written from OpenCode's
// documented event shapes (`{type, timestamp, sessionID, part}`; a step is everything between
// a `step_start` and its `step_finish`, which carries the step's tokens and cost).
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall, toolCalls } from "../lib/llm-server"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

interface Call {
  tool: string
  callID: string
  input: unknown
  output: unknown
}
interface Step {
  text: string
  reasoning: string
  calls: Call[]
  tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } }
  cost?: number
}

/** What a harness keeps of a run: its steps, and the lines it could not place in one. */
function trajectory(stdout: string) {
  const steps: Step[] = []
  const stray: string[] = []
  let open: Step | undefined
  for (const line of stdout.split("\n").filter(Boolean)) {
    const event = JSON.parse(line) as { type: string; part: any }
    if (event.type === "step_start") {
      if (open) stray.push("step_start inside a step")
      open = { text: "", reasoning: "", calls: [] }
      continue
    }
    if (!["text", "reasoning", "tool_use", "step_finish"].includes(event.type)) continue
    if (!open) {
      stray.push(event.type)
      continue
    }
    if (event.type === "text") open.text += event.part.text
    if (event.type === "reasoning") open.reasoning += event.part.text
    if (event.type === "tool_use") open.calls.push({ tool: event.part.tool, callID: event.part.callID, input: event.part.state.input, output: event.part.state.output ?? event.part.state.error })
    if (event.type === "step_finish") {
      open.tokens = event.part.tokens
      open.cost = event.part.cost
      steps.push(open)
      open = undefined
    }
  }
  const total = { input: 0, output: 0, cost: 0 }
  for (const s of steps) {
    total.input += s.tokens?.input ?? 0
    total.output += s.tokens?.output ?? 0
    total.cost += s.cost ?? 0
  }
  return { steps, stray, total }
}

test("run harbor - Harbor's command line works and its parser finds every tool call, its input and output, and the token totals", async () => {
  const box = sandbox()
  // Every bash call asks: only --dangerously-skip-permissions lets them through.
  writeConfig(box.project, { ...providerConfig(server, "anthropic"), permission: { bash: { "*": "ask" } } })
  writeFileSync(path.join(box.project, "notes.txt"), "NOTES-CONTENT\n")
  server.script(
    toolCalls(
      [
        { name: "bash", input: { command: "echo from-bash", description: "Say it" } },
        { name: "read", input: { filePath: "notes.txt" } },
      ],
      { reasoning: "Look first.", text: "Looking around.", usage: { input: 100, output: 10 } },
    ),
    toolCall("write", { filePath: "out.txt", content: "written\n" }, { usage: { input: 200, output: 20 } }),
    text("All done.", { usage: { input: 300, output: 30 } }),
  )

  const task = "--look at the notes and write out.txt"
  const r = await wright(["run", "--format=json", "--thinking", "--dangerously-skip-permissions", "--", task], { cwd: box.project, env: box.env })
  expect(r.code, r.stderr).toBe(0)
  expect(JSON.stringify(server.requests[0]!.body)).toContain(task)
  expect(readFileSync(path.join(box.project, "out.txt"), "utf8")).toBe("written\n")

  const { steps, stray, total } = trajectory(r.stdout)
  // Before, each tool_use came after its step's step_finish: Harbor dropped every call.
  expect(stray).toEqual([])
  // Calls of one step run side by side: each is shown as it settles.
  expect(steps.map((s) => s.calls.map((c) => c.tool).sort())).toEqual([["bash", "read"], ["write"], []])
  const bash = steps[0]!.calls.find((c) => c.tool === "bash")
  const read = steps[0]!.calls.find((c) => c.tool === "read")
  expect(bash!.input).toEqual({ command: "echo from-bash", description: "Say it" })
  expect(bash!.output).toContain("from-bash")
  expect(read!.input).toEqual({ filePath: "notes.txt" })
  expect(read!.output).toContain("NOTES-CONTENT")
  expect(steps[1]!.calls[0]!.output).toBeTruthy()
  expect(new Set(steps.flatMap((s) => s.calls.map((c) => c.callID))).size).toBe(3)
  expect(steps[0]!.reasoning).toBe("Look first.")
  expect(steps[0]!.text).toBe("Looking around.")
  expect(steps[2]!.text).toBe("All done.")
  expect(total.input).toBe(600)
  expect(total.output).toBe(60)
  expect(steps.every((s) => typeof s.cost === "number")).toBe(true)
})

test("run harbor - a subagent's steps stay out of the JSON lines, as in OpenCode: its work is the task call's output", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  writeFileSync(path.join(box.project, "notes.txt"), "NOTES-CONTENT\n")
  server.script(
    toolCall("task", { description: "read the notes", prompt: "read notes.txt", subagent_type: "general" }),
    toolCall("read", { filePath: "notes.txt" }),
    text("The notes say NOTES-CONTENT."),
    text("Done."),
  )
  const r = await wright(["run", "--format=json", "--", "delegate"], { cwd: box.project, env: box.env })
  expect(r.code, r.stderr).toBe(0)
  const lines = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { sessionID: string })
  expect(new Set(lines.map((l) => l.sessionID)).size).toBe(1)
  const { steps, stray } = trajectory(r.stdout)
  // Before, the child's step_start came inside the parent's step: a harness split it in two.
  expect(stray).toEqual([])
  expect(steps.map((s) => s.calls.map((c) => c.tool))).toEqual([["task"], []])
  expect(steps[0]!.calls[0]!.output).toContain("The notes say NOTES-CONTENT.")
  expect(steps[1]!.text).toBe("Done.")
})
