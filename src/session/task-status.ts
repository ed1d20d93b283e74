// The task_status tool: reads a child session's state and result (running, completed with its
// final text, failed with its error). Background children are read from the registry
// (background.ts); any other child of the caller (a finished foreground task, one from an
// earlier process) from its stored messages. `wait: true` waits for a running one to settle.
import { z } from "zod"
import { defineTool, Summary, type Tool } from "../tool"
import { describeChild, type Background, type ChildState } from "./background"
import type { SessionService } from "./service"
import description from "./task-status.txt"

export const TaskStatusParameters = z.object({
  task_id: z.string().describe("The id a task call returned"),
  wait: z.boolean().optional().describe("Wait until the task finishes (default: answer at once)"),
})

export function createTaskStatusTool(deps: { sessions: SessionService; background: Background }): Tool<typeof TaskStatusParameters> {
  return defineTool({
    id: "task_status",
    description,
    parameters: TaskStatusParameters,
    summary(input) {
      const id = Summary.textOf(input.task_id)
      return { title: id ? `Task ${id}` : "Task status", kind: "think", locations: [] }
    },
    async execute(args, ctx) {
      let child
      try {
        child = deps.sessions.get(args.task_id)
      } catch {
        child = undefined
      }
      if (!child || child.parentID !== ctx.sessionID) throw new Error(`No task with id ${args.task_id} belongs to this session; use the id a task call returned`)
      const tracked = deps.background.get(child.id)
      if (args.wait && tracked?.state.status === "running") {
        const aborted = new Promise<void>((resolve) => ctx.abort.addEventListener("abort", () => resolve(), { once: true }))
        await Promise.race([tracked.done, aborted])
      }
      const state = tracked?.state ?? stored(deps.sessions, child.id)
      return { title: `Task ${child.id}: ${state.status}`, output: describeChild(child.id, state), metadata: { sessionId: child.id, status: state.status } }
    },
  })
}

/** A child the registry does not know: busy, or as its last answer left it. */
function stored(sessions: SessionService, childID: string): ChildState {
  if (sessions.busy(childID)) return { status: "running" }
  const last = sessions.messages(childID).findLast((m) => m.info.role === "assistant")
  if (!last || last.info.role !== "assistant") return { status: "failed", error: "The task never answered", aborted: false }
  if (last.info.error) return { status: "failed", error: (last.info.error.data as { message?: string }).message ?? last.info.error.name, aborted: last.info.error.name === "MessageAbortedError" }
  const text = last.parts.findLast((p) => p.type === "text" && !p.synthetic)
  return { status: "completed", output: text?.type === "text" ? text.text : "(the subagent finished without a text answer)" }
}
