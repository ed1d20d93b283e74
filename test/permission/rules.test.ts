import path from "node:path"
import { describe, expect, it } from "vitest"
import { defaults, disabledTools, evaluate, fromConfig, merge } from "../../src/permission"
import type { Ruleset } from "../../src/protocol"
import { Wildcard } from "../../src/util"

const HOME = "/home/ada"

describe("wildcard", () => {
  it.each([
    ["git status", "git status *", true],
    ["git status --short", "git status *", true],
    ["git statusx", "git status *", false],
    ["rm", "rm *", true],
    ["rmdir x", "rm *", false],
    ["src/deep/file.ts", "src/*", true],
    ["a.ts", "?.ts", true],
    ["ab.ts", "?.ts", false],
    ["C:\\repo\\a.ts", "C:/repo/*", true],
    ["price (1+1).txt", "price (1+1).txt", true],
    ["price 11.txt", "price (1+1).txt", false],
    ["line one\nline two", "line*", true],
    ["Git status", "git status", false],
  ])("wildcard - %j against %j is %s", (text, pattern, expected) => {
    expect(Wildcard.match(text, pattern)).toBe(expected)
  })

  it("wildcard - ~ and $HOME expand only at the start of a pattern", () => {
    expect(Wildcard.expandHome("~", HOME)).toBe(HOME)
    expect(Wildcard.expandHome("~/projects/*", HOME)).toBe(`${HOME}/projects/*`)
    expect(Wildcard.expandHome("$HOME/x", HOME)).toBe(`${HOME}/x`)
    expect(Wildcard.expandHome("$HOME", HOME)).toBe(HOME)
    expect(Wildcard.expandHome("cat ~/x", HOME)).toBe("cat ~/x")
    expect(Wildcard.expandHome("~bob/x", HOME)).toBe("~bob/x")
  })
})

const rules = (...list: [string, string, "allow" | "ask" | "deny"][]): Ruleset =>
  list.map(([permission, pattern, action]) => ({ permission, pattern, action }))

describe("evaluate", () => {
  const table: [string, Ruleset[], string, string, string][] = [
    ["no rules ask", [], "bash", "ls", "ask"],
    ["a matching rule applies", [rules(["bash", "*", "allow"])], "bash", "ls", "allow"],
    ["the last match wins", [rules(["bash", "*", "allow"], ["bash", "rm *", "deny"])], "bash", "rm -rf x", "deny"],
    ["a later broad rule overrides an earlier narrow one", [rules(["bash", "rm *", "deny"], ["bash", "*", "allow"])], "bash", "rm -rf x", "allow"],
    ["permission keys are wildcards too", [rules(["*", "*", "deny"], ["github_*", "*", "allow"])], "github_create_issue", "*", "allow"],
    ["other permissions do not match", [rules(["edit", "*", "deny"])], "bash", "ls", "ask"],
    ["later rulesets win over earlier ones", [rules(["bash", "*", "deny"]), rules(["bash", "ls *", "allow"])], "bash", "ls -la", "allow"],
    ["an earlier ruleset applies when later ones do not match", [rules(["bash", "*", "deny"]), rules(["bash", "ls *", "allow"])], "bash", "pwd", "deny"],
  ]
  it.each(table)("evaluate - %s", (_name, rulesets, permission, pattern, action) => {
    expect(evaluate(permission, pattern, ...rulesets).action).toBe(action)
  })

  it("evaluate - no match returns an ask rule for pattern *", () => {
    expect(evaluate("webfetch", "https://x", [])).toEqual({ permission: "webfetch", pattern: "*", action: "ask" })
  })
})

