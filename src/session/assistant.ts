import { emptyTokens, type AssistantMessage } from "../protocol"
import { Id } from "../util"

/** A new, empty assistant message answering `parentID`: one step (or a summary, a subtask, a user shell). */
export function newAssistant(input: {
  sessionID: string
  parentID: string
  agent: string
  model: { providerID: string; modelID: string; variant?: string }
  path: { cwd: string; root: string }
  summary?: boolean
  now?: number
}): AssistantMessage {
  return {
    id: Id.ascending("msg"),
    sessionID: input.sessionID,
    role: "assistant",
    parentID: input.parentID,
    mode: input.agent,
    agent: input.agent,
    modelID: input.model.modelID,
    providerID: input.model.providerID,
    path: input.path,
    cost: 0,
    tokens: emptyTokens(),
    time: { created: input.now ?? Date.now() },
    ...(input.summary ? { summary: true } : {}),
    ...(input.model.variant ? { variant: input.model.variant } : {}),
  }
}
