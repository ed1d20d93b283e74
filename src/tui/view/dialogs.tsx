// Dialogs drawn above the prompt: a filterable list (sessions, models, agents, providers), the
// permission ask, the question tool's questions, whether to trust the folder's config, and
// the hidden API key prompt of /connect.
import { useTheme } from "../theme"
import { Box, Text } from "./ink"
import type { PermissionRequest, QuestionRequest, TrustStatus } from "../../protocol"
import { Diff } from "./text"

export interface SelectItem {
  label: string
  detail?: string
  value: string
}

export function SelectDialog(props: { title: string; items: SelectItem[]; selected: number; filter: string; maxRows: number; hint?: string }) {
  const th = useTheme()
  const rows = Math.max(3, props.maxRows)
  const start = Math.max(0, Math.min(props.selected - Math.floor(rows / 2), props.items.length - rows))
  const shown = props.items.slice(start, start + rows)
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={th.primary} paddingX={1}>
      <Text>
        <Text bold>{props.title}</Text>
        <Text dimColor>{props.filter ? `  search: ${props.filter}` : "  type to search"}</Text>
      </Text>
      {shown.length === 0 ? <Text dimColor>nothing matches</Text> : null}
      {shown.map((item, i) => (
        <Text key={item.value} inverse={start + i === props.selected} wrap="truncate-end">
          {item.label}
          {item.detail ? <Text dimColor>{`  ${item.detail}`}</Text> : null}
        </Text>
      ))}
      <Text dimColor>{props.hint ?? "↑↓ choose · enter select · esc close"}</Text>
    </Box>
  )
}

export const PERMISSION_OPTIONS = ["Allow once", "Allow always", "Reject", "Reject with message"] as const

export function PermissionDialog(props: { request: PermissionRequest; selected: number; message?: string; other?: string; maxRows: number }) {
  const th = useTheme()
  const r = props.request
  const meta = r.metadata as Record<string, unknown>
  const diff = typeof meta.diff === "string" ? meta.diff : undefined
  const command = typeof meta.command === "string" ? meta.command : undefined
  if (r.permission === "plan_exit" && typeof meta.plan === "string") return <PlanDialog {...props} plan={meta.plan} />
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={th.warning} paddingX={1}>
      <Text>
        <Text color={th.warning} bold>
          {"Permission required: "}
        </Text>
        <Text bold>{r.permission}</Text>
        {props.other ? <Text dimColor>{`  (session: ${props.other})`}</Text> : null}
      </Text>
      {command ? <Text>{`$ ${command}`}</Text> : null}
      {r.patterns.length ? <Text>{r.patterns.slice(0, 5).join("\n")}</Text> : null}
      {diff ? <Diff diff={diff} maxLines={Math.max(3, props.maxRows - 8)} /> : null}
      {props.message !== undefined ? (
        <Text>
          <Text dimColor>{"Tell the model what to do instead: "}</Text>
          {props.message}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Box gap={2}>
          {PERMISSION_OPTIONS.map((o, i) => (
            <Text key={o} inverse={i === props.selected} color={i >= 2 ? th.error : th.success}>
              {` ${i + 1} ${o} `}
            </Text>
          ))}
        </Box>
      )}
      {r.always.length && props.message === undefined ? <Text dimColor>{`always applies to: ${r.always.join(", ")}`}</Text> : null}
      <Text dimColor>{props.message !== undefined ? "enter send · esc back" : "←→ choose · enter confirm · 1-4 shortcut"}</Text>
    </Box>
  )
}

/** plan_exit: the plan itself, and whether to hand it to build (the same replies as any ask). */
function PlanDialog(props: { request: PermissionRequest; selected: number; message?: string; other?: string; maxRows: number; plan: string }) {
  const th = useTheme()
  const lines = props.plan.trimEnd().split("\n")
  const room = Math.max(3, props.maxRows - 7)
  const shown = lines.length > room ? [...lines.slice(0, room), `… ${lines.length - room} more lines in ${props.request.patterns[0] ?? "the plan file"}`] : lines
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={th.accent} paddingX={1}>
      <Text>
        <Text color={th.accent} bold>
          {"Approve the plan and switch to build? "}
        </Text>
        <Text dimColor>{props.request.patterns[0] ?? ""}</Text>
        {props.other ? <Text dimColor>{`  (session: ${props.other})`}</Text> : null}
      </Text>
      <Text>{shown.join("\n")}</Text>
      {props.message !== undefined ? (
        <Text>
          <Text dimColor>{"Tell the planner what to change: "}</Text>
          {props.message}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Box gap={2}>
          {PLAN_OPTIONS.map((o, i) => (
            <Text key={o} inverse={i === props.selected} color={i >= 2 ? th.error : th.success}>
              {` ${i + 1} ${o} `}
            </Text>
          ))}
        </Box>
      )}
      <Text dimColor>{props.message !== undefined ? "enter send · esc back" : "←→ choose · enter confirm · 1-4 shortcut"}</Text>
    </Box>
  )
}

