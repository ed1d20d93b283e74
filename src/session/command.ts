// Slash commands: the built-in ones, Markdown files in each config directory's `command/` (or
// `commands/`) folder and `command.<name>` in config, later sources winning by name. Running a
// command expands its template (command-expand.ts) and sends the result to the session as an
// ordinary prompt, or as a subtask part the loop hands to the task tool. It never talks to
// the model itself.
import type { CommandInfo } from "./command-expand"
import { readFileSync } from "node:fs"
import path from "node:path"
import type { Agents } from "../agent"
import type { Bus } from "../bus"
import { CommandConfig, ConfigError, type Config } from "../config"
import { BadRequestError, parseModelRef, type MessageWithParts, type PromptInput, type SessionCommandInput } from "../protocol"
import type { Exec, Sandbox } from "../process"
import { markdownFiles, parseFrontmatter } from "../util"
import { expandCommand } from "./command-expand"
import initTemplate from "./prompt/init.txt"
import type { SessionService } from "./service"

export { expandCommand, splitArguments, substituteArguments, type CommandInfo, type ExpandContext, type ExpandedCommand } from "./command-expand"


const BUILTINS: CommandInfo[] = [
  { name: "init", description: "create/update AGENTS.md", template: initTemplate.trim(), source: "builtin" },
]

/**
 * Every command by name, sorted: built-ins, then Markdown files (config directories low →
 * high), then `config.command`; a later definition replaces an earlier one of the same name.
 * A file with bad frontmatter or a bad key is a ConfigError naming the file.
 */
export function loadCommands(input: { config: Config; dirs: string[] }): CommandInfo[] {
  const byName = new Map<string, CommandInfo>()
  for (const cmd of BUILTINS) byName.set(cmd.name, cmd)
  for (const cmd of markdownCommands(input.dirs)) byName.set(cmd.name, cmd)
  for (const [name, cfg] of Object.entries(input.config.command ?? {})) {
    checkModel(cfg.model, undefined, `command.${name}.model`)
    byName.set(name, info(name, cfg, "config"))
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name))
}

function info(name: string, cfg: CommandConfig, source: CommandInfo["source"]): CommandInfo {
  return {
    name,
    template: cfg.template,
    source,
    ...(cfg.description !== undefined ? { description: cfg.description } : {}),
    ...(cfg.agent !== undefined ? { agent: cfg.agent } : {}),
    ...(cfg.model !== undefined ? { model: cfg.model } : {}),
    ...(cfg.variant !== undefined ? { variant: cfg.variant } : {}),
    ...(cfg.subtask !== undefined ? { subtask: cfg.subtask } : {}),
  }
}

function checkModel(model: string | undefined, file: string | undefined, key: string) {
  if (model === undefined) return
  try {
    parseModelRef(model, key)
  } catch {
    throw new ConfigError(file, [{ path: key, message: `expected "provider/model", received ${JSON.stringify(model)}` }])
  }
}

/** Commands as Markdown: the frontmatter holds the keys, the body is the template. */
function markdownCommands(dirs: string[]): CommandInfo[] {
  const out: CommandInfo[] = []
  for (const dir of dirs) {
    for (const sub of ["command", "commands"]) {
      const root = path.join(dir, sub)
      for (const file of markdownFiles(root)) {
        const name = path.relative(root, file).replace(/\.md$/, "").split(path.sep).join("/")
        out.push(readCommandFile(file, name))
      }
    }
  }
  return out
}

function readCommandFile(file: string, name: string): CommandInfo {
  let parsed: { data: Record<string, unknown>; body: string }
  try {
    parsed = parseFrontmatter(readFileSync(file, "utf8"), file)
  } catch (e) {
    const message = (e as Error).message.replace(`Invalid frontmatter in ${file}: `, "")
    throw new ConfigError(file, [{ path: "frontmatter", message }], { cause: e })
  }
  if (!parsed.body) throw new ConfigError(file, [{ path: "template", message: "the file has no prompt; write the command's template below the frontmatter" }])
  const input = { ...parsed.data, template: parsed.body }
  const result = CommandConfig.safeParse(input)
  if (!result.success) throw ConfigError.fromZod(file, result.error, input)
  checkModel(result.data.model, file, "model")
  return info(name, result.data, "markdown")
}


export interface CommandRunnerDeps {
  commands: () => CommandInfo[]
  sessions: Pick<SessionService, "prompt">
  agents: Agents
  bus: Bus
  directory: string
  worktree: string
  shell?: string
  /** The App's spawner, for `` !`cmd` `` snippets. */
  exec: Exec
  /** The App's sandbox: snippets run inside it. */
  sandbox?: Sandbox
}

/**
 * The session service's `command` hook: expands the command and sends it as a prompt (or a
 * subtask part), publishes `command.executed`, and resolves with the last assistant message.
 */
export function createCommandRunner(deps: CommandRunnerDeps): (sessionID: string, input: SessionCommandInput) => Promise<MessageWithParts> {
  return async (sessionID, input) => {
    const commands = deps.commands()
    const cmd = commands.find((c) => c.name === input.command)
    if (!cmd) {
      const available = commands.map((c) => c.name).join(", ")
      throw new BadRequestError({ message: `Command not found: "${input.command}". Available commands: ${available}` })
    }
    let requested: { providerID: string; modelID: string } | undefined
    try {
      requested = input.model ? parseModelRef(input.model) : undefined
    } catch (e) {
      throw new BadRequestError({ message: (e as Error).message, issues: [{ path: "model", message: (e as Error).message }] })
    }
    const agent = deps.agents.require(cmd.agent ?? input.agent ?? deps.agents.defaultAgent().name)
    // The model the command's own work runs with: its own, its agent's, then the caller's.
    const taskModel = (cmd.model ? parseModelRef(cmd.model) : undefined) ?? (cmd.agent ? agent.model : undefined) ?? requested

    const expanded = await expandCommand(cmd, input.arguments ?? "", {
      directory: deps.directory,
      worktree: deps.worktree,
      shell: deps.shell,
      exec: deps.exec,
      sandbox: deps.sandbox,
      agentMode: (name) => deps.agents.get(name)?.mode,
      agent: agent.name,
      model: taskModel,
    })
    const variant = input.variant ?? cmd.variant
    // A subtask leaves the caller's agent and model in charge of this session; the child gets the command's.
    const prompt: PromptInput = expanded.subtask
      ? { ...(input.agent ? { agent: input.agent } : {}), ...(requested ? { model: requested } : {}), parts: expanded.parts }
      : { agent: agent.name, ...(taskModel ? { model: taskModel } : {}), parts: [...expanded.parts, ...(input.parts ?? [])] }
    if (input.messageID) prompt.messageID = input.messageID
    if (variant) prompt.variant = variant

    const result = await deps.sessions.prompt(sessionID, prompt)
    deps.bus.publish("command.executed", { name: cmd.name, sessionID, arguments: input.arguments ?? "", messageID: result.info.id })
    return result
  }
}
