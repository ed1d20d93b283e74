import { type Session, type SubtaskPart, type ToolPart, type UserMessage } from "../protocol"
import type { Tool } from "../tool"
import { Id } from "../util"
import type { History } from "./history"
import { newAssistant } from "./assistant"
import type { ToolPipeline } from "./tool-call"

export const SUBTASK_CONTINUE = "Summarize the task tool output above and continue with your task."

export interface SubtaskDeps {
  history: History
  toolCalls: ToolPipeline
  taskTool: () => Tool | undefined
  directory: string
  worktree: string
}

/**
 * Runs a queued subtask part (from a command or an @agent mention) as a task tool call
 * recorded on its own assistant message, so the model sees the result on the next step.
 */
export async function runSubtask(deps: SubtaskDeps, input: { session: Session; user: UserMessage; part: SubtaskPart; abort: AbortSignal }) {
  const { history, session, user, part } = { history: deps.history, ...input }
  const tool = deps.taskTool()
  const model = part.model ?? user.model
  const assistant = newAssistant({ sessionID: session.id, parentID: user.id, agent: user.agent, model, path: { cwd: deps.directory, root: deps.worktree } })
  history.putMessage(assistant)
  const args = { description: part.description, prompt: part.prompt, subagent_type: part.agent, ...(part.command ? { command: part.command } : {}) }
  const toolPart: ToolPart = {
    id: Id.ascending("prt"),
    sessionID: session.id,
    messageID: assistant.id,
    type: "tool",
    callID: Id.ascending("tool"),
    tool: "task",
    state: { status: "pending", input: {}, raw: "" },
  }
  // The user asked for this task (a command or an @agent mention): it is not asked about again.
  await deps.toolCalls.run({ origin: "subtask", part: toolPart, tool, input: args, agent: "user", abort: input.abort, policy: "user", abortedError: "Cancelled" })
  assistant.finish = "tool-calls"
  assistant.time.completed = Date.now()
  history.putMessage(assistant)
  if (part.command && !input.abort.aborted) {
    const note: UserMessage = { id: Id.ascending("msg"), sessionID: session.id, role: "user", time: { created: Date.now() }, agent: user.agent, model: user.model }
    history.putMessage(note)
    history.putPart({ id: Id.ascending("prt"), sessionID: session.id, messageID: note.id, type: "text", text: SUBTASK_CONTINUE, synthetic: true })
  }
}
