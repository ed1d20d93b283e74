// The home screen above the prompt: the name, and the recent sessions. With the keys in the
// list (home.ts) it draws the selection, the search, the delete question and the keys.
import { useTheme } from "../theme"
import { Box, Text } from "./ink"
import { homeWindow, type HomeSession, type HomeUi } from "../home"

export const HOME_KEYS = "↑↓ move · enter open · type to search · ctrl+d delete · esc back"

export function Home(props: { sessions: HomeSession[]; ui?: HomeUi; rows: number; searching?: boolean }) {
  const th = useTheme()
  const { sessions, ui } = props
  const selected = ui ? Math.min(ui.selected, Math.max(0, sessions.length - 1)) : -1
  const { start, shown } = homeWindow(sessions, Math.max(0, selected), props.rows)
  const confirming = ui?.confirm ? sessions.find((s) => s.id === ui.confirm) : undefined
  const heading = ui ? "Sessions" : "Recent sessions"
  return (
    <Box flexDirection="column" marginBottom={1}>
      <Text>
        <Text bold color={th.primary}>
          wright
        </Text>
        <Text dimColor>{"  a terminal coding agent"}</Text>
      </Text>
      {sessions.length || ui ? (
        <Text>
          <Text dimColor={!ui} bold={!!ui}>
            {heading}
          </Text>
          {ui ? <Text dimColor>{ui.filter ? `  search: ${ui.filter}${props.searching ? " …" : ""}` : "  type to search"}</Text> : <Text dimColor>{"  (↑ to choose one, /sessions for all)"}</Text>}
        </Text>
      ) : null}
      {ui && sessions.length === 0 ? <Text dimColor>{"  nothing matches"}</Text> : null}
      {shown.map((s, i) => {
        const on = start + i === selected
        return (
          <Text key={s.id} wrap="truncate-end" inverse={on}>
            {`${on ? "›" : " "} ${s.title}`}
            {s.worktree ? <Text color={th.accent}>{`  [${s.worktree.branch}]`}</Text> : null}
            <Text dimColor>{`  ${new Date(s.time.updated).toLocaleString()}`}</Text>
          </Text>
        )
      })}
      {confirming ? (
        <Text color={th.error} wrap="truncate-end">{`Delete “${confirming.title}”? ctrl+d or y deletes it, any other key keeps it`}</Text>
      ) : ui ? (
        <Text dimColor>{HOME_KEYS}</Text>
      ) : null}
    </Box>
  )
}
