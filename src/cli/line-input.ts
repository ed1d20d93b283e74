// One line typed on the terminal, for the prompts of `wright auth` (provider, key) and the
// listeners' --password-prompt: raw mode, escape sequences skipped, backspace and Ctrl+U
// edit, Ctrl+C (or Ctrl+D on an empty line) cancels with exit 130. Prompts go to stderr so
// stdout stays the command's output.
import { UserError } from "./ui"

/** One line typed on the terminal; hidden: nothing is echoed (not even stars). */
export function readLine(prompt: string, opts: { hidden?: boolean; trim?: boolean } = {}): Promise<string> {
  const stdin = process.stdin
  process.stderr.write(prompt)
  return new Promise((resolve, reject) => {
    let line = ""
    // Inside an escape sequence (an arrow key, a function key): its bytes are not text.
    let escape: "" | "start" | "csi" = ""
    stdin.setRawMode(true)
    stdin.resume()
    const finish = (fn: () => void) => {
      stdin.off("data", onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write("\n")
      fn()
    }
    const onData = (d: Buffer) => {
      for (const ch of d.toString("utf8")) {
        if (escape === "start") {
          escape = ch === "[" || ch === "O" ? "csi" : ""
          continue
        }
        if (escape === "csi") {
          if (ch >= "@" && ch <= "~") escape = ""
          continue
        }
        if (ch === "\x1b") escape = "start"
        else if (ch === "\r" || ch === "\n") return finish(() => resolve(opts.trim === false ? line : line.trim()))
        else if (ch === "\u0003" || (ch === "\u0004" && line === "")) return finish(() => reject(new UserError("cancelled", 130)))
        else if (ch === "\u007f" || ch === "\b") {
          if (line && !opts.hidden) process.stderr.write("\b \b")
          line = [...line].slice(0, -1).join("")
        } else if (ch === "\u0015") {
          if (!opts.hidden) process.stderr.write("\b \b".repeat([...line].length))
          line = ""
        } else if (ch >= " ") {
          line += ch
          if (!opts.hidden) process.stderr.write(ch)
        }
      }
    }
    stdin.on("data", onData)
  })
}
