import { execFileSync } from "node:child_process"
import type { Agent } from "../agent"
import type { ModelInfo } from "../llm"
import defaultPrompt from "./prompt/default.txt"
import { formatInstruction, type Instruction } from "./instruction"

export interface EnvironmentInput {
  model: Pick<ModelInfo, "providerID" | "id" | "name">
  directory: string
  worktree: string
  isGit: boolean
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
    const status = gitStatus(input.directory)
    if (status !== undefined) lines.push("<git_status>", status || "(clean)", "</git_status>")
  }
  return lines.join("\n")
}

function gitStatus(cwd: string): string | undefined {
  try {
    const out = execFileSync("git", ["status", "--short", "--branch"], { cwd, encoding: "utf8", timeout: 2000, stdio: ["ignore", "pipe", "ignore"] })
    const lines = out.trimEnd().split("\n")
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
