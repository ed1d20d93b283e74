import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createAgents } from "../../src/agent"
import { parseConfigText, type Config } from "../../src/config"
import { evaluate } from "../../src/permission"
import { tempDir } from "../lib/tool-context"

const agentsOf = (config: Config, dirs: string[] = []) => createAgents({ config, dirs, toolOutputDir: "/tmp/wright-tool-output", home: "/home/u" })
const cfg = (json: object) => parseConfigText(JSON.stringify(json), "wright.json")

test("agents - the built-ins: build is the default, plan may edit only its plan file, hidden helpers stay hidden", () => {
  const agents = agentsOf(cfg({}))
  expect(agents.defaultAgent().name).toBe("build")
  const visible = agents.list().filter((a) => !a.hidden).map((a) => a.name)
  expect(visible).toEqual(["build", "explore", "general", "plan"])
  expect(agents.list().filter((a) => a.hidden).map((a) => a.name).sort()).toEqual(["compaction", "summary", "title"])
  const plan = agents.require("plan")
  // Plan mode plans: edits outside its plan file are denied (not asked), the plan file is written freely.
  expect(evaluate("edit", "src/a.ts", plan.permission).action).toBe("deny")
  expect(evaluate("edit", ".wright/plans/ses_abc.md", plan.permission).action).toBe("allow")
  expect(evaluate("edit", ".wright/wright.json", plan.permission).action).toBe("deny")
  expect(evaluate("edit", ".wright/plugin/x.ts", plan.permission).action).toBe("deny")
  // Reading commands run; anything else still asks.
  expect(evaluate("bash", "ls", plan.permission).action).toBe("allow")
  expect(evaluate("bash", "ls -la src", plan.permission).action).toBe("allow")
  expect(evaluate("bash", "rm -rf src", plan.permission).action).toBe("ask")
  // Leaving plan mode asks the user; only plan may leave it, only build may enter it.
  expect(evaluate("plan_exit", "*", plan.permission).action).toBe("ask")
  expect(evaluate("plan_enter", "*", plan.permission).action).toBe("deny")
  const build = agents.require("build")
  expect(evaluate("edit", "src/a.ts", build.permission).action).toBe("allow")
  expect(evaluate("plan_enter", "*", build.permission).action).toBe("ask")
  expect(evaluate("plan_exit", "*", build.permission).action).toBe("deny")
  expect(evaluate("plan_exit", "*", agents.require("general").permission).action).toBe("deny")
  expect(evaluate("read", ".env", build.permission).action).toBe("ask")
  expect(evaluate("read", ".env.example", build.permission).action).toBe("allow")
  expect(evaluate("doom_loop", "read", build.permission).action).toBe("ask")
  expect(evaluate("external_directory", "/etc/*", build.permission).action).toBe("ask")
  // explore only reads.
  const explore = agents.require("explore")
  expect(evaluate("edit", "a.ts", explore.permission).action).toBe("deny")
  expect(evaluate("grep", "x", explore.permission).action).toBe("allow")
  // Searching the web is looking, as in OpenCode; build allows it without asking by default.
  expect(evaluate("websearch", "node release notes", explore.permission).action).toBe("allow")
  expect(evaluate("websearch", "node release notes", build.permission).action).toBe("allow")
})

test("agents - config overrides a built-in, adds new agents, and the merge order puts the agent's config last", () => {
  const agents = agentsOf(
    cfg({
      permission: { bash: "deny" },
      agent: {
        build: { model: "anthropic/claude-haiku-4-5", temperature: 0.2, permission: { bash: { "git *": "allow" } } },
        reviewer: { description: "Reviews diffs", mode: "subagent", prompt: "Review carefully.", steps: 5 },
      },
    }),
  )
  const build = agents.require("build")
  expect(build.model).toEqual({ providerID: "anthropic", modelID: "claude-haiku-4-5" })
  expect(build.temperature).toBe(0.2)
  // user config denies bash, the agent's config allows git: the agent's rules come last.
  expect(evaluate("bash", "git status", build.permission).action).toBe("allow")
  expect(evaluate("bash", "rm x", build.permission).action).toBe("deny")
  const reviewer = agents.require("reviewer")
  expect(reviewer).toMatchObject({ mode: "subagent", prompt: "Review carefully.", steps: 5, native: false })
})

test("agents - default_agent, disable, and clear errors for a bad default or unknown agent", () => {
  expect(agentsOf(cfg({ default_agent: "plan" })).defaultAgent().name).toBe("plan")
  const withoutPlan = agentsOf(cfg({ agent: { plan: { disable: true } } }))
  expect(withoutPlan.get("plan")).toBeUndefined()
  expect(() => agentsOf(cfg({ default_agent: "explore" })).defaultAgent()).toThrow(/is a subagent/)
  expect(() => agentsOf(cfg({ default_agent: "nope" })).defaultAgent()).toThrow(/default_agent "nope" not found/)
  expect(() => agentsOf(cfg({})).require("ghost")).toThrow(/Agent not found: "ghost". Available agents: build, explore, general, plan/)
})

test("agents - Markdown agents from .wright/agent and .opencode/agent; bad frontmatter names the file", () => {
  const root = tempDir()
  for (const dir of [".wright/agent", ".opencode/agent/team"]) mkdirSync(path.join(root, dir), { recursive: true })
  writeFileSync(path.join(root, ".wright/agent/docs.md"), "---\ndescription: Writes docs\nmode: primary\nmaxSteps: 3\n---\nYou write documentation.\n")
  writeFileSync(path.join(root, ".opencode/agent/team/lead.md"), "---\nmode: subagent\n---\nLead the team.\n")
  const agents = agentsOf(cfg({}), [path.join(root, ".opencode"), path.join(root, ".wright")])
  expect(agents.require("docs")).toMatchObject({ description: "Writes docs", mode: "primary", steps: 3, prompt: "You write documentation." })
  expect(agents.require("team/lead").mode).toBe("subagent")

  writeFileSync(path.join(root, ".wright/agent/broken.md"), "---\ntemperature: hot\n---\nx\n")
  expect(() => agentsOf(cfg({}), [path.join(root, ".wright")])).toThrow(/broken\.md.*temperature/s)
})
