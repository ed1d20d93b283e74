// Plan mode in the TUI, with the built binary in tmux against the scripted model: Tab to plan,
// the planner writes its plan and calls plan_exit, the dialog shows the plan, Enter approves,
// and the transcript shows the hand-off while build answers with the plan in its context.
import { afterAll, afterEach, beforeAll, expect, test as base, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

const test = base.skipIf(requires("tmux"))
vi.setConfig({ testTimeout: 120_000 })

let server: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  server.reset()
})
afterAll(() => server.close())

test("tui plan - plan_exit's dialog shows the plan; Enter approves and the session goes on as build with the plan", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await pane.waitFor("tab agents")
  pane.keys("Tab")
  await pane.waitFor(/plan/)

  // The plan file is named after the session: read it from the first request, then script the rest.
  server.script(
    toolCall("bash", { command: "ls", description: "List the project" }, {
      expect(req) {
        const file = /\.wright\/plans\/ses_[A-Za-z0-9]+\.md/.exec(JSON.stringify(req.body))?.[0]
        if (!file) throw new Error("the plan reminder names no plan file")
        server.script(
          toolCall("write", { filePath: file, content: "# Plan\n\n1. Rename greet to hello everywhere.\n" }),
          toolCall("plan_exit", {}),
          text("Building it now."),
        )
      },
    }),
  )
  pane.type("plan the rename")
  pane.keys("Enter")
  await pane.waitFor("Approve the plan and switch to build?")
  await pane.waitFor("1. Rename greet to hello everywhere.")
  pane.keys("Enter")
  await pane.waitFor("Building it now.")
  const screen = await pane.waitFor("⇄ plan → build")
  expect(screen).toMatch(/▣ build ·/)
  expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("Rename greet to hello everywhere.")
})

test("tui plan - build's plan_enter asks; approved, the session goes on as plan, told where its plan file is", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await pane.waitFor("tab agents")
  server.script(toolCall("plan_enter", {}), text("Planning first."))
  pane.type("redesign the config loader")
  pane.keys("Enter")
  await pane.waitFor("Permission required: plan_enter")
  pane.keys("Enter")
  await pane.waitFor("Planning first.")
  const screen = await pane.waitFor("⇄ build → plan")
  expect(screen).toMatch(/▣ plan ·/)
  const last = JSON.stringify(server.requests.at(-1)!.body)
  expect(last).toContain("You are in plan mode")
  expect(last).toMatch(/\.wright\/plans\/ses_[A-Za-z0-9]+\.md/)
})
