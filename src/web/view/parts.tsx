/** @jsxImportSource preact */
// One message as the page shows it: the user's text, the assistant's text and reasoning, and
// tool calls as their tool summarised them (`state.metadata.summary`, the same line the TUI,
// `run` and ACP draw), with the diff of each edit. Text is drawn as text, never as HTML.
import type { MessageWithParts, Part, ToolPart } from "../../protocol"

const str = (v: unknown) => (typeof v === "string" ? v : undefined)

export function Diff({ diff }: { diff: string }) {
  const lines = diff.split("\n").filter((l) => !l.startsWith("Index:") && !l.startsWith("====="))
  return (
    <pre class="diff">
      {lines.map((l, i) => (
        <div key={i} class={l.startsWith("+") && !l.startsWith("+++") ? "add" : l.startsWith("-") && !l.startsWith("---") ? "del" : l.startsWith("@@") ? "hunk" : ""}>
          {l || " "}
        </div>
      ))}
    </pre>
  )
}

export function ToolLine({ part }: { part: ToolPart }) {
  const s = part.state
  const meta = (("metadata" in s ? s.metadata : undefined) ?? {}) as Record<string, unknown>
  const summary = meta.summary as { title?: unknown; failed?: unknown } | undefined
  const own = "title" in s ? s.title : undefined
  const title = str(summary?.title) ?? `${part.tool}${own ? ` ${own.split("\n")[0]}` : ""}`
  const failed = s.status === "error" ? s.error.split("\n")[0] : s.status === "completed" ? str(summary?.failed) : undefined
  const icon = failed ? "✗" : s.status === "completed" ? "✓" : s.status === "running" ? "◐" : "○"
  const diff = str(meta.diff)
  const output = s.status === "completed" ? s.output : undefined
  return (
    <div class={`tool ${failed ? "failed" : s.status}`}>
      <div class="tool-title">
        <span class="icon" aria-hidden="true">
          {icon}
        </span>{" "}
        {title}
        {failed ? <span class="why"> — {failed}</span> : null}
      </div>
      {diff ? <Diff diff={diff} /> : null}
      {!diff && output && part.tool === "bash" ? (
        <details>
          <summary>output</summary>
          <pre class="output">{output.length > 4000 ? `${output.slice(0, 4000)}…` : output}</pre>
        </details>
      ) : null}
    </div>
  )
}

function PartView({ part }: { part: Part }) {
  switch (part.type) {
    case "text":
      return part.synthetic || !part.text ? null : <div class="text">{part.text}</div>
    case "reasoning":
      return part.text ? (
        <details class="reasoning">
          <summary>Thinking</summary>
          <div class="text">{part.text}</div>
        </details>
      ) : null
    case "tool":
      return <ToolLine part={part} />
    case "file":
      return <div class="file">📎 {part.filename ?? part.url}</div>
    default:
      return null
  }
}

export function MessageView({ message, reverted }: { message: MessageWithParts; reverted: boolean }) {
  const info = message.info
  const error = info.role === "assistant" ? info.error : undefined
  return (
    <article class={`message ${info.role}${reverted ? " reverted" : ""}`} aria-label={info.role === "user" ? "You" : "Assistant"}>
      {message.parts.map((p) => (
        <PartView key={p.id} part={p} />
      ))}
      {error ? <div class="error">{str((error.data as { message?: unknown })?.message) ?? error.name}</div> : null}
    </article>
  )
}
