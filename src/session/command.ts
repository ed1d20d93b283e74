// Slash commands: the built-in ones, Markdown files in each config directory's `command/` (or
// `commands/`) folder and `command.<name>` in config, later sources winning by name. Running a
// command expands its template (command-expand.ts) and sends the result to the session as an
// ordinary prompt, or as a subtask part the loop hands to the task tool. It never talks to
// the model itself.
import type { CommandInfo } from "./command-expand"
import { readFileSync, statSync } from "node:fs"
import path from "node:path"
import type { Agents } from "../agent"
import type { Bus } from "../bus"
import { CommandConfig, ConfigError, type Config } from "../config"
import { BadRequestError, parseModelRef, type MessageWithParts, type PromptInput, type SessionCommandInput } from "../protocol"
import type { Exec, Sandbox } from "../process"
import { compareNames, markdownFiles, parseFrontmatter } from "../util"
import { expandCommand, splitArguments } from "./command-expand"
import initTemplate from "./prompt/init.txt"
import { REVIEW_COMMAND, reviewPrompt } from "./review"
import type { SessionService } from "./service"

export { expandCommand, splitArguments, substituteArguments, type CommandInfo, type ExpandContext, type ExpandedCommand } from "./command-expand"


const BUILTINS: CommandInfo[] = [
  { name: "init", description: "create/update AGENTS.md", template: initTemplate.trim(), source: "builtin" },
  // Its text is made when it runs (review.ts): the template only shows what the arguments are.
  { ...REVIEW_COMMAND, template: "[commit | branch | branch <base>]" },
]

/**
 * What the project's own folders and config contribute (LoadedConfig.project), and whether
 * the folder is trusted: an untrusted project cannot take a built-in command's name.
 */
export interface ProjectCommands {
  dirs: string[]
  commands: string[]
  trusted: boolean
}

/**
 * Every command by name, sorted: built-ins, then Markdown files (config directories low →
 * high), then `config.command`; a later definition replaces an earlier one of the same name,
 * except that in an untrusted folder the project's own never replaces a built-in (see
 * `shadowedBuiltins` for what is reported). A file with bad frontmatter or a bad key is a
 * ConfigError naming the file.
 */
export function loadCommands(input: { config: Config; dirs: string[]; project?: ProjectCommands }): CommandInfo[] {
  const byName = new Map<string, CommandInfo>()
  for (const cmd of BUILTINS) byName.set(cmd.name, cmd)
  const reserved = input.project && !input.project.trusted ? new Set(BUILTINS.map((b) => b.name)) : new Set<string>()
  const projectDirs = new Set(input.project?.dirs)
  for (const dir of input.dirs) {
    for (const cmd of markdownCommands([dir])) if (!(reserved.has(cmd.name) && projectDirs.has(dir))) byName.set(cmd.name, cmd)
  }
  for (const [name, cfg] of Object.entries(input.config.command ?? {})) {
    checkModel(cfg.model, undefined, `command.${name}.model`)
    if (reserved.has(name) && input.project?.commands.includes(name)) continue
    byName.set(name, info(name, cfg, "config"))
  }
  return [...byName.values()].sort((a, b) => compareNames(a.name, b.name))
}

/**
 * The project's commands that take a built-in's name, one line each naming the file or key:
 * untrusted, the built-in stays (a line for the trust notice); trusted, the project's replaces
 * it (a warning, so it is never silent). The user's own commands may replace a built-in
 * quietly. Only the built-ins' file names are looked up: a few stats at startup.
 */
