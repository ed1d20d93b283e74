// The pager's view: a title row, a screenful of lines (diff lines coloured, the search's
// matches shown inverse), and a footer with where it is and its keys, or the `/` search being
// typed. Exactly `rows - 1` rows tall, so Ink never clears the screen.
import { Box, Text } from "./ink"
import { bodyRows, type PagerUi } from "../pager"

const diffColor = (line: string) => (line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : line.startsWith("@@") ? "cyan" : undefined)

function Line({ line, query, diff }: { line: string; query?: string; diff: boolean }) {
  const color = diff ? diffColor(line) : undefined
  const at = query ? line.toLowerCase().indexOf(query.toLowerCase()) : -1
  if (at < 0 || !query) return <Text color={color} wrap="truncate-end">{line || " "}</Text>
  return (
    <Text color={color} wrap="truncate-end">
      {line.slice(0, at)}
      <Text inverse>{line.slice(at, at + query.length)}</Text>
      {line.slice(at + query.length)}
    </Text>
  )
}

export function Pager({ pager, rows, waiting }: { pager: PagerUi; rows: number; waiting?: string }) {
  const body = bodyRows(rows)
  const shown = pager.lines.slice(pager.top, pager.top + body)
  const diff = pager.title.startsWith("diff")
  const last = Math.min(pager.lines.length, pager.top + body)
  const where = `lines ${pager.lines.length ? pager.top + 1 : 0}-${last} of ${pager.lines.length}${last >= pager.lines.length ? " (end)" : ""}`
  return (
    <Box flexDirection="column" height={rows - 1}>
      <Text inverse bold wrap="truncate-end">{` ${pager.title} `}</Text>
      <Box flexDirection="column" height={body}>
        {shown.map((line, i) => (
          <Line key={pager.top + i} line={line} query={pager.query} diff={diff} />
        ))}
      </Box>
      {pager.typing !== undefined ? (
        <Text>
          {"/"}
          {pager.typing}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Text wrap="truncate-end">
          {pager.message ? <Text color="red">{`${pager.message} · `}</Text> : null}
          {waiting ? <Text color="yellow">{`${waiting} · `}</Text> : null}
          <Text dimColor>{`${where} · ↑↓ pgup/pgdn space b g G · / search, n N · q back`}</Text>
        </Text>
      )}
    </Box>
  )
}
