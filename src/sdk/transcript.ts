// A session as Markdown (the TUI's /export, `wright export --format markdown`): the conversation, tool calls as short lines.
import type { MessageWithParts, Session } from "../protocol"

export function toMarkdown(session: Session, messages: MessageWithParts[]): string {
  const out = [`# ${session.title}`, "", `Session ${session.id} · ${new Date(session.time.created).toISOString()}`, ""]
  for (const m of messages) {
    if (m.info.role === "user") {
      const text = m.parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => (p as { text: string }).text).join("\n")
      if (!text) continue
      out.push("## User", "", text, "")
      continue
    }
    const body: string[] = []
    for (const p of m.parts) {
      if (p.type === "text" && !p.synthetic && p.text.trim()) body.push(p.text, "")
      else if (p.type === "tool") {
        const input = JSON.stringify(p.state.input)
        const status = p.state.status === "error" ? ` (error: ${p.state.error.split("\n")[0]})` : ""
        body.push(`- **${p.tool}** \`${input.length > 200 ? `${input.slice(0, 200)}…` : input}\`${status}`, "")
      }
    }
    if (m.info.error) body.push(`> ${m.info.error.name}`, "")
    if (body.length) out.push(`## Assistant (${m.info.agent} · ${m.info.modelID})`, "", ...body)
  }
  return out.join("\n")
}
