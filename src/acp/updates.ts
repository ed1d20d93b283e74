// Turns the bus events of one session into ACP `session/update`s: streamed text and
// reasoning as chunks, tool parts as `tool_call` / `tool_call_update`, todos as a plan.
// It remembers what it already sent, so repeated part updates never repeat a chunk or a
// status, and text that arrives without deltas is still sent once.
import type { PlanEntry, SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import type { BusEvent, Message, Part, Todo, ToolPart } from "../protocol"
import { textContent, toolContent, toolView } from "./tool"

interface TextState {
  kind: "text" | "reasoning"
  sent: number
}

interface ToolState {
  status: ToolPart["state"]["status"]
  output?: string
}

export class UpdateMapper {
  /** Assistant messages whose parts are streamed (user parts are the editor's own input). */
  private readonly assistant = new Set<string>()
  private readonly texts = new Map<string, TextState>()
  private readonly tools = new Map<string, ToolState>()
  /** Each assistant message's worktree (`path.root`): the paths of tool summaries are relative to it. */
  private readonly roots = new Map<string, string>()

  constructor(private readonly directory: string) {}

  map(e: BusEvent): SessionUpdate[] {
    switch (e.type) {
      case "message.updated":
        if (streamed(e.properties.info)) this.assistant.add(e.properties.info.id)
        if (e.properties.info.role === "assistant") this.roots.set(e.properties.info.id, e.properties.info.path.root)
        return []
      case "message.part.updated":
        return this.part(e.properties.part)
      case "message.part.delta": {
        const state = this.texts.get(e.properties.partID)
        if (!state || e.properties.field !== "text" || !e.properties.delta) return []
        state.sent += e.properties.delta.length
        return [chunk(state.kind, e.properties.delta)]
      }
      case "todo.updated":
        return [{ sessionUpdate: "plan", entries: planEntries(e.properties.todos) }]
      default:
        return []
    }
  }

  /**
   * An event of a subtask this session started: only its tool calls, named by part id (call
   * ids are the provider's and may repeat across sessions), so the editor follows the work.
   */
  mapChild(e: BusEvent): SessionUpdate[] {
    if (e.type === "message.updated") return this.map(e)
    if (e.type !== "message.part.updated" || e.properties.part.type !== "tool" || !this.assistant.has(e.properties.part.messageID)) return []
    return this.tool({ ...e.properties.part, callID: "" })
  }

  private part(part: Part): SessionUpdate[] {
    if (!this.assistant.has(part.messageID)) return []
    if (part.type === "text" || part.type === "reasoning") {
      if (part.type === "text" && (part.synthetic || part.ignored)) return []
      let state = this.texts.get(part.id)
      if (!state) this.texts.set(part.id, (state = { kind: part.type, sent: 0 }))
      // Text the deltas did not carry (a part stored whole, or deltas that came before we knew it).
      if (part.text.length <= state.sent) return []
      const rest = part.text.slice(state.sent)
      state.sent = part.text.length
      return [chunk(state.kind, rest)]
    }
    if (part.type === "tool") return this.tool(part)
    return []
  }

  private tool(part: ToolPart): SessionUpdate[] {
    const { state } = part
    const id = part.callID || part.id
    const input = state.input
    const out: SessionUpdate[] = []
    const view = toolView(part, this.roots.get(part.messageID) ?? this.directory)
    let known = this.tools.get(id)
    if (!known) {
      known = { status: state.status === "pending" ? "pending" : "running" }
      this.tools.set(id, known)
      out.push({
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: view.title,
        kind: view.kind,
        status: state.status === "pending" ? "pending" : "in_progress",
        locations: view.locations,
        rawInput: input,
      })
    } else if (known.status === "pending" && state.status === "running") {
      // The arguments are complete now: the tool's summary names the call and its files.
      known.status = "running"
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "in_progress",
        title: view.title,
        kind: view.kind,
        locations: view.locations,
        rawInput: input,
      })
    }
    if (known.status === "completed" || known.status === "error") return out
    if (state.status === "running") this.runningOutput(known, state.metadata?.output, out, id)
    if (state.status === "completed") {
      known.status = "completed"
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "completed",
        title: view.title,
        ...(view.described ? { kind: view.kind } : {}),
        ...(view.locations.length > 0 ? { locations: view.locations } : {}),
        content: toolContent(state.output, state.metadata, this.directory),
        rawOutput: { output: state.output, metadata: state.metadata },
      })
    }
    if (state.status === "error") {
      known.status = "error"
      out.push({ sessionUpdate: "tool_call_update", toolCallId: id, status: "failed", content: [textContent(state.error)], rawOutput: { error: state.error } })
    }
    return out
  }

  /** A running shell streams its output in `metadata.output`: send it when it changed. */
  private runningOutput(known: ToolState, output: unknown, out: SessionUpdate[], id: string) {
    if (typeof output !== "string" || output === "" || output === known.output) return
    known.output = output
    out.push({ sessionUpdate: "tool_call_update", toolCallId: id, status: "in_progress", content: [textContent(output)] })
  }
}

function streamed(info: Message): boolean {
  return info.role === "assistant" && !info.summary
}

export function chunk(kind: "text" | "reasoning", text: string): SessionUpdate {
  return { sessionUpdate: kind === "text" ? "agent_message_chunk" : "agent_thought_chunk", content: { type: "text", text } }
}

export function planEntries(todos: Todo[]): PlanEntry[] {
  return todos
    .filter((t) => t.status !== "cancelled")
    .map((t) => ({ content: t.content, priority: t.priority, status: t.status as PlanEntry["status"] }))
}
