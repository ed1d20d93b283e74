// `wright agent create`: describe an agent, the model writes it, and it is saved as a Markdown
// agent (frontmatter + prompt) where wright and OpenCode both read agents.
import { existsSync } from "node:fs"
import { mkdir, writeFile } from "node:fs/promises"
import path from "node:path"
import { stringify } from "yaml"
import { xdgPaths } from "../../config"
import { AgentGenerateError, generateAgent } from "../../session"
import { startCore } from "../core"
import { readLine } from "../line-input"
import { cliLogger, type LogArgs } from "../log"
import { bold, dim, green, tildify, UserError } from "../ui"

/** The tools `--tools` can keep; the rest are turned off in the agent's frontmatter. */
export const AGENT_TOOLS = ["bash", "read", "edit", "glob", "grep", "list", "webfetch", "task", "todowrite", "skill"] as const

export interface AgentCreateArgs extends LogArgs {
  dir?: string
  description?: string
  mode: "all" | "primary" | "subagent"
  tools?: string
  path?: string
  global?: boolean
  model?: string
}

export async function agentCreate(args: AgentCreateArgs) {
  let description = args.description?.trim()
  if (!description) {
    if (!process.stdin.isTTY) throw new UserError("agent create: --description is required when stdin is not a terminal")
    description = (await readLine("What should the agent do? ")).trim()
    if (!description) throw new UserError("agent create: no description given; nothing was created")
  }
  const tools = parseTools(args.tools)
  const directory = path.resolve(args.dir ?? process.cwd())
  const core = await startCore({ directory, log: cliLogger(args) })
  try {
    const { app } = core
    const target = args.path ? path.resolve(args.path) : args.global ? path.join(xdgPaths().config, "agent") : path.join(app.worktree, ".wright", "agent")
    const taken = app.agents.list().map((a) => a.name)
    process.stderr.write(dim("Asking the model to write the agent…\n"))
    let agent
    try {
      agent = await generateAgent({ providers: app.providers, defaultModel: app.config.model }, { description, model: args.model, taken })
    } catch (e) {
      if (e instanceof AgentGenerateError) throw new UserError(`agent create: ${e.message}; nothing was created`)
      throw e
    }
    const file = path.join(target, `${agent.identifier}.md`)
    if (existsSync(file)) throw new UserError(`agent create: ${file} already exists; nothing was written`)
    const front: Record<string, unknown> = { description: agent.whenToUse, mode: args.mode }
    if (tools) front.tools = Object.fromEntries(AGENT_TOOLS.filter((t) => !tools.includes(t)).map((t) => [t, false]))
    await mkdir(target, { recursive: true })
    await writeFile(file, `---\n${stringify(front).trimEnd()}\n---\n\n${agent.systemPrompt}\n`, { flag: "wx" })
    process.stdout.write(`${green("Created")} agent ${bold(agent.identifier)} in ${tildify(file)}\n${dim(agent.whenToUse)}\n`)
  } finally {
    await core.close()
  }
}

function parseTools(list: string | undefined): string[] | undefined {
  if (list === undefined) return undefined
  const tools = list
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean)
  const unknown = tools.filter((t) => !(AGENT_TOOLS as readonly string[]).includes(t))
  if (unknown.length) throw new UserError(`agent create: --tools has unknown ${unknown.length === 1 ? "tool" : "tools"} ${unknown.join(", ")}; choose from ${AGENT_TOOLS.join(", ")}`)
  return tools
}
