import { existsSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { answerText, prompt, testCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("subagent - the task tool runs a child session with the subagent and returns its last text", async () => {
  const core = await testCore({ llm, files: { "src/auth.ts": "export const secret = 42\n" } })
  llm.script(
    toolCall("task", { description: "Find the auth code", prompt: "Where is auth defined? Report the file.", subagent_type: "explore" }),
    // The child (explore) reads a file, then answers.
    toolCall("read", { filePath: "src/auth.ts" }),
    text("Auth lives in src/auth.ts (exports secret)."),
    // Back in the parent.
    text("The subagent found it in src/auth.ts."),
  )
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, prompt("find the auth code"))
  expect(answerText(result)).toContain("src/auth.ts")

  const children = core.app.sessions.children(session.id)
  expect(children).toHaveLength(1)
  expect(children[0]!.parentID).toBe(session.id)
  expect(children[0]!.title).toBe("Find the auth code (@explore subagent)")
  const childMessages = core.app.sessions.messages(children[0]!.id)
  expect(childMessages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"])
  expect(childMessages[1]!.info.role === "assistant" && childMessages[1]!.info.agent).toBe("explore")

  // The parent's task part carries the child's answer, which the model saw.
  const task = core.app.sessions.messages(session.id).flatMap((m) => m.parts).find((p) => p.type === "tool" && p.tool === "task")
  expect(task?.type === "tool" && task.state.status === "completed" && task.state.output).toContain(`<task id="${children[0]!.id}" state="completed">`)
  expect(JSON.stringify(llm.requests[3]!.body)).toContain("Auth lives in src/auth.ts")
  // The child's request carried the explore agent's system prompt, not the parent's history.
  expect(JSON.stringify(llm.requests[1]!.body)).toContain("search specialist")
  expect(JSON.stringify(llm.requests[1]!.body)).not.toContain("find the auth code")
  await core.close()
})

test("subagent - inside a child, task and todowrite are denied and the depth limit holds", async () => {
  const core = await testCore({ llm })
  llm.script(
    toolCall("task", { description: "Nested work", prompt: "do it", subagent_type: "general" }),
    // In the child: task is not offered (denied), so a call to it is refused.
    toolCall("task", { description: "Deeper", prompt: "go deeper", subagent_type: "general" }),
    text("child done"),
    text("parent done"),
  )
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("delegate"))
  const childBody = JSON.stringify(llm.requests[1]!.body.tools ?? [])
  expect(childBody).not.toContain('"task"')
  expect(childBody).not.toContain("todowrite")
  const child = core.app.sessions.children(session.id)[0]!
  // The model asked for a tool it was not offered: it is told so, and nothing runs.
  const refused = core.app.sessions.messages(child.id).flatMap((m) => m.parts).find((p) => p.type === "tool")
  expect(refused?.type === "tool" && refused.tool).toBe("invalid")
  expect(refused?.type === "tool" && refused.state.status === "completed" && refused.state.output).toMatch(/task/)
  expect(core.app.sessions.children(child.id)).toHaveLength(0)
  await core.close()
})

test("subagent - an unknown subagent type is a tool error naming the available ones", async () => {
  const core = await testCore({ llm })
  llm.script(toolCall("task", { description: "x", prompt: "y", subagent_type: "nope" }), text("ok"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("go"))
  const part = core.app.sessions.messages(session.id).flatMap((m) => m.parts).find((p) => p.type === "tool")
  expect(part?.type === "tool" && part.state.status === "error" && part.state.error).toMatch(/Unknown agent type: nope .*general.*explore|Unknown agent type: nope .*explore.*general/)
  await core.close()
})

test("subagent - a task is resumable by its id and keeps its context", async () => {
  const core = await testCore({ llm })
  llm.script(toolCall("task", { description: "First pass", prompt: "remember the word kiwi", subagent_type: "general" }), text("remembered"), text("first done"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("start"))
  const child = core.app.sessions.children(session.id)[0]!
  llm.script(toolCall("task", { description: "Second pass", prompt: "what was the word?", subagent_type: "general", task_id: child.id }), text("kiwi"), text("second done"))
  await core.client.session.prompt(session.id, prompt("continue"))
  expect(core.app.sessions.children(session.id)).toHaveLength(1)
  expect(JSON.stringify(llm.requests[4]!.body)).toContain("remember the word kiwi")
  await core.close()
})

test("subagent - aborting the parent aborts the running child", async () => {
  const core = await testCore({ llm })
  llm.script(toolCall("task", { description: "Slow", prompt: "take forever", subagent_type: "general" }), { hang: "after-headers" })
  const session = await core.client.session.create()
  const running = core.client.session.prompt(session.id, prompt("go"))
  await waitFor(() => core.app.sessions.children(session.id).length === 1 && llm.inFlight() === 1)
  await core.client.session.abort(session.id)
  const result = await running
  expect(result.info.role === "assistant" && result.info.error?.name).toBe("MessageAbortedError")
  const child = core.app.sessions.children(session.id)[0]!
  const childLast = core.app.sessions.messages(child.id).at(-1)!
  expect(childLast.info.role === "assistant" && childLast.info.error?.name).toBe("MessageAbortedError")
  await waitFor(() => llm.inFlight() === 0)
  await core.close()
})

test("subagent - an @agent mention queues a subtask that runs before the model answers", async () => {
  const core = await testCore({ llm })
  llm.script(text("explored: nothing unusual"), text("Summary: the explore agent found nothing unusual."))
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, {
    parts: [{ type: "subtask", prompt: "look around", description: "Look around", agent: "explore" }],
  })
  expect(answerText(result)).toContain("found nothing unusual")
  expect(core.app.sessions.children(session.id)).toHaveLength(1)
  await core.close()
})

async function waitFor(pred: () => boolean, timeoutMs = 10_000) {
  const start = Date.now()
  while (!pred()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 10))
  }
}

