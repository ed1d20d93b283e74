import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import type { BusEvent } from "../../src/protocol"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

function toolParts(core: TestCore, sessionID: string) {
  return core.app.sessions.messages(sessionID).flatMap((m) => m.parts).filter((p) => p.type === "tool")
}

/** Answers every permission ask of the core with `decide(request)`. */
function answerAsks(core: TestCore, decide: (e: Extract<BusEvent, { type: "permission.asked" }>["properties"]) => { reply: "once" | "always" | "reject"; message?: string }) {
  return core.app.bus.subscribe("permission.asked", (e) => {
    const { reply, message } = decide(e.properties)
    setTimeout(() => core.client.request("POST", `/permission/${e.properties.id}/reply`, { body: { reply, ...(message ? { message } : {}) } }), 5)
  })
}

test("permission loop - a denied bash command reaches the model as a tool error and the loop ends", async () => {
  const core = await testCore({ llm, config: { permission: { bash: { "*": "allow", "rm *": "deny" } } } })
  llm.script(toolCall("bash", { command: "echo start && rm -rf build", description: "clean" }))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("clean up"))
  const [part] = toolParts(core, session.id)
  expect(part?.type === "tool" && part.state.status).toBe("error")
  expect(part?.type === "tool" && part.state.status === "error" && part.state.error).toMatch(/A permission rule forbids this call/)
  // The loop stopped after the denial: one request only, no further step.
  expect(llm.requests).toHaveLength(1)
  expect(result.info.role === "assistant" && result.info.finish).toBe("tool-calls")
  expect(core.events.some((e) => e.type === "permission.asked")).toBe(false)
  await core.close()
})

test("permission loop - a reject with a message reaches the model as the user's feedback and the loop goes on", async () => {
  const core = await testCore({ llm, config: { permission: { bash: "ask" } } })
  answerAsks(core, () => ({ reply: "reject", message: "use pnpm, not npm" }))
  llm.script(toolCall("bash", { command: "npm install", description: "install" }), text("Understood, switching to pnpm."))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("install deps"))
  const [part] = toolParts(core, session.id)
  expect(part?.type === "tool" && part.state.status === "error" && part.state.error).toContain("use pnpm, not npm")
  expect(JSON.stringify(llm.requests[1]!.body)).toContain("use pnpm, not npm")
  await core.close()
})

test("permission loop - a plain reject stops the loop", async () => {
  const core = await testCore({ llm, config: { permission: { bash: "ask" } } })
  answerAsks(core, () => ({ reply: "reject" }))
  llm.script(toolCall("bash", { command: "make deploy", description: "deploy" }))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("deploy"))
  expect(llm.requests).toHaveLength(1)
  const [part] = toolParts(core, session.id)
  expect(part?.type === "tool" && part.state.status === "error" && part.state.error).toMatch(/The user rejected this tool call/)
  await core.close()
})

test("permission loop - 'always' stops further asks for the same command prefix", async () => {
  const core = await testCore({ llm, config: { permission: { bash: "ask" } } })
  const asked: string[][] = []
  answerAsks(core, (req) => {
    asked.push(req.always)
    return { reply: "always" }
  })
  llm.script(
    toolCall("bash", { command: "git status", description: "status" }),
    toolCall("bash", { command: "git status --short", description: "short status" }),
    toolCall("bash", { command: "git log -1", description: "log" }),
    text("done"),
  )
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("check git"))
  // Asked for git status once (always: "git status *"), not again for --short; git log is a new prefix.
  expect(asked).toEqual([["git status *"], ["git log *"]])
  expect(toolParts(core, session.id).every((p) => p.type === "tool" && p.state.status === "completed")).toBe(true)
  await core.close()
})

test("permission loop - the same call three times running asks about a doom loop", async () => {
  const core = await testCore({ llm, files: { "a.txt": "a" } })
  const asked: string[] = []
  answerAsks(core, (req) => {
    asked.push(req.permission)
    return { reply: "reject" }
  })
  llm.script(toolCall("read", { filePath: "a.txt" }), toolCall("read", { filePath: "a.txt" }), toolCall("read", { filePath: "a.txt" }))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("read it"))
  expect(asked).toEqual(["doom_loop"])
  const parts = toolParts(core, session.id)
  expect(parts.map((p) => p.type === "tool" && p.state.status)).toEqual(["completed", "completed", "error"])
  await core.close()
})

test("permission loop - a tool denied for * is not offered to the model at all", async () => {
  const core = await testCore({ llm, config: { permission: { webfetch: "deny", edit: "deny" } } })
  llm.script(text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("hi"))
  const names = llm.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)
  expect(names).not.toContain("webfetch")
  expect(names).not.toContain("edit")
  expect(names).not.toContain("write")
  expect(names).toContain("bash")
  await core.close()
})
