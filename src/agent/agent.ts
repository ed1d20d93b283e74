import { readFileSync } from "node:fs"
import path from "node:path"
import { AgentConfig, ConfigError, type Config, type RestrictedPermissions } from "../config"
import { defaults, fromConfig, merge } from "../permission"
import { AgentNotFoundError, parseModelRef, type Ruleset } from "../protocol"
import { compareNames, markdownFiles, parseFrontmatter } from "../util"
import compactionPrompt from "./prompt/compaction.txt"
import explorePrompt from "./prompt/explore.txt"
import summaryPrompt from "./prompt/summary.txt"
import titlePrompt from "./prompt/title.txt"

export interface Agent {
  name: string
  description?: string
  mode: "primary" | "subagent" | "all"
  hidden: boolean
  /** Built into wright (possibly adjusted by config). */
  native: boolean
  prompt?: string
  model?: { providerID: string; modelID: string }
  variant?: string
  temperature?: number
  topP?: number
  steps?: number
  color?: string
  options: Record<string, unknown>
  /** Defaults, then the agent's own rules, the user's config, and the agent's config. */
  permission: Ruleset
}

/** Where the plan agent keeps its plans, relative to the worktree: `<PLAN_DIR>/<sessionID>.md`. */
export const PLAN_DIR = ".wright/plans"

const READING_COMMANDS = ["ls", "ls *", "pwd", "cat *", "head *", "tail *", "wc *", "grep *", "git status *"]

/** Only build may enter plan mode and only plan may leave it; every other agent is refused both. */
const PLAN_SWITCH: Ruleset = [
  { permission: "plan_enter", pattern: "*", action: "deny" },
  { permission: "plan_exit", pattern: "*", action: "deny" },
]

type Builtin = Omit<Agent, "permission" | "options" | "native"> & { rules: Record<string, unknown> }

const BUILTINS: Builtin[] = [
  {
    name: "build",
    description: "The default agent. Executes tools based on configured permissions.",
    mode: "primary",
    hidden: false,
    // Switching to plan mode is the user's call: plan_enter asks.
    rules: { question: "allow", plan_enter: "ask" },
  },
  {
    name: "plan",
    description: "Plan mode. Writes only its plan file (.wright/plans/<session>.md); other edits are denied. plan_exit asks the user to approve the plan and hands over to build.",
    mode: "primary",
    hidden: false,
    rules: {
      question: "allow",
      plan_exit: "ask",
      // Denied, not asked: one careless "allow" must not let the planner change code.
      edit: { "*": "deny", [`${PLAN_DIR}/*.md`]: "allow" },
      // Commands that only read run; anything else asks, as before. Kept short on purpose:
      // tools whose flags can write or run programs (find -delete, rg --pre, git diff --output) ask.
      bash: { "*": "ask", ...Object.fromEntries(READING_COMMANDS.map((c) => [c, "allow"])) },
      task: { general: "deny" },
    },
  },
  {
    name: "general",
    description:
      "General-purpose agent for researching complex questions and executing multi-step tasks. Use this agent to execute multiple units of work in parallel.",
    mode: "subagent",
    hidden: false,
    rules: { todowrite: "deny", todoread: "deny" },
  },
  {
    name: "explore",
    description:
      'Fast agent specialized for exploring codebases. Use it to find files by patterns, search code for keywords, or answer questions about the codebase. When calling it, specify the thoroughness: "quick", "medium", or "very thorough".',
    mode: "subagent",
    hidden: false,
    prompt: explorePrompt,
    rules: {
      "*": "deny",
      grep: "allow",
      glob: "allow",
      list: "allow",
      bash: "allow",
      webfetch: "allow",
      websearch: "allow",
      read: "allow",
      external_directory: "ask",
    },
  },
  { name: "compaction", mode: "primary", hidden: true, prompt: compactionPrompt, rules: { "*": "deny" } },
  { name: "title", mode: "primary", hidden: true, prompt: titlePrompt, temperature: 0.5, rules: { "*": "deny" } },
  { name: "summary", mode: "primary", hidden: true, prompt: summaryPrompt, rules: { "*": "deny" } },
]

export interface AgentsInput {
  config: Config
  /** Config directories (low → high precedence) searched for `agent/*.md` and `agents/*.md`. */
  dirs: string[]
  toolOutputDir: string
  home?: string
  /** An untrusted folder's permission rules (config and Markdown agents): they may only tighten. */
  restricted?: RestrictedPermissions
}

export interface Agents {
  list(): Agent[]
  get(name: string): Agent | undefined
  /** The agent by name, or an AgentNotFoundError listing the visible ones. */
  require(name: string): Agent
  defaultAgent(): Agent
  /** The "allow" rules of an untrusted folder's Markdown agents, dropped (one line each). */
  held: string[]
}

