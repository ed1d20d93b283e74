// The Ink the views draw with. Text from the core (the model's answer, tool output, titles,
// permission asks, paths) reaches the terminal only through this Text, whose string children
// show their control characters instead of obeying them: Ink keeps OSC sequences (clipboard
// writes, window titles) and SGR codes (concealed text) as they are. Views import Text and Box
// from here, never from "ink" (test/tui/terminal-text.test.tsx checks).
import { Text as InkText, type TextProps } from "ink"
import { Children } from "react"
import { terminalSafe } from "../../util"

export { Box } from "ink"

export function Text({ children, ...props }: TextProps) {
  return <InkText {...props}>{Children.map(children, (c) => (typeof c === "string" ? terminalSafe(c) : c))}</InkText>
}
