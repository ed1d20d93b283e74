// Runs one `` !`cmd` `` snippet of a command template. The snippet's output (stdout and stderr
// in arrival order) replaces it in the prompt, so a failure is text for the model to read,
// never an exception: a missing shell, a non-zero exit or a timeout all come back as words.
// It runs through the App's spawner (its own process group, killed on timeout or abort).
import { existsSync } from "node:fs"
import type { Exec, Sandbox } from "../process"

export const SNIPPET_TIMEOUT_MS = 30_000
/** A snippet's output past this many bytes is cut: it goes into a prompt, not a log file. */
export const SNIPPET_MAX_BYTES = 50 * 1024

export interface SnippetOptions {
  /** The App's spawner. */
  exec: Exec
  /** The App's sandbox; a failure it caused gets a note after the output. */
  sandbox?: Sandbox
  cwd: string
  /** Defaults to /bin/bash, else sh (as the bash tool does). */
  shell?: string
  timeoutMs?: number
  signal?: AbortSignal
}

export function defaultShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "sh"
}

export async function runSnippet(command: string, opts: SnippetOptions): Promise<string> {
  const shell = opts.shell || defaultShell()
  const timeoutMs = opts.timeoutMs ?? SNIPPET_TIMEOUT_MS
  let child
  try {
    child = await opts.exec([shell, "-c", command], {
      cwd: opts.cwd,
      env: { TERM: "dumb", PAGER: "cat", GIT_PAGER: "cat" },
      timeout: timeoutMs,
      abort: opts.signal,
      sandbox: opts.sandbox,
    })
  } catch (e) {
    return `Error running \`${command}\`: ${(e as Error).message}`
  }

  const chunks: Buffer[] = []
  let bytes = 0
  let truncated = false
  for (const stream of [child.stdout, child.stderr]) {
    stream.on("data", (b: Buffer) => {
      if (bytes >= SNIPPET_MAX_BYTES) return void (truncated = true)
      const room = SNIPPET_MAX_BYTES - bytes
      if (b.length > room) truncated = true
      const kept = b.length > room ? b.subarray(0, room) : b
      chunks.push(kept)
      bytes += kept.length
    })
  }
  const exit = await child.done

  let text = Buffer.concat(chunks).toString("utf8").trimEnd()
  if (truncated) text += `\n… (output cut at ${SNIPPET_MAX_BYTES} bytes)`
  if (exit.timedOut) text += `${text ? "\n" : ""}(\`${command}\` timed out after ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`})`
  else if (exit.aborted) text += `${text ? "\n" : ""}(\`${command}\` was aborted)`
  else if (exit.code !== 0 && !text) text = `(\`${command}\` failed with exit code ${exit.code})`
  const blocked = exit.code !== 0 && opts.sandbox?.state === "on" ? opts.sandbox.explain(text) : undefined
  if (blocked) text += `\n(${blocked.note})`
  return text
}
