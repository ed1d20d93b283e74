import { type Session, type SubtaskPart, type ToolPart, type UserMessage } from "../protocol"
import { runTool, type Tool, type ToolContext } from "../tool"
import { Id } from "../util"
import type { History } from "./history"
import { newAssistant } from "./assistant"

export const SUBTASK_CONTINUE = "Summarize the task tool output above and continue with your task."

export interface SubtaskDeps {
  history: History
  taskTool: () => Tool | undefined
  /** A tool context for work the user started (no permission asks for the task itself). */
  context(input: { sessionID: string; messageID: string; callID: string; abort: AbortSignal }): ToolContext
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
  const start = Date.now()
  const toolPart: ToolPart = {
    id: Id.ascending("prt"),
    sessionID: session.id,
    messageID: assistant.id,
    type: "tool",
    callID: Id.ascending("tool"),
    tool: "task",
    state: { status: "running", input: args, time: { start } },
  }
  history.putPart(toolPart)
  try {
    if (!tool) throw new Error("The task tool is not available to this session")
    const result = await runTool(tool, args, deps.context({ sessionID: session.id, messageID: assistant.id, callID: toolPart.callID, abort: input.abort }))
    toolPart.state = { status: "completed", input: args, output: result.output, title: result.title, metadata: result.metadata, time: { start, end: Date.now() } }
  } catch (e) {
    toolPart.state = { status: "error", input: args, error: input.abort.aborted ? "Cancelled" : (e as Error).message, time: { start, end: Date.now() } }
  }
  history.putPart(toolPart)
  assistant.finish = "tool-calls"
  assistant.time.completed = Date.now()
  history.putMessage(assistant)
  if (part.command && !input.abort.aborted) {
    const note: UserMessage = { id: Id.ascending("msg"), sessionID: session.id, role: "user", time: { created: Date.now() }, agent: user.agent, model: user.model }
    history.putMessage(note)
    history.putPart({ id: Id.ascending("prt"), sessionID: session.id, messageID: note.id, type: "text", text: SUBTASK_CONTINUE, synthetic: true })
  }
}