export function createAgents(input: AgentsInput): Agents {
  const { config, home } = input
  const base = merge(defaults({ toolOutputDir: input.toolOutputDir }), PLAN_SWITCH)
  const userRules = fromConfig(config.permission, home)
  const restricted = input.restricted
  const projectDirs = new Set(restricted?.dirs ?? [])
  const trustedMarkdown = markdownAgents(input.dirs.filter((d) => !projectDirs.has(d)))
  const projectMarkdown = markdownAgents(input.dirs.filter((d) => projectDirs.has(d)))
  // The project's own rules for each agent, held back from the trusted merge below.
  const projectRules = new Map<string, Ruleset>()
  const held: string[] = []
  for (const [name, cfg] of Object.entries(projectMarkdown)) {
    if (!cfg.permission) continue
    const rules = fromConfig(cfg.permission, home, `${name}.md permission`)
    for (const r of rules) if (r.action === "allow") held.push(`agent ${name}.md: permission ${r.permission} ${JSON.stringify(r.pattern)} "allow" would loosen your rules`)
    projectRules.set(name, rules)
    projectMarkdown[name] = { ...cfg, permission: undefined }
  }
  for (const [name, cfg] of Object.entries(restricted?.agent ?? {})) {
    projectRules.set(name, [...(projectRules.get(name) ?? []), ...fromConfig(cfg, home, `agent.${name}.permission`)])
  }
  const projectTop = fromConfig(restricted?.permission, home)
  const configured: Record<string, AgentConfig> = { ...trustedMarkdown, ...projectMarkdown, ...(config.agent ?? {}) }

  const agents = new Map<string, Agent>()
  for (const b of BUILTINS) {
    const { rules, ...rest } = b
    agents.set(b.name, { ...rest, native: true, options: {}, permission: fromConfig(rules, home) })
  }
  for (const [name, cfg] of Object.entries(configured)) {
    if (cfg.disable) {
      agents.delete(name)
      continue
    }
    const existing = agents.get(name)
    const model = typeof cfg.model === "string" ? parseModelRef(cfg.model, `agent.${name}.model`) : existing?.model
    agents.set(name, {
      name,
      native: existing?.native ?? false,
      mode: cfg.mode ?? existing?.mode ?? "all",
      hidden: cfg.hidden ?? existing?.hidden ?? false,
      description: cfg.description ?? existing?.description,
      prompt: cfg.prompt ?? existing?.prompt,
      model,
      variant: cfg.variant ?? existing?.variant,
      temperature: cfg.temperature ?? existing?.temperature,
      topP: cfg.top_p ?? existing?.topP,
      steps: cfg.steps ?? existing?.steps,
      color: cfg.color ?? existing?.color,
      options: { ...(existing?.options ?? {}), ...(cfg.options ?? {}) },
      permission: existing?.permission ?? [],
    })
  }
  // Final rulesets in the documented merge order.
  for (const agent of agents.values()) {
    const own = agent.permission
    const agentConfig = configured[agent.name]?.permission
    const trusted = merge(base, own, userRules, agentConfig ? fromConfig(agentConfig, home) : [])
    agent.permission = restricted ? tightenOnly(trusted, merge(projectTop, projectRules.get(agent.name))) : trusted
  }

  const visible = () => [...agents.values()].filter((a) => !a.hidden)
  const api: Agents = {
    held,
    list() {
      const def = api.defaultAgent().name
      return [...agents.values()].sort((a, b) => (a.name === def ? -1 : b.name === def ? 1 : compareNames(a.name, b.name)))
    },
    get: (name) => agents.get(name),
    require(name) {
      const agent = agents.get(name)
      if (agent) return agent
      const available = visible()
        .map((a) => a.name)
        .sort()
      throw new AgentNotFoundError({
        agent: name,
        available,
        message: `Agent not found: "${name}". Available agents: ${available.join(", ")}`,
      })
    },
    defaultAgent() {
      const wanted = config.default_agent
      if (wanted) {
        const agent = agents.get(wanted)
        if (!agent) throw new Error(`default_agent "${wanted}" not found. Available agents: ${visible().map((a) => a.name).join(", ")}`)
        if (agent.mode === "subagent") throw new Error(`default_agent "${wanted}" is a subagent and cannot be the primary agent`)
        if (agent.hidden) throw new Error(`default_agent "${wanted}" is hidden`)
        return agent
      }
      const first = visible().find((a) => a.mode !== "subagent")
      if (!first) throw new Error("No primary agent is available: every agent is disabled, hidden or a subagent")
      return first
    },
  }
  return api
}

/**
 * Rules from an untrusted folder on top of the trusted ones, so that they can only tighten:
 * their "allow" rules are dropped, and when they ask, the trusted denies are repeated after
 * them, so an "ask" can never override a deny (the last matching rule wins).
 */
export function tightenOnly(trusted: Ruleset, untrusted: Ruleset): Ruleset {
  const kept = untrusted.filter((r) => r.action !== "allow")
  if (kept.length === 0) return trusted
  const asks = kept.some((r) => r.action === "ask")
  return merge(trusted, kept, asks ? trusted.filter((r) => r.action === "deny") : [])
}

/** Agents defined as Markdown: frontmatter holds the config keys, the body is the prompt. */
export function markdownAgents(dirs: string[]): Record<string, AgentConfig> {
  const out: Record<string, AgentConfig> = {}
  for (const dir of dirs) {
    for (const sub of ["agent", "agents"]) {
      const root = path.join(dir, sub)
      for (const file of markdownFiles(root)) {
        const { data, body } = parseFrontmatter(readFileSync(file, "utf8"), file)
        const name = path.relative(root, file).replace(/\.md$/, "").split(path.sep).join("/")
        const input = { ...data, ...(body ? { prompt: body } : {}) }
        const parsed = AgentConfig.safeParse(input)
        if (!parsed.success) throw ConfigError.fromZod(file, parsed.error, input)
        out[name] = parsed.data
      }
    }
  }
  return out
}