describe("fromConfig", () => {
  it("fromConfig - an action string applies to everything", () => {
    expect(fromConfig("deny", HOME)).toEqual(rules(["*", "*", "deny"]))
  })

  it("fromConfig - keys and patterns keep their order; strings mean pattern *", () => {
    const cfg = { edit: "deny", bash: { "*": "ask", "git status *": "allow", "git push *": "deny" }, webfetch: "ask" }
    expect(fromConfig(cfg, HOME)).toEqual(
      rules(["edit", "*", "deny"], ["bash", "*", "ask"], ["bash", "git status *", "allow"], ["bash", "git push *", "deny"], ["webfetch", "*", "ask"]),
    )
  })

  it("fromConfig - ~ and $HOME in patterns become the home directory", () => {
    const cfg = { external_directory: { "~/projects/*": "allow", "$HOME/.ssh/*": "deny" } }
    expect(fromConfig(cfg, HOME).map((r) => r.pattern)).toEqual([`${HOME}/projects/*`, `${HOME}/.ssh/*`])
  })

  it("fromConfig - nothing configured gives no rules", () => {
    expect(fromConfig(undefined)).toEqual([])
  })

  it.each([
    ["allowed", /permission: expected "allow", "ask" or "deny", got "allowed"/],
    [{ bash: "yes" }, /permission\.bash: expected "allow", "ask" or "deny", got "yes"/],
    [{ bash: { "rm *": "nope" } }, /permission\.bash\["rm \*"\]: expected "allow", "ask" or "deny", got "nope"/],
    [{ bash: ["rm *"] }, /permission\.bash: expected .* got an array/],
    [42, /permission: expected .* got 42/],
  ])("fromConfig - bad input %j names the field", (cfg, message) => {
    expect(() => fromConfig(cfg, HOME)).toThrow(message)
  })

  it("fromConfig - the field name in errors can be an agent's", () => {
    expect(() => fromConfig({ edit: "maybe" }, HOME, "agent.plan.permission")).toThrow(/agent\.plan\.permission\.edit: expected/)
  })
})

describe("defaults and merge order", () => {
  const base = defaults({ toolOutputDir: "/data/wright/tool-output" })

  it.each([
    ["bash", "rm -rf /", "allow"],
    ["edit", "src/a.ts", "allow"],
    ["doom_loop", "bash", "ask"],
    ["external_directory", "/etc/*", "ask"],
    ["external_directory", "/data/wright/tool-output/*", "allow"],
    ["read", "src/a.ts", "allow"],
    ["read", ".env", "ask"],
    ["read", "config/.env", "ask"],
    ["read", ".env.local", "ask"],
    ["read", ".env.example", "allow"],
  ])("defaults - %s %j is %s", (permission, pattern, action) => {
    expect(evaluate(permission, pattern, base).action).toBe(action)
  })

  it("defaults - extra allowed directories are outside-the-project allows", () => {
    const rules = defaults({ toolOutputDir: "/data/out", extraAllowedDirs: ["/skills/review"] })
    expect(evaluate("external_directory", path.join("/skills/review", "*"), rules).action).toBe("allow")
    expect(evaluate("external_directory", "/skills/other/*", rules).action).toBe("ask")
  })

  // defaults → agent's own rules → user config → agent config → session → approvals.
  const agentRules = fromConfig({ edit: "deny", bash: { "*": "ask", "git status *": "allow" } }, HOME)
  const userConfig = fromConfig({ bash: { "npm test *": "allow", "git status *": "deny" }, webfetch: "deny" }, HOME)
  const agentConfig = fromConfig({ webfetch: "allow", edit: { "docs/*": "allow" } }, HOME)
  const session = fromConfig({ bash: { "npm test *": "deny" } }, HOME)
  const approvals = rules(["bash", "ls *", "allow"])
  const merged = merge(base, agentRules, userConfig, agentConfig, session, approvals)

  it.each([
    ["edit", "src/a.ts", "deny", "the agent's own rules override the defaults"],
    ["edit", "docs/guide.md", "allow", "the agent's config overrides the agent's rules"],
    ["bash", "git status", "deny", "the user's config overrides the agent's rules"],
    ["webfetch", "https://x", "allow", "the agent's config overrides the user's config"],
    ["bash", "npm test", "deny", "the session's rules override the configs"],
    ["bash", "ls -la", "allow", "approvals come last"],
    ["bash", "pwd", "ask", "the agent's bash * ask still applies"],
    ["read", ".env", "ask", "defaults apply where nothing later matches"],
  ])("merge order - %s %j is %s (%s)", (permission, pattern, action) => {
    expect(evaluate(permission, pattern, merged).action).toBe(action)
  })

  it("merge - skips missing rulesets and keeps order", () => {
    expect(merge(rules(["a", "*", "allow"]), undefined, rules(["b", "*", "deny"]))).toEqual(rules(["a", "*", "allow"], ["b", "*", "deny"]))
  })
})

