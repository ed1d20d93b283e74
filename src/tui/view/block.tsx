// One block of the conversation: the user's prompt, a text or reasoning part, a tool call as a
// compact line with its state, a turn footer, a notice or a session header.
import { useTheme } from "../theme"
import { Box, Text } from "./ink"
import { memo } from "react"
import type { ToolPart } from "../../protocol"
import type { Block } from "../blocks"
import { Diff, Markdown, seconds, spinnerFrame, useNow } from "./text"

export interface BlockOptions {
  /** Live blocks are clipped to this many rows; printed ones are not. */
  maxRows?: number
  columns: number
  showThinking: boolean
  showDetails: boolean
}

export const BlockView = memo(function BlockView({ block, opts }: { block: Block; opts: BlockOptions }) {
  const th = useTheme()
  switch (block.kind) {
    case "header":
      return (
        <Box marginTop={1} marginBottom={1}>
          <Text bold color={th.primary}>{`── ${block.title} `}</Text>
          {block.detail ? <Text dimColor>{`(${block.detail})`}</Text> : null}
        </Box>
      )
    case "notice":
      if (block.tone === "markdown") return <Markdown text={block.text} columns={opts.columns} />
      return (
        <Text color={block.tone === "error" ? th.error : undefined} dimColor={block.tone === "dim"}>
          {block.text}
        </Text>
      )
    case "user": {
      const text = block.parts
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => (p as { text: string }).text)
        .join("\n")
      const files = block.parts.filter((p) => p.type === "file").map((p) => (p as { filename?: string; url: string }).filename ?? (p as { url: string }).url)
      const agents = block.parts.filter((p) => p.type === "agent").map((p) => (p as { name: string }).name)
      return (
        <Box flexDirection="column" marginTop={1}>
          <Box>
            <Text color={th.info} bold>
              {"❯ "}
            </Text>
            <Box flexDirection="column" flexShrink={1}>
              <Text>{clip(text, opts.maxRows)}</Text>
            </Box>
          </Box>
          {files.length || agents.length ? <Text dimColor>{`  ${[...files.map((f) => `@${f}`), ...agents.map((a) => `@${a}`)].join(" ")}`}</Text> : null}
        </Box>
      )
    }
    case "text":
      return (
        <Box marginTop={1} flexDirection="column">
          <Markdown text={block.part.text} maxRows={opts.maxRows} columns={opts.columns} />
        </Box>
      )
    case "reasoning":
      return <Reasoning text={block.part.text} start={block.part.time.start} end={block.part.time.end} opts={opts} />
    case "tool":
      return <ToolView part={block.part} opts={block.expanded ? { ...opts, showDetails: true } : opts} />
    case "footer": {
      const m = block.message
      const took = m.time.completed && block.started ? ` · ${seconds(m.time.completed - block.started)}` : ""
      if (m.error && m.error.name === "MessageAbortedError") {
        // A session that crashed too often in a row says so on the step the last crash cut off (session/resume.ts).
        const why = typeof m.error.data?.message === "string" && m.error.data.message.startsWith("Not resumed:") ? m.error.data.message : undefined
        return why ? <Text color={th.warning}>{`  ▣ interrupted. ${why}`}</Text> : <Text dimColor>{"  ▣ interrupted"}</Text>
      }
      if (m.error) {
        const msg = typeof m.error.data?.message === "string" ? m.error.data.message : m.error.name
        return <Text color={th.error}>{`  ✗ ${m.error.name}: ${msg}`}</Text>
      }
      return <Text dimColor>{`  ▣ ${m.agent} · ${m.modelID}${took}`}</Text>
    }
  }
})

function clip(text: string, maxRows?: number) {
  if (maxRows === undefined) return text
  const lines = text.split("\n")
  return lines.length > maxRows ? `… ${lines.length - maxRows} lines above\n${lines.slice(-maxRows).join("\n")}` : text
}

function Reasoning({ text, start, end, opts }: { text: string; start: number; end?: number; opts: BlockOptions }) {
  const live = end === undefined
  const now = useNow(live, 500)
  const took = seconds((end ?? now) - start)
  if (!opts.showThinking && !live) return <Text dimColor italic>{`∴ Thought for ${took}`}</Text>
  const lines = text.trim().split("\n")
  const shown = opts.showThinking ? lines : lines.slice(-3)
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text dimColor italic>{live ? `∴ Thinking… ${took}` : `∴ Thought for ${took}`}</Text>
      <Text dimColor italic>
        {clip(shown.join("\n"), opts.maxRows)}
      </Text>
    </Box>
  )
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined)

