import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { loadInstructions } from "../../src/session/instruction"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"
import { tempDir } from "../lib/tool-context"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

function tree(files: Record<string, string>) {
  const root = tempDir()
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    writeFileSync(path.join(root, name), content)
  }
  return root
}

test("instructions - AGENTS.md at every level up to the git root, outermost first; CLAUDE.md only when there is no AGENTS.md", async () => {
  const root = tree({ ".git/HEAD": "", "AGENTS.md": "root rules", "pkg/AGENTS.md": "pkg rules", "pkg/sub/CLAUDE.md": "claude rules" })
  const home = tempDir()
  const found = await loadInstructions({ directory: path.join(root, "pkg/sub"), worktree: root, globalConfigDir: path.join(home, "cfg"), home })
  expect(found.map((i) => i.content)).toEqual(["root rules", "pkg rules"])

  const onlyClaude = tree({ ".git/HEAD": "", "CLAUDE.md": "claude rules" })
  const claude = await loadInstructions({ directory: onlyClaude, worktree: onlyClaude, globalConfigDir: path.join(home, "cfg"), home })
  expect(claude.map((i) => i.content)).toEqual(["claude rules"])
})

test("instructions - the global AGENTS.md and the instructions config list (globs, ~/ paths) are added", async () => {
  const home = tree({ "cfg/AGENTS.md": "global rules", "notes/style.md": "home style" })
  const root = tree({ ".git/HEAD": "", "docs/a.md": "doc a", "docs/b.md": "doc b", "docs/skip.txt": "no" })
  const found = await loadInstructions({
    directory: root,
    worktree: root,
    globalConfigDir: path.join(home, "cfg"),
    home,
    extra: ["docs/*.md", "~/notes/style.md", "missing.md"],
  })
  expect(found.map((i) => i.content)).toEqual(["global rules", "doc a", "doc b", "home style"])
})

test("system prompt - environment, instructions and skills reach the model; the plan agent gets its reminder each turn", async () => {
  const core = await testCore({
    llm,
    files: {
      "AGENTS.md": "Use tabs. (rule T-1)",
      ".wright/skill/release/SKILL.md": "---\nname: release\ndescription: How to cut a release\n---\nSteps…",
    },
  })
  llm.script(text("plan: step 1"), text("plan: step 2"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("plan the work", { agent: "plan" }))
  await core.client.session.prompt(session.id, prompt("and then?", { agent: "plan" }))
  for (const req of llm.requests) {
    const system = JSON.stringify(req.body.messages.filter((m: { role: string }) => m.role === "system"))
    expect(system).toContain(`Working directory: ${core.box.project}`)
    expect(system).toContain("rule T-1")
    expect(system).toContain("release: How to cut a release")
    const lastUser = JSON.stringify(req.body.messages.filter((m: { role: string }) => m.role === "user").at(-1))
    expect(lastUser).toContain("You are in plan mode")
  }
  // The reminder is sent, never stored.
  expect(JSON.stringify(core.app.sessions.messages(session.id))).not.toContain("You are in plan mode")
  await core.close()
})

test("system prompt - switching from plan to build tells the model it may now change things", async () => {
  const core = await testCore({ llm })
  llm.script(text("the plan"), text("doing it"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("plan", { agent: "plan" }))
  await core.client.session.prompt(session.id, prompt("go ahead", { agent: "build" }))
  expect(JSON.stringify(llm.requests[1]!.body)).toContain("changed from plan to build")
  expect(JSON.stringify(llm.requests[1]!.body)).not.toContain("You are in plan mode")
  await core.close()
})