// Examples from OpenCode's permission documentation, read with last-match-wins.
describe("OpenCode config examples", () => {
  it("opencode example - ask for everything in bash except a few read-only commands", () => {
    const r = fromConfig({ bash: { "*": "ask", "git status *": "allow", "git diff *": "allow", "grep *": "allow" } }, HOME)
    expect(evaluate("bash", "git status", r).action).toBe("allow")
    expect(evaluate("bash", "git diff --stat", r).action).toBe("allow")
    expect(evaluate("bash", "git push", r).action).toBe("ask")
  })

  it("opencode example - a catch-all written last overrides the specific rules before it", () => {
    const r = fromConfig({ bash: { "git status": "allow", "*": "ask" } }, HOME)
    expect(evaluate("bash", "git status", r).action).toBe("ask")
  })

  it("opencode example - edit denied and webfetch asked, the rest allowed", () => {
    const r = merge(defaults({ toolOutputDir: "/o" }), fromConfig({ edit: "deny", webfetch: "ask" }, HOME))
    expect(evaluate("edit", "a.ts", r).action).toBe("deny")
    expect(evaluate("webfetch", "https://x", r).action).toBe("ask")
    expect(evaluate("bash", "ls", r).action).toBe("allow")
  })

  it("opencode example - allow a directory outside the project", () => {
    const r = merge(defaults({ toolOutputDir: "/o" }), fromConfig({ external_directory: { "~/projects/personal/*": "allow" } }, HOME))
    expect(evaluate("external_directory", `${HOME}/projects/personal/*`, r).action).toBe("allow")
    expect(evaluate("external_directory", `${HOME}/projects/work/*`, r).action).toBe("ask")
  })

  it("opencode example - an agent denies git push on top of the global config", () => {
    const global = fromConfig({ bash: { "*": "allow" } }, HOME)
    const agent = fromConfig({ bash: { "git push *": "deny" } }, HOME, "agent.build.permission")
    expect(evaluate("bash", "git push origin main", merge(global, agent)).action).toBe("deny")
    expect(evaluate("bash", "git pull", merge(global, agent)).action).toBe("allow")
  })

  it("opencode example - MCP tools by wildcard key", () => {
    const r = fromConfig({ "*": "ask", "github_*": "allow", github_delete_repo: "deny" }, HOME)
    expect(evaluate("github_list_issues", "*", r).action).toBe("allow")
    expect(evaluate("github_delete_repo", "*", r).action).toBe("deny")
    expect(evaluate("linear_create", "*", r).action).toBe("ask")
  })
})

describe("disabledTools", () => {
  const tools = ["bash", "read", "edit", "write", "apply_patch", "webfetch", "github_create"]

  it("disabledTools - a tool whose last rule denies * is hidden", () => {
    const r = merge(defaults({ toolOutputDir: "/o" }), fromConfig({ webfetch: "deny", github_create: "deny" }, HOME))
    expect([...disabledTools(tools, r)].sort()).toEqual(["github_create", "webfetch"])
  })

  it("disabledTools - edit covers edit, write and apply_patch", () => {
    const r = merge(defaults({ toolOutputDir: "/o" }), fromConfig({ edit: "deny" }, HOME))
    expect([...disabledTools(tools, r)].sort()).toEqual(["apply_patch", "edit", "write"])
  })

  it("disabledTools - a tool with some allowed patterns stays visible", () => {
    const r = fromConfig({ bash: { "*": "deny", "git status *": "allow" } }, HOME)
    expect(disabledTools(tools, r).has("bash")).toBe(false)
  })

  it("disabledTools - a later allow brings a denied tool back", () => {
    const r = merge(fromConfig({ "*": "deny" }, HOME), fromConfig({ read: "allow" }, HOME))
    const hidden = disabledTools(tools, r)
    expect(hidden.has("read")).toBe(false)
    expect(hidden.has("bash")).toBe(true)
  })
})