/**
 * The call as its tool summarised it (`state.metadata.summary`, written by the server); without
 * a summary (an old server) the tool's name and the title it reported.
 */
export function ToolTitle({ part }: { part: ToolPart }) {
  // Only the title is drawn, so only the title is checked: the schema (`ToolSummary`) would
  // bring zod and every protocol schema into the UI's thread (~0.4 MB to compile at start).
  const summary = "metadata" in part.state ? (part.state.metadata?.summary as { title?: unknown } | undefined) : undefined
  if (typeof summary?.title === "string") return <Text>{summary.title}</Text>
  const own = "title" in part.state ? part.state.title : undefined
  return (
    <Text>
      <Text bold>{part.tool}</Text>
      {own ? ` ${own.split("\n")[0]!.slice(0, 200)}` : ""}
    </Text>
  )
}

export function ToolView({ part, opts }: { part: ToolPart; opts: BlockOptions }) {
  const th = useTheme()
  const s = part.state
  const running = s.status === "running" || s.status === "pending"
  const now = useNow(running)
  const start = "time" in s ? s.time.start : undefined
  const elapsed = start ? (s.status === "completed" || s.status === "error" ? s.time.end - start : now - start) : 0
  const meta = (("metadata" in s ? s.metadata : undefined) ?? {}) as Record<string, unknown>
  // A call that completed without succeeding (a command's non-zero exit), as its tool says.
  const failed = s.status === "completed" ? str((meta.summary as { failed?: unknown } | undefined)?.failed) : undefined
  const icon = failed || s.status === "error" ? "✗" : s.status === "completed" ? "✓" : s.status === "running" ? spinnerFrame(now) : "○"
  const color = failed || s.status === "error" ? th.error : s.status === "completed" ? th.success : th.warning
  const diff = str(meta.diff)
  const output = s.status === "completed" ? s.output : s.status === "running" ? str(meta.output) : undefined
  const detailLines = opts.showDetails ? 200 : 6
  const todos = Array.isArray(meta.todos) ? (meta.todos as { content: string; status: string }[]) : undefined
  return (
    <Box flexDirection="column" marginTop={0}>
      <Text>
        <Text color={color}>{`${icon} `}</Text>
        <ToolTitle part={part} />
        {s.status === "pending" ? <Text dimColor>{" pending"}</Text> : null}
        {failed ? <Text color={th.error}>{` ${failed.split("\n")[0]!.slice(0, 80)}`}</Text> : null}
        {start && elapsed >= 500 ? <Text dimColor>{` ${seconds(elapsed)}`}</Text> : null}
      </Text>
      {s.status === "error" ? <Text color={th.error}>{`  ${s.error.split("\n").slice(0, opts.showDetails ? 50 : 3).join("\n  ")}`}</Text> : null}
 {todos ? (
        <Box paddingLeft={2} flexDirection="column">
          {todos.slice(0, opts.maxRows ?? todos.length).map((t, i) => (
            <Text key={i} dimColor={t.status === "completed" || t.status === "cancelled"} strikethrough={t.status === "cancelled"}>
              {`${t.status === "completed" ? "☑" : t.status === "in_progress" ? "▶" : "☐"} ${t.content}`}
            </Text>
          ))}
        </Box>
      ) : null}
      {diff && (part.tool === "edit" || part.tool === "write" || part.tool === "apply_patch") ? (
        <Box paddingLeft={2}>
          <Diff diff={diff} maxLines={opts.showDetails ? 400 : Math.min(12, opts.maxRows ?? 12)} />
        </Box>
      ) : output && (part.tool === "bash" || opts.showDetails) ? (
        <Box paddingLeft={2}>
          <Text dimColor>{preview(output, Math.min(detailLines, opts.maxRows ?? detailLines))}</Text>
        </Box>
      ) : null}
    </Box>
  )
}

function preview(output: string, lines: number) {
  const all = output.replace(/\n+$/, "").split("\n")
  if (all.length <= lines) return all.join("\n")
  return `${all.slice(0, lines).join("\n")}\n… ${all.length - lines} more lines (ctrl+o shows all)`
}
