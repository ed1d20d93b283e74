// Text rendering: Markdown lines, unified diffs, and the small timer hook behind spinners.
import { themed, useTheme } from "../theme"
import { Box, Text } from "./ink"
import { memo, useEffect, useMemo, useState } from "react"
import { markdownLines, tail, type Line } from "../markdown"

export function LineView({ line }: { line: Line }) {
  const th = useTheme()
  if (line.length === 1) {
    const s = line[0]!
    return (
      <Text bold={s.bold} italic={s.italic} strikethrough={s.strike} underline={s.underline} dimColor={s.dim} color={themed(th, s.color)}>
        {s.text || " "}
      </Text>
    )
  }
  return (
    <Text>
      {line.map((s, i) => (
        <Text key={i} bold={s.bold} italic={s.italic} strikethrough={s.strike} underline={s.underline} dimColor={s.dim} color={themed(th, s.color)}>
          {s.text}
        </Text>
      ))}
    </Text>
  )
}

/** Markdown; with `maxRows`, only the last lines that fit (a streaming answer's tail). */
export const Markdown = memo(function Markdown({ text, maxRows, columns }: { text: string; maxRows?: number; columns?: number }) {
  const lines = useMemo(() => markdownLines(text.replace(/\n+$/, "")), [text])
  const shown = maxRows !== undefined ? tail(lines, maxRows, columns ?? 80) : { lines, hidden: 0 }
  return (
    <Box flexDirection="column">
      {shown.hidden > 0 ? <Text dimColor>{`… ${shown.hidden} lines above`}</Text> : null}
      {shown.lines.map((line, i) => (
        <LineView key={i} line={line} />
      ))}
    </Box>
  )
})

/** A unified diff, coloured; file headers dropped; at most `maxLines` lines. */
export const Diff = memo(function Diff({ diff, maxLines }: { diff: string; maxLines?: number }) {
  const th = useTheme()
  const lines = diff.split("\n").filter((l) => !/^(Index: |={5,}|--- |\+\+\+ |diff --git )/.test(l) && l !== "\\ No newline at end of file")
  while (lines.length && lines[lines.length - 1] === "") lines.pop()
  const limit = maxLines ?? lines.length
  const shown = lines.slice(0, limit)
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        <Text key={i} color={l.startsWith("+") ? th.diffAdded : l.startsWith("-") ? th.diffRemoved : l.startsWith("@@") ? th.diffHunk : undefined} dimColor={!/^[-+@]/.test(l)}>
          {l || " "}
        </Text>
      ))}
      {lines.length > limit ? <Text dimColor>{`… ${lines.length - limit} more diff lines (ctrl+o shows all)`}</Text> : null}
    </Box>
  )
})

/** The current time, refreshed every `ms` while `active`. */
export function useNow(active: boolean, ms = 120): number {
  const [t, setT] = useState(Date.now)
  useEffect(() => {
    if (!active) return
    const id = setInterval(() => setT(Date.now()), ms)
    return () => clearInterval(id)
  }, [active, ms])
  return t
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
export const spinnerFrame = (t: number) => FRAMES[Math.floor(t / 100) % FRAMES.length]!

export function seconds(ms: number) {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`
}
