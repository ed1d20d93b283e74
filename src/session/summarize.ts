// `/summarize` (POST /session/:id/summarize): compaction on request. It queues a compaction
// task for the loop, with the model asked for or the one the session last used.
import type { Agents } from "../agent"
import type { Providers } from "../llm"
import type { Session } from "../protocol"
import { requestCompaction } from "./compaction"
import type { History } from "./history"

export interface SummarizeInput {
  providerID?: string
  modelID?: string
  /** Recorded on the compaction part: false for a user's request. */
  auto?: boolean
}

/** Queues the compaction; the caller then runs the loop, which processes it. */
export function requestSummary(deps: { history: History; providers: Providers; agents: Agents; defaultModel?: string }, session: Session, input: SummarizeInput): void {
  const last = deps.history.messages(session.id).findLast((m) => m.info.role === "user")?.info
  const model =
    input.providerID && input.modelID ? { providerID: input.providerID, modelID: input.modelID } : last?.role === "user" ? last.model : deps.providers.defaultModel(deps.defaultModel)
  const agent = last?.role === "user" ? last.agent : deps.agents.defaultAgent().name
  const user = { id: "", sessionID: session.id, role: "user" as const, time: { created: Date.now() }, agent, model }
  requestCompaction(deps.history, { session, user, auto: input.auto ?? false })
}