test("subagent - the depth limit stops a subagent that may delegate from nesting deeper than subagent_depth", async () => {
  const core = await testCore({
    llm,
    config: { subagent_depth: 1, agent: { delegator: { mode: "subagent", description: "Delegates", permission: { task: "allow" } } } },
  })
  llm.script(
    toolCall("task", { description: "Level one", prompt: "delegate further", subagent_type: "delegator" }),
    // Inside the child (depth 1): it may call task, but the limit refuses it.
    toolCall("task", { description: "Level two", prompt: "too deep", subagent_type: "general" }),
    text("could not go deeper"),
    text("parent done"),
  )
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("go"))
  const child = core.app.sessions.children(session.id)[0]!
  const refused = core.app.sessions.messages(child.id).flatMap((m) => m.parts).find((p) => p.type === "tool")
  expect(refused?.type === "tool" && refused.tool).toBe("task")
  expect(refused?.type === "tool" && refused.state.status === "error" && refused.state.error).toMatch(/Subagent depth limit reached \(1\)/)
  expect(core.app.sessions.children(child.id)).toHaveLength(0)
  await core.close()
})

test("subagent - an @agent mention tells the model to delegate to that agent, and its task runs in a child session", async () => {
  const core = await testCore({ llm })
  llm.script(
    toolCall("task", { description: "Explore auth", prompt: "Find the auth code", subagent_type: "explore" }, {
      expect: (req) => expect(JSON.stringify(req.body.messages)).toContain("call the task tool with subagent: explore"),
    }),
    text("auth is in src/auth.ts"),
    text("The explore agent says auth is in src/auth.ts."),
  )
  const session = await core.client.session.create()
  const result = await core.client.session.prompt(session.id, {
    parts: [
      { type: "text", text: "@explore where is the auth code?" },
      { type: "agent", name: "explore", source: { value: "@explore", start: 0, end: 8 } },
    ],
  })
  expect(answerText(result)).toContain("auth is in src/auth.ts")
  const [child] = core.app.sessions.children(session.id)
  expect(child?.title).toBe("Explore auth (@explore subagent)")
  // The mention is stored as an agent part, the instruction as synthetic text the user never typed.
  const user = core.app.sessions.messages(session.id)[0]!
  expect(user.parts.map((p) => p.type)).toEqual(["text", "agent", "text"])
  expect(user.parts[2]!.type === "text" && user.parts[2]!.synthetic).toBe(true)
  await core.close()
})

test("subagent - experimental.primary_tools are offered to the primary agent but not inside a child", async () => {
  const core = await testCore({ llm, config: { experimental: { primary_tools: ["webfetch", "bash"] } } })
  llm.script(
    toolCall("task", { description: "Look around", prompt: "look", subagent_type: "general" }),
    // In the child: bash is not offered, so a call to it is refused and nothing runs.
    toolCall("bash", { command: "touch ran-in-child", description: "try" }),
    text("child done"),
    text("parent done"),
  )
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("delegate"))
  const toolNames = (i: number) => ((llm.requests[i]!.body.tools ?? []) as { function?: { name?: string } }[]).map((t) => t.function?.name)
  expect(toolNames(0)).toEqual(expect.arrayContaining(["webfetch", "bash"]))
  expect(toolNames(1)).not.toContain("webfetch")
  expect(toolNames(1)).not.toContain("bash")
  expect(toolNames(1)).toContain("read")
  const child = core.app.sessions.children(session.id)[0]!
  const refused = core.app.sessions.messages(child.id).flatMap((m) => m.parts).find((p) => p.type === "tool")
  expect(refused?.type === "tool" && refused.tool).toBe("invalid")
  await core.close()
})

test("subagent - a child gets no more than its parent: a subagent allowed bash still asks where its caller asks", async () => {
  const core = await testCore({
    llm,
    config: { permission: { bash: "ask" }, agent: { helper: { mode: "subagent", description: "helps", permission: { bash: "allow" } } } },
  })
  llm.script(
    toolCall("task", { description: "Help", prompt: "write the file", subagent_type: "helper" }),
    toolCall("bash", { command: "echo pwned > pwned.txt", description: "write" }),
    text("child done"),
    text("parent done"),
  )
  const asked: { sessionID: string; permission: string }[] = []
  const off = core.app.bus.subscribe("permission.asked", (e) => {
    asked.push({ sessionID: e.properties.sessionID, permission: e.properties.permission })
    void core.client.request("POST", `/permission/${encodeURIComponent(e.properties.id)}/reply`, { body: { reply: "reject" } })
  })
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("delegate"))
  off()
  const child = core.app.sessions.children(session.id)[0]!
  expect(asked).toContainEqual({ sessionID: child.id, permission: "bash" })
  expect(existsSync(path.join(core.box.project, "pwned.txt"))).toBe(false)
  await core.close()
})
