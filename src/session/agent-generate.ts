// `wright agent create`: the model turns a description into an agent (a name, when to use it,
// and its system prompt), as OpenCode's `agent create` does. One call, no tools; the answer is
// a JSON object, read leniently (a fenced block, text around it) and checked field by field.
import { stream, type Providers } from "../llm"
import { parseModelRef } from "../protocol"

export interface GeneratedAgent {
  /** Lowercase letters, digits and hyphens: the file name and the agent's name. */
  identifier: string
  /** The agent's description: when the primary agent (or the user) should pick it. */
  whenToUse: string
  systemPrompt: string
}

export class AgentGenerateError extends Error {
  override name = "AgentGenerateError"
}

const SYSTEM = `You design agents for wright, a coding agent that works in a user's repository with tools (reading, searching and editing files, running shell commands, fetching web pages).
Given what the user wants an agent for, write one agent:
- "identifier": a short lowercase name made of words joined by hyphens (2 to 4 words, for example "test-runner" or "api-docs-writer"); it must not be one of the names listed as taken;
- "whenToUse": one or two sentences saying when this agent should be used, starting with "Use this agent when";
- "systemPrompt": the agent's whole system prompt, written to the agent in the second person ("You are ..."): its expertise, how it works step by step, what it checks before it reports, and what it must not do.
Answer with the JSON object only: {"identifier": "...", "whenToUse": "...", "systemPrompt": "..."}.`

export async function generateAgent(
  deps: { providers: Providers; defaultModel?: string },
  input: { description: string; model?: string; taken: string[]; abort?: AbortSignal },
): Promise<GeneratedAgent> {
  const ref = input.model ? parseModelRef(input.model, "--model") : deps.providers.defaultModel(deps.defaultModel)
  const model = await deps.providers.get(ref.providerID, ref.modelID)
  let text = ""
  let failed: unknown
  for await (const part of stream({
    model,
    system: [SYSTEM],
    messages: [{ role: "user", content: `Names already taken: ${input.taken.join(", ") || "none"}.\n\nCreate an agent for this: ${input.description}` }],
    tools: {},
    abort: input.abort ?? AbortSignal.timeout(120_000),
    temperature: 0.3,
  })) {
    if (part.type === "text-delta") text += part.delta
    else if (part.type === "error") failed = part.error
  }
  if (failed) throw failed
  return readAgent(text, input.taken)
}

/** The JSON object in a model's answer, checked; the error quotes the start of the answer. */
export function readAgent(answer: string, taken: string[]): GeneratedAgent {
  const start = answer.indexOf("{")
  const end = answer.lastIndexOf("}")
  const quote = JSON.stringify(answer.slice(0, 200))
  if (start < 0 || end < start) throw new AgentGenerateError(`the model did not answer with a JSON object: ${quote}`)
  let raw: Record<string, unknown>
  try {
    raw = JSON.parse(answer.slice(start, end + 1))
  } catch (e) {
    throw new AgentGenerateError(`the model's answer is not valid JSON (${(e as Error).message}): ${quote}`)
  }
  for (const key of ["identifier", "whenToUse", "systemPrompt"] as const) {
    if (typeof raw[key] !== "string" || !(raw[key] as string).trim()) throw new AgentGenerateError(`the model's answer has no "${key}": ${quote}`)
  }
  const identifier = (raw.identifier as string)
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
  if (!identifier) throw new AgentGenerateError(`the model's identifier ${JSON.stringify(raw.identifier)} has no letters or digits`)
  if (taken.includes(identifier)) throw new AgentGenerateError(`the model named the agent "${identifier}", which is already an agent here; try again or describe it differently`)
  return { identifier, whenToUse: (raw.whenToUse as string).trim(), systemPrompt: (raw.systemPrompt as string).trim() }
}
