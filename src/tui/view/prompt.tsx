// The prompt box (multi-line, with a drawn cursor), the completion list under it, and the
// status line.
import { useTheme, type Theme } from "../theme"
import { Box, Text } from "./ink"
import { memo } from "react"
import type { AssistantMessage, InboxItem } from "../../protocol"
import { cursorPosition, type EditorState } from "../editor"
import { spinnerFrame, useNow } from "./text"

export interface Suggestion {
  label: string
  detail?: string
  /** Text that replaces the word being completed. */
  insert: string
}

export const agentColor = (name: string, th: Theme) => (name === "plan" ? th.accent : name === "build" ? th.info : th.success)

export const PromptView = memo(function PromptView(props: {
  editor: EditorState
  agent: string
  placeholder: string
  maxLines: number
  suggestions: Suggestion[]
  selected: number
  focused: boolean
}) {
  const th = useTheme()
  const { lines, row, col } = cursorPosition(props.editor)
  const empty = props.editor.text === ""
  // Keep the cursor's line in view when the text is taller than the box may be.
  const first = Math.max(0, Math.min(row - props.maxLines + 1, lines.length - props.maxLines))
  const shown = lines.slice(first, first + props.maxLines)
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={agentColor(props.agent, th)} paddingX={1} flexDirection="column">
        {empty ? (
          <Text>
            {props.focused ? <Text inverse>{props.placeholder[0] ?? " "}</Text> : null}
            <Text dimColor>{props.focused ? props.placeholder.slice(1) : props.placeholder}</Text>
          </Text>
        ) : (
          shown.map((line, i) => {
            const r = i + first
            if (r !== row || !props.focused) return <Text key={r}>{line || " "}</Text>
            const at = [...line.slice(col)][0] ?? " "
            return (
              <Text key={r}>
                {line.slice(0, col)}
                <Text inverse>{at}</Text>
                {line.slice(col + at.length)}
              </Text>
            )
          })
        )}
      </Box>
      {props.suggestions.length > 0 ? (
        <Box flexDirection="column" paddingX={2}>
          {props.suggestions.map((s, i) => (
            <Text key={s.label} inverse={i === props.selected}>
              <Text bold>{s.label}</Text>
              {s.detail ? <Text dimColor>{`  ${s.detail}`}</Text> : null}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  )
})

/** Prompts sent while the agent works, in the order they are delivered within their kind (at most 5 shown). */
export const InboxView = memo(function InboxView(props: { items: InboxItem[]; columns: number }) {
  const th = useTheme()
  const shown = props.items.slice(-5)
  return (
    <Box flexDirection="column" paddingX={1}>
      {shown.map((item) => {
        const text = item.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(" ").replace(/\s+/g, " ")
        const label = item.delivery === "steer" ? "steering" : "queued"
        return (
          <Text key={item.id} wrap="truncate-end">
            <Text color={item.delivery === "steer" ? th.primary : th.warning}>{`${label} `}</Text>
            {text.slice(0, Math.max(10, props.columns - 12))}
          </Text>
        )
      })}
      <Text dimColor>{`${props.items.length > shown.length ? `+${props.items.length - shown.length} more · ` : ""}↑ on the empty prompt takes the newest back (edit or drop it)`}</Text>
    </Box>
  )
})

const fmt = (n: number) => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}K` : String(n))

export const StatusLine = memo(function StatusLine(props: {
  agent: string
  model?: string
  last?: AssistantMessage
  cost: number
  /** The variant the next prompt is sent with. */
  variant?: string
  /** The session's prompt-cache tokens, summed over its steps. */
  cache?: { read: number; write: number }
  contextLimit?: number
  /** Errors the language servers reported in the files written so far. */
  lspErrors?: number
  busy: boolean
  busyElsewhere?: { pid: number; hostname: string }
  retry?: { attempt: number; message: string; next: number }
  ready: boolean
  notice?: { text: string; tone: "info" | "error" }
  /** The session's changed files: shown as a count with the lines added and removed. */
  changes?: { file: string; additions: number; deletions: number }[]
  /** Auto-approve is on (/auto): shown in the status line while it lasts. */
  auto?: boolean
}) {
  const th = useTheme()
  const now = useNow(props.busy || !props.ready)
  const t = props.last?.tokens
  const used = t ? t.input + t.output + t.reasoning + t.cache.read + t.cache.write : 0
  const model = props.model ?? (props.last ? `${props.last.providerID}/${props.last.modelID}` : "…")
  return (
    <Box flexDirection="column">
      {props.notice ? <Text color={props.notice.tone === "error" ? th.error : th.warning}>{props.notice.text}</Text> : null}
      <Box justifyContent="space-between">
        <Text>
          <Text color={agentColor(props.agent, th)} bold>
            {props.agent}
          </Text>
          {props.auto ? <Text color="red" bold>{" ⏵⏵ auto-approve"}</Text> : null}
          <Text dimColor>{` · ${model}`}</Text>
          {props.variant ? <Text color={th.accent}>{` ${props.variant}`}</Text> : null}
          {used ? <Text dimColor>{` · ${fmt(used)} tokens`}</Text> : null}
          {used && props.contextLimit ? <Text dimColor>{` · ${Math.round((used / props.contextLimit) * 100)}% context`}</Text> : null}
          {t && (t.cache.read || t.cache.write) ? <Text dimColor>{` · cache ${fmt(t.cache.read)} read ${fmt(t.cache.write)} write`}</Text> : null}
          {props.cache && (props.cache.read || props.cache.write) && (props.cache.read !== t?.cache.read || props.cache.write !== t?.cache.write) ? (
            <Text dimColor>{` (session ${fmt(props.cache.read)} read ${fmt(props.cache.write)} write)`}</Text>
          ) : null}
          {props.cost > 0 ? <Text dimColor>{` · $${props.cost.toFixed(props.cost < 1 ? 4 : 2)}`}</Text> : null}
          {props.lspErrors ? <Text color={th.error}>{` · ${props.lspErrors} LSP error${props.lspErrors === 1 ? "" : "s"}`}</Text> : null}
          {props.changes?.length ? (
            <Text dimColor>
              {` · ${props.changes.length} file${props.changes.length === 1 ? "" : "s"} `}
              <Text color={th.success}>{`+${props.changes.reduce((n, c) => n + c.additions, 0)}`}</Text>
              <Text color={th.error}>{` -${props.changes.reduce((n, c) => n + c.deletions, 0)}`}</Text>
              {" (/diff)"}
            </Text>
          ) : null}
        </Text>
        <Text>
          {!props.ready ? <Text dimColor>{`${spinnerFrame(now)} starting`}</Text> : null}
          {props.retry ? <Text color={th.warning}>{`retry ${props.retry.attempt}: ${props.retry.message.slice(0, 40)} `}</Text> : null}
          {props.busyElsewhere ? (
            <Text color={th.warning}>
              {`${spinnerFrame(now)} read-only `}
              <Text dimColor>{`running in pid ${props.busyElsewhere.pid}`}</Text>
            </Text>
          ) : props.busy ? (
            <Text color={th.warning}>
              {`${spinnerFrame(now)} working `}
              <Text dimColor>esc to interrupt · enter steers · ctrl+q queues</Text>
            </Text>
          ) : props.ready ? (
            <Text dimColor>tab agents · /help</Text>
          ) : null}
        </Text>
      </Box>
    </Box>
  )
})
