// The user's own shell command in a session (`!cmd`, POST /session/:id/shell): stored as a
// user message saying the user ran a tool, and an assistant message holding a `bash` tool
// part that goes running → completed with the output streamed into `metadata.output`. The
// bash tool runs it through the tool-call pipeline; no model is called and no permission is
// asked (the user typed it).
import { BusyError, type MessageWithParts, type SessionShellInput, type ToolPart, type UserMessage } from "../protocol"
import { Id } from "../util"
import type { App } from "./app"
import { cleanupRevert } from "./revert"
import { newAssistant } from "./assistant"
import { SHELL_NOTE } from "./shell-note"

export { SHELL_NOTE }

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
    // A `!cmd` is not stored in the inbox: it runs at once or not at all (what it shows would be stale later).
    if (app.sessions.busy(sessionID) || running.has(sessionID))
      throw new BusyError({ sessionID, message: `Session ${sessionID} is busy: a shell command (!cmd) runs only while the agent is idle. Wait for it to finish, or interrupt it (Esc, POST /session/${sessionID}/abort)` })
    const bash = app.registry.get("bash")
    if (!bash) throw new Error("The bash tool is not available")
    const agent = input.agent ? app.agents.require(input.agent) : app.agents.defaultAgent()
    const ref = model(sessionID, input, agent.model)
    // The command's step is written under the session's lease, as the loop's are.
    if (!app.leases.tryHold(sessionID)) throw new BusyError({ sessionID, message: `Session ${sessionID} is busy in another wright process: a shell command (!cmd) runs only while the session is idle` })
    const controller = new AbortController()
    running.set(sessionID, controller)
    // The command may change any file: the worktree is recorded before it runs, like a step's.
    app.snapshots.store.touch()
    const snapshot = app.snapshots.begin(sessionID)
    try {
      await snapshot.before
      app.status.set(sessionID, { type: "busy" })
      cleanupRevert(app, sessionID)
      const now = Date.now()
      const user: UserMessage = { id: input.messageID ?? Id.ascending("msg"), sessionID, role: "user", time: { created: now }, agent: agent.name, model: ref }
      app.history.putMessage(user)
      app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: user.id, type: "text", text: SHELL_NOTE, synthetic: true })
      const assistant = newAssistant({ sessionID, parentID: user.id, agent: agent.name, model: ref, path: { cwd: app.directory, root: app.worktree }, now })
      app.history.putMessage(assistant)
      const part: ToolPart = {
        id: Id.ascending("prt"),
        sessionID,
        messageID: assistant.id,
        type: "tool",
        callID: Id.ascending("tool"),
        tool: "bash",
        state: { status: "pending", input: {}, raw: "" },
      }
      const call = app.toolCalls.run({
        origin: "shell",
        part,
        tool: bash,
        input: { command: input.command },
        args: { command: input.command, timeout: NO_TIMEOUT_MS },
        agent: agent.name,
        abort: controller.signal,
        // The user typed the command: nothing to ask.
        policy: "user",
        // As OpenCode shows a user's command: no title, no description, the output streamed into metadata.output.
        fixed: { title: "", metadata: { description: "" } },
      })
      app.sessions.update(sessionID, {})
      await call
      snapshot.end((patch) => app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: assistant.id, type: "patch", ...patch }))
      await app.snapshots.settled(sessionID)
      app.history.putMessage({ ...assistant, time: { ...assistant.time, completed: Date.now() } })
      return app.sessions.message(sessionID, assistant.id)
    } finally {
      app.leases.release(sessionID)
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