export function shadowedBuiltins(project: ProjectCommands, directory: string): string[] {
  const out: string[] = []
  const verb = project.trusted ? "replaces" : "would replace"
  for (const { name } of BUILTINS) {
    for (const dir of project.dirs) {
      for (const sub of ["command", "commands"]) {
        const file = path.join(dir, sub, `${name}.md`)
        if (statSync(file, { throwIfNoEntry: false })?.isFile()) out.push(`${path.relative(directory, file) || file}: ${verb} the built-in /${name}`)
      }
    }
    if (project.commands.includes(name)) out.push(`command.${name}: ${verb} the built-in /${name}`)
  }
  return out
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


/** An MCP server's prompts as commands named `server:prompt`; the template only shows the argument slots. */
export function mcpPromptCommands(prompts: { server: string; name: string; description?: string; arguments: { name: string; required?: boolean }[] }[]): CommandInfo[] {
  return prompts.map((p) => ({
    name: `${p.server}:${p.name}`,
    template: p.arguments.map((_, i) => `$${i + 1}`).join(" "),
    source: "mcp",
    ...(p.description ? { description: p.description } : {}),
    mcp: { server: p.server, prompt: p.name, arguments: p.arguments },
  }))
}

/** The text of a `prompts/get` answer: its messages' text (and embedded text resources), in order. */
export function promptText(result: { messages: { content: unknown }[] }): string {
  const out: string[] = []
  for (const m of result.messages) {
    const c = m.content as { type?: string; text?: string; resource?: { text?: string; uri?: string } }
    if (c?.type === "text" && typeof c.text === "string") out.push(c.text)
    else if (c?.type === "resource" && typeof c.resource?.text === "string") out.push(c.resource.text)
    else if (c?.type === "resource" && c.resource?.uri) out.push(`[Resource: ${c.resource.uri}]`)
  }
  return out.join("\n\n")
}

export interface CommandRunnerDeps {
  commands: () => CommandInfo[]
  /**
   * Contract: resolves once every MCP server has connected or failed (each within its timeout),
   * since their prompts are commands too; never rejects. Undefined: nothing to wait for.
   */
  ready?(): Promise<void>
  /** Why the command `name` is not there when its MCP server is (it failed to connect); undefined: no reason known. */
  unavailable?(name: string): string | undefined
  /** Sends `prompts/get` to an MCP server; throws with a readable message. */
  mcpPrompt?(server: string, prompt: string, args: Record<string, string>): Promise<{ messages: { content: unknown }[] }>
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
  /**
   * Contract: called once per command after it is expanded, before it is sent (plugins'
   * command.execute.before); resolves the parts to send. Must not reject. Undefined: as expanded.
   */
  beforeCommand?(input: { command: string; sessionID: string; arguments: string }, parts: PromptInput["parts"]): Promise<PromptInput["parts"]>
}

/**
 * The session service's `command` hook: expands the command and sends it as a prompt (or a
 * subtask part), publishes `command.executed`, and resolves with the last assistant message.
 */
export function createCommandRunner(deps: CommandRunnerDeps): (sessionID: string, input: SessionCommandInput) => Promise<MessageWithParts> {
  return async (sessionID, input) => {
    // A run started with `--command server:prompt` comes before its server has connected.
    await deps.ready?.()
    const commands = deps.commands()
    const cmd = commands.find((c) => c.name === input.command)
    if (!cmd) {
      const available = commands.map((c) => c.name).join(", ")
      const why = deps.unavailable?.(input.command)
      throw new BadRequestError({ message: `Command not found: "${input.command}".${why ? ` ${why}.` : ""} Available commands: ${available}` })
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

    // An MCP prompt's text is the server's, and /review's is a diff: each is sent as it is, never
    // expanded (a diff's "!`cmd`" or "@file" is the project's text, not a snippet or a mention).
    const expanded = cmd.mcp
      ? await mcpExpand(cmd, input.arguments ?? "", deps)
      : cmd.source === "builtin" && cmd.name === REVIEW_COMMAND.name
        ? { parts: [{ type: "text" as const, text: await reviewPrompt(input.arguments ?? "", deps) }], subtask: false }
        : await expandCommand(cmd, input.arguments ?? "", {
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
    if (deps.beforeCommand) prompt.parts = await deps.beforeCommand({ command: cmd.name, sessionID, arguments: input.arguments ?? "" }, prompt.parts)
    if (input.messageID) prompt.messageID = input.messageID
    if (variant) prompt.variant = variant

    const result = await deps.sessions.prompt(sessionID, prompt)
    deps.bus.publish("command.executed", { name: cmd.name, sessionID, arguments: input.arguments ?? "", messageID: result.info.id })
    return result
  }
}

async function mcpExpand(cmd: CommandInfo, argString: string, deps: CommandRunnerDeps) {
  const spec = cmd.mcp!
  const values = splitArguments(argString)
  const args: Record<string, string> = {}
  spec.arguments.forEach((a, i) => {
    // The last argument takes the rest of the line.
    const value = i === spec.arguments.length - 1 ? values.slice(i).join(" ") : values[i]
    if (value) args[a.name] = value
  })
  const missing = spec.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name)
  if (missing.length) {
    const usage = spec.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ")
    throw new BadRequestError({ message: `/${cmd.name} needs ${missing.join(", ")}: /${cmd.name} ${usage}`, issues: missing.map((m) => ({ path: "arguments", message: `${m} is required` })) })
  }
  if (!deps.mcpPrompt) throw new BadRequestError({ message: `/${cmd.name}: MCP prompts are not available here` })
  const text = promptText(await deps.mcpPrompt(spec.server, spec.prompt, args))
  if (!text) throw new BadRequestError({ message: `MCP server "${spec.server}" gave an empty prompt for ${spec.prompt}` })
  return { parts: [{ type: "text" as const, text }], subtask: false }
}
