// What keeps `wright run` from hanging where nobody watches it (CI runners, benchmark
// harnesses, a subprocess with a pipe): stdin that is read only when it arrives, asks that
// name the rule that would have allowed them, and a wall-clock budget.
import type { PermissionRequest } from "../../protocol"

/** How long `run "msg"` waits for piped input to begin before it goes on without it. */
export const STDIN_GRACE_MS = 200

/** Exit code of a run stopped by --timeout (as GNU timeout's). */
export const TIMEOUT_EXIT = 124

/**
 * Reads stdin to its end. With `graceMs`, input that has not begun by then is not waited for:
 * resolves undefined and stops reading (a pipe nobody writes to or closes would block forever).
 * Contract: never rejects; a read error counts as no input.
 */
export function readStdin(graceMs?: number): Promise<string | undefined> {
  const stdin = process.stdin
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let timer: NodeJS.Timeout | undefined
    const done = (value: string | undefined) => {
      clearTimeout(timer)
      stdin.off("data", onData).off("end", onEnd).off("error", onError)
      resolve(value)
    }
    const onData = (c: Buffer) => {
      chunks.push(c)
      // Input began: it is read to its end, as a pipe from `cat`, `git diff` or `echo` is.
      clearTimeout(timer)
    }
    const onEnd = () => done(Buffer.concat(chunks).toString("utf8"))
    const onError = () => done("")
    stdin.on("data", onData).on("end", onEnd).on("error", onError)
    if (graceMs === undefined) return
    timer = setTimeout(() => {
      if (chunks.length) return
      done(undefined)
      // Nothing more is read from it: let go of the pipe.
      stdin.pause()
      stdin.destroy()
    }, graceMs)
  })
}

/**
 * The config rule that would let this ask through, as the user writes it in "permission":
 * `{"bash": {"git push *": "allow"}}`, or `{"webfetch": "allow"}` when the ask has no pattern.
 */
export function allowingRule(ask: Pick<PermissionRequest, "permission" | "patterns" | "always">): string {
  const patterns = (ask.always.length ? ask.always : ask.patterns).filter((p) => p !== "*")
  if (!patterns.length) return `"permission": {${JSON.stringify(ask.permission)}: "allow"}`
  const entries = patterns.map((p) => `${JSON.stringify(p)}: "allow"`).join(", ")
  return `"permission": {${JSON.stringify(ask.permission)}: {${entries}}}`
}

/**
 * Calls `onExpired` once `seconds` have passed since `since` (never, without seconds). The timer
 * never keeps the process alive; `cancel` stops it.
 */
export function budget(seconds: number | undefined, since: number, onExpired: () => void): { cancel(): void } {
  if (seconds === undefined) return { cancel() {} }
  const timer = setTimeout(onExpired, Math.max(0, since + seconds * 1000 - Date.now()))
  timer.unref()
  return { cancel: () => clearTimeout(timer) }
}
