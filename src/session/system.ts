// The system prompt of a step: the agent's prompt, the environment, AGENTS.md instructions,
// skills, MCP instructions, and the structured-output rule. Instruction files are read once per
// run, not per step. The environment (with its git status) is taken once per session and model:
// it sits before the whole conversation in the cached prefix, so a status that changed after an
// edit would make every later turn pay for the full history again.
import type { Agent } from "../agent"
import type { ModelInfo, ResolvedModel } from "../llm"
import { disabledTools, merge } from "../permission"
import type { GitResult } from "../process"
import type { Session, UserMessage } from "../protocol"
import defaultPrompt from "./prompt/default.txt"
import { formatInstruction, loadInstructions, type Instruction, type InstructionClaims, type InstructionInput } from "./instruction"

export interface EnvironmentInput {
  model: Pick<ModelInfo, "providerID" | "id" | "name">
  directory: string
  worktree: string
  isGit: boolean
  /** `git status --short --branch` in the directory; undefined: not known. */
  gitStatus?: string
  platform?: string
  date?: Date
}

/** Who the model is and where it runs: cwd, git root and status, platform, date. */
export function environment(input: EnvironmentInput): string {
  const date = input.date ?? new Date()
  const lines = [
    `You are powered by the model named ${input.model.name}. The exact model ID is ${input.model.providerID}/${input.model.id}.`,
    "Here is useful information about the environment you are running in:",
    "<env>",
    `  Working directory: ${input.directory}`,
    `  Workspace root: ${input.worktree}`,
    `  Is directory a git repo: ${input.isGit ? "yes" : "no"}`,
    `  Platform: ${input.platform ?? process.platform}`,
    `  Today's date: ${date.toDateString()}`,
    "</env>",
  ]
  if (input.isGit) {
    const status = input.gitStatus
    if (status !== undefined) lines.push("Git status when this session started (a snapshot: it does not update as files change):", "<git_status>", status || "(clean)", "</git_status>")
  }
  return lines.join("\n")
}

/** The status for the prompt (40 lines at most), or undefined when git failed or could not start. */
async function statusText(run: (cwd: string) => Promise<GitResult>, cwd: string): Promise<string | undefined> {
  try {
    const r = await run(cwd)
    if (r.code !== 0) return undefined
    const lines = r.stdout.toString("utf8").trimEnd().split("\n")
    return lines.length > 40 ? [...lines.slice(0, 40), `… ${lines.length - 40} more`].join("\n") : lines.join("\n")
  } catch {
    return undefined
  }
}

/** The skills the model may load with the skill tool, for the system prompt. */
export function skillsPrompt(skills: { name: string; description: string }[]): string | undefined {
  if (skills.length === 0) return undefined
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`)
  return [
    "Skills provide specialized instructions and workflows for specific tasks. When a task matches a skill's description, load it with the skill tool before you start, and follow it.",
    "<available_skills>",
    ...lines,
    "</available_skills>",
  ].join("\n")
}

export interface SystemInput {
  agent: Agent
  environment: string
  instructions: Instruction[]
  skills?: string
  /** Extra system text sent with the user's message. */
  userSystem?: string
  structuredOutput?: boolean
  /** The `<mcp_instructions>` block of the connected MCP servers. */
  mcpInstructions?: string
}

export const STRUCTURED_OUTPUT_SYSTEM =
  "IMPORTANT: The user has requested structured output. When your work is done you MUST call the StructuredOutput tool exactly once, with the final result as its input, matching its schema. Do not answer with plain text instead."

/**
 * The system messages for one step. The first holds the agent's prompt (or the default one)
 * and stays stable across steps so providers can cache it; the second holds everything else.
 */
export function buildSystem(input: SystemInput): string[] {
  const head = [input.agent.prompt ?? defaultPrompt, input.userSystem].filter(Boolean).join("\n")
  const rest = [
    input.environment,
    ...input.instructions.map(formatInstruction),
    input.skills,
    input.mcpInstructions,
    input.structuredOutput ? STRUCTURED_OUTPUT_SYSTEM : undefined,
  ].filter((s): s is string => Boolean(s))
  return [head, rest.join("\n\n")].filter(Boolean)
}

export interface SystemPromptDeps {
  /** Where instructions are looked up (the project, the global config dir, `instructions`). */
  instructions: InstructionInput
  /**
   * Runs `git status --short --branch` in a directory of the project (hardened, sandboxed: see
   * process/git.ts); called once per session and model. Undefined: not a git repository.
   */
  gitStatus?: (cwd: string) => Promise<GitResult>
  /** The `<available_skills>` block (see skillsPrompt), undefined when there are none. */
  skills?: string
  /** The connected MCP servers' instructions, read at every step. */
  mcpInstructions(): string | undefined
  /** Told which instruction files the system prompt carries, so the read tool does not attach them again. */
  claims: InstructionClaims
}

/** Sessions whose environment block is remembered (a serve process may see many). */
const ENV_KEPT = 500

/** The LoopHooks.system of an App, and `forget` for the session service's beforeRun. */
export function createSystemPrompt(deps: SystemPromptDeps) {
  const runs = new Map<string, Instruction[]>()
  /** Per session, the environment of the model it was made for; the oldest go first past ENV_KEPT. */
  const envs = new Map<string, { model: string; env: string }>()

  async function envFor(sessionID: string, model: ModelInfo): Promise<string> {
    const ref = `${model.providerID}/${model.id}`
    const kept = envs.get(sessionID)
    if (kept?.model === ref) return kept.env
    const directory = deps.instructions.directory
    const gitStatus = deps.gitStatus ? await statusText(deps.gitStatus, directory) : undefined
    const env = environment({ model, directory, worktree: deps.instructions.worktree, isGit: deps.gitStatus !== undefined, gitStatus })
    envs.delete(sessionID)
    envs.set(sessionID, { model: ref, env })
    if (envs.size > ENV_KEPT) envs.delete(envs.keys().next().value!)
    return env
  }

  async function pieces(sessionID: string, model: ModelInfo) {
    let instructions = runs.get(sessionID)
    if (!instructions) {
      instructions = await loadInstructions(deps.instructions)
      deps.claims.inSystemPrompt(instructions.map((i) => i.path))
      runs.set(sessionID, instructions)
    }
    return { env: await envFor(sessionID, model), instructions }
  }

  return {
    async system(input: { agent: Agent; model: ResolvedModel; user: UserMessage; session: Session }): Promise<string[]> {
      const { agent, user, session } = input
      const { env, instructions } = await pieces(session.id, input.model.info)
      const skillDenied = disabledTools(["skill"], merge(agent.permission, session.permission ?? [])).has("skill")
      return buildSystem({
        agent,
        environment: env,
        instructions,
        skills: skillDenied ? undefined : deps.skills,
        userSystem: user.system,
        structuredOutput: user.format?.type === "json_schema",
        mcpInstructions: deps.mcpInstructions(),
      })
    },
    /** A new run starts: read the instruction files again (the environment stays the session's). */
    forget(sessionID: string): void {
      runs.delete(sessionID)
    },
  }
}
