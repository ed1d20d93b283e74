// The user's own shell command in a session (`!cmd`, POST /session/:id/shell): stored as a
// user message saying the user ran a tool, and an assistant message holding a `bash` tool
// part that goes running → completed with the output streamed into `metadata.output`. The
// bash tool itself runs it; no model is called and no permission is asked (the user typed it).
import path from "node:path"
import { BusyError, type MessageWithParts, type SessionShellInput, type ToolPart, type UserMessage } from "../protocol"
import { runTool, type ToolContext } from "../tool"
import { Id } from "../util"
import type { App } from "./app"
import { cleanupRevert } from "./revert"
import { newAssistant } from "./assistant"

export const SHELL_NOTE = "The following tool was executed by the user"
/** A user's command runs until it ends or is aborted (setTimeout's largest delay). */
const NO_TIMEOUT_MS = 2_147_483_647

export type Shells = ReturnType<typeof createShells>

/** Runs user shell commands for one App; at most one per session, never while the loop runs. */
export function createShells(app: App) {
  const running = new Map<string, AbortController>()

  function model(sessionID: string, input: SessionShellInput, agentModel?: { providerID: string; modelID: string }) {
    if (input.model) return input.model
    if (agentModel) return agentModel
    const list = app.history.messages(sessionID)
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i]!.info
      if (m.role === "user") return m.model
    }
    try {
      return app.providers.defaultModel(app.config.model)
    } catch {
      // A shell command needs no model; the messages only record one.
      return { providerID: "none", modelID: "none" }
    }
  }

  async function run(sessionID: string, input: SessionShellInput): Promise<MessageWithParts> {
    app.sessions.get(sessionID)
    if (app.sessions.busy(sessionID) || running.has(sessionID)) throw new BusyError({ sessionID, message: `Session ${sessionID} is busy` })
    const bash = app.registry.get("bash")
    if (!bash) throw new Error("The bash tool is not available")
    const agent = input.agent ? app.agents.require(input.agent) : app.agents.defaultAgent()
    const ref = model(sessionID, input, agent.model)
    const controller = new AbortController()
    running.set(sessionID, controller)
    app.status.set(sessionID, { type: "busy" })
    try {
      cleanupRevert(app, sessionID)
      const now = Date.now()
      const user: UserMessage = { id: input.messageID ?? Id.ascending("msg"), sessionID, role: "user", time: { created: now }, agent: agent.name, model: ref }
      app.history.putMessage(user)
      app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: user.id, type: "text", text: SHELL_NOTE, synthetic: true })
      const assistant = newAssistant({ sessionID, parentID: user.id, agent: agent.name, model: ref, path: { cwd: app.directory, root: app.worktree }, now })
      app.history.putMessage(assistant)
      const commandInput = { command: input.command }
      let part: ToolPart = {
        id: Id.ascending("prt"),
        sessionID,
        messageID: assistant.id,
        type: "tool",
        callID: Id.ascending("tool"),
        tool: "bash",
        state: { status: "running", input: commandInput, time: { start: now } },
      }
      app.history.putPart(part)
      app.sessions.update(sessionID, {})

      const ctx = context(app, { sessionID, messageID: assistant.id, callID: part.callID, agent: agent.name, abort: controller.signal })
      ctx.metadata = ({ metadata }) => {
        if (part.state.status !== "running") return
        part = { ...part, state: { ...part.state, metadata: { output: metadata?.output ?? "", description: "" } } }
        app.history.putPart(part)
      }
      try {
        const result = await runTool(bash, { command: input.command, timeout: NO_TIMEOUT_MS }, ctx)
        part = {
          ...part,
          state: { status: "completed", input: commandInput, output: result.output, title: "", metadata: { ...result.metadata, description: "" }, time: { start: now, end: Date.now() } },
        }
      } catch (e) {
        part = { ...part, state: { status: "error", input: commandInput, error: e instanceof Error ? e.message : String(e), time: { start: now, end: Date.now() } } }
      }
      app.history.putPart(part)
      app.history.putMessage({ ...assistant, time: { ...assistant.time, completed: Date.now() } })
      return app.sessions.message(sessionID, assistant.id)
    } finally {
      running.delete(sessionID)
      app.status.set(sessionID, { type: "idle" })
    }
  }

  return {
    run,
    busy: (sessionID: string) => running.has(sessionID),
    /** Stops the session's running command; false when none runs. */
    abort(sessionID: string): boolean {
      const controller = running.get(sessionID)
      if (!controller) return false
      controller.abort(new Error("The command was aborted."))
      return true
    },
    abortAll() {
      for (const c of running.values()) c.abort(new Error("shutting down"))
    },
  }
}

function context(app: App, ids: { sessionID: string; messageID: string; callID: string; agent: string; abort: AbortSignal }): ToolContext {
  return {
    ...ids,
    directory: app.directory,
    worktree: app.worktree,
    // The user typed the command: nothing to ask.
    ask: async () => {},
    metadata: () => {},
    services: {
      todos: { get: (id) => app.store.todos.get(id), set: (id, todos) => app.store.todos.set(id, todos) },
      question: app.questions,
      claimInstructions: () => [],
      withFileLock: (_file, fn) => fn(),
    },
    outputDir: path.join(app.paths.data, "tool-output"),
    limits: { maxLines: app.config.tool_output?.max_lines ?? 2000, maxBytes: app.config.tool_output?.max_bytes ?? 51200 },
    canDelegate: false,
  }
}
