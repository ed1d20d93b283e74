// What the conversation view prints: a message is cut into blocks (the user's prompt, each
// text/reasoning/tool part, a footer for the turn). A block that can no longer change goes to
// the terminal's scrollback once (Ink <Static>); the rest stays in the live region.
import type { AssistantMessage, MessageWithParts, Part, ReasoningPart, TextPart, ToolPart, UserMessage } from "../protocol"

export type Block =
  | { kind: "user"; key: string; message: UserMessage; parts: Part[] }
  | { kind: "text"; key: string; part: TextPart }
  | { kind: "reasoning"; key: string; part: ReasoningPart }
  | { kind: "tool"; key: string; part: ToolPart; expanded?: boolean }
  | { kind: "footer"; key: string; message: AssistantMessage; started?: number }
  | { kind: "notice"; key: string; text: string; tone: "info" | "error" | "dim" | "markdown" }
  | { kind: "header"; key: string; title: string; detail?: string }

const done = (m: MessageWithParts) => m.info.role === "assistant" && (m.info.time.completed !== undefined || m.info.error !== undefined)

/** The blocks of one message, each with whether it is settled (will not change any more). */
export function messageBlocks(m: MessageWithParts, opts: { later: boolean; idle: boolean; userCreated?: number }): { block: Block; settled: boolean }[] {
  const out: { block: Block; settled: boolean }[] = []
  if (m.info.role === "user") {
    if (m.parts.every((p) => p.type === "text" && p.synthetic)) {
      // plan_exit / plan_enter handing the session to another agent: say so, once.
      const handoff = m.parts.map((p) => (p as { metadata?: { handoff?: { from?: string; to?: string; filepath?: string } } }).metadata?.handoff).find(Boolean)
      if (handoff) return [{ block: { kind: "notice", key: m.info.id, text: `⇄ ${handoff.from} → ${handoff.to}${handoff.to === "build" ? `: carrying out the approved plan (${handoff.filepath})` : `: planning in ${handoff.filepath}`}`, tone: "info" }, settled: true }]
      if (m.parts.length > 0) return []
    }
    out.push({ block: { kind: "user", key: m.info.id, message: m.info, parts: m.parts }, settled: opts.later || opts.idle })
    return out
  }
  const finished = done(m) || opts.idle
  for (const p of m.parts) {
    if (p.type === "text") {
      if (p.synthetic || p.ignored) continue
      out.push({ block: { kind: "text", key: p.id, part: p }, settled: finished || p.time?.end !== undefined })
    } else if (p.type === "reasoning") {
      out.push({ block: { kind: "reasoning", key: p.id, part: p }, settled: finished || p.time.end !== undefined })
    } else if (p.type === "tool") {
      const s = p.state.status
      out.push({ block: { kind: "tool", key: p.id, part: p }, settled: finished || s === "completed" || s === "error" })
    }
  }
  const info = m.info as AssistantMessage
  const lastStep = info.finish !== "tool-calls" && info.finish !== "unknown"
  if ((lastStep && done(m)) || info.error)
    out.push({ block: { kind: "footer", key: `${info.id}:footer`, message: info, started: opts.userCreated }, settled: finished })
  return out
}