const PLAN_OPTIONS = ["Approve, build it", "Approve, stop asking", "Keep planning", "Keep planning, with a note"] as const

export interface QuestionUi {
  step: number
  selected: number
  picks: number[]
  custom?: string
  answers: string[][]
}

export function QuestionDialog(props: { request: QuestionRequest; ui: QuestionUi }) {
  const th = useTheme()
  const q = props.request.questions[props.ui.step]
  if (!q) return null
  const allowCustom = q.custom !== false
  const options = [...q.options.map((o) => o.label), ...(allowCustom ? ["Type your own answer"] : [])]
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={th.accent} paddingX={1}>
      <Text>
        <Text color={th.accent} bold>
          {q.header || "Question"}
        </Text>
        {props.request.questions.length > 1 ? <Text dimColor>{`  ${props.ui.step + 1}/${props.request.questions.length}`}</Text> : null}
      </Text>
      <Text>{q.question}</Text>
      {options.map((label, i) => {
        const desc = q.options[i]?.description
        const mark = q.multiple ? (props.ui.picks.includes(i) ? "[x] " : "[ ] ") : ""
        return (
          <Text key={i} inverse={i === props.ui.selected}>
            {`${i + 1}. ${mark}${label}`}
            {desc ? <Text dimColor>{`  ${desc}`}</Text> : null}
          </Text>
        )
      })}
      {props.ui.custom !== undefined ? (
        <Text>
          {"> "}
          {props.ui.custom}
          <Text inverse> </Text>
        </Text>
      ) : null}
      <Text dimColor>{q.multiple ? "↑↓ choose · space toggle · enter confirm · esc dismiss" : "↑↓ choose · enter confirm · esc dismiss"}</Text>
    </Box>
  )
}

export const TRUST_OPTIONS = ["Trust this folder", "Keep it held back"] as const

/** The lines that fit in `rows` (at least one row); when some do not, the last row counts the rest. */
export function fitLines(lines: string[], rows: number): { shown: string[]; more: number } {
  const n = Math.max(1, rows)
  if (lines.length <= n) return { shown: lines, more: 0 }
  const shown = lines.slice(0, n - 1)
  return { shown, more: lines.length - shown.length }
}

export function TrustDialog(props: { status: Pick<TrustStatus, "directory" | "changed" | "ignored">; selected: number; maxRows: number }) {
  const th = useTheme()
  const s = props.status
  // Title, "once trusted" line, options and hint take four rows; each held-back thing gets one.
  const { shown, more } = fitLines(s.ignored, props.maxRows - 4)
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={th.warning} paddingX={1}>
      <Text wrap="truncate-end">
        <Text color={th.warning} bold>
          {s.changed ? "This folder's config changed since you trusted it" : "This folder's config is not trusted"}
        </Text>
        <Text dimColor>{`  ${s.directory}`}</Text>
      </Text>
      <Text>Held back until you trust it; once trusted, it would:</Text>
      {shown.map((line, i) => (
        <Text key={i} wrap="truncate-end">{`  · ${line}`}</Text>
      ))}
      {more ? <Text dimColor>{shown.length ? `  … and ${more} more` : `  ${more} things`}</Text> : null}
      <Box gap={2}>
        {TRUST_OPTIONS.map((o, i) => (
          <Text key={o} inverse={i === props.selected} color={i === 0 ? th.error : th.success}>
            {` ${i + 1} ${o} `}
          </Text>
        ))}
      </Box>
      <Text dimColor>{"←→ choose · enter confirm · esc keep held back"}</Text>
    </Box>
  )
}

/** The key is never drawn: only how many characters were typed, so a paste visibly arrived. */
export function SecretDialog(props: { providerID: string; length: number }) {
  const th = useTheme()
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={th.primary} paddingX={1}>
      <Text>
        <Text bold>{`API key for ${props.providerID}`}</Text>
        <Text dimColor>{"  hidden; stored in your auth.json (mode 0600)"}</Text>
      </Text>
      <Text>{props.length ? `${props.length} characters typed` : "type or paste the key"}</Text>
      <Text dimColor>{"enter store · esc cancel"}</Text>
    </Box>
  )
}
