// Runs one `` !`cmd` `` snippet of a command template. The snippet's output (stdout and stderr
// in arrival order) replaces it in the prompt, so a failure is text for the model to read,
// never an exception: a missing shell, a non-zero exit or a timeout all come back as words.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"

export const SNIPPET_TIMEOUT_MS = 30_000
/** A snippet's output past this many bytes is cut: it goes into a prompt, not a log file. */
export const SNIPPET_MAX_BYTES = 50 * 1024
const CLOSE_GRACE_MS = 250

export interface SnippetOptions {
  cwd: string
  /** Defaults to /bin/bash, else sh (as the bash tool does). */
  shell?: string
  timeoutMs?: number
  signal?: AbortSignal
}

export function defaultShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "sh"
}

export function runSnippet(command: string, opts: SnippetOptions): Promise<string> {
  const shell = opts.shell || defaultShell()
  const timeoutMs = opts.timeoutMs ?? SNIPPET_TIMEOUT_MS
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(shell, ["-c", command], {
        cwd: opts.cwd,
        env: { ...process.env, TERM: "dumb", PAGER: "cat", GIT_PAGER: "cat" },
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so a timeout also stops whatever the snippet started.
        detached: true,
      })
    } catch (e) {
      resolve(`Error running \`${command}\`: ${(e as Error).message}`)
      return
    }

    const chunks: Buffer[] = []
    let bytes = 0
    let truncated = false
    let timedOut = false
    let aborted = false
    let exitCode: number | null = null
    let settled = false
    let closeTimer: NodeJS.Timeout | undefined

    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on("data", (b: Buffer) => {
        if (bytes >= SNIPPET_MAX_BYTES) return void (truncated = true)
        const room = SNIPPET_MAX_BYTES - bytes
        if (b.length > room) truncated = true
        const kept = b.length > room ? b.subarray(0, room) : b
        chunks.push(kept)
        bytes += kept.length
      })
    }

    const killGroup = () => {
      if (!child.pid) return
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, timeoutMs)
    const onAbort = () => {
      aborted = true
      killGroup()
    }
    if (opts.signal?.aborted) onAbort()
    else opts.signal?.addEventListener("abort", onAbort, { once: true })

    const finish = (error?: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(closeTimer)
      opts.signal?.removeEventListener("abort", onAbort)
      if (error) return resolve(`Error running \`${command}\`: ${error.message}`)
      let text = Buffer.concat(chunks).toString("utf8").trimEnd()
      if (truncated) text += `\n… (output cut at ${SNIPPET_MAX_BYTES} bytes)`
      if (timedOut) text += `${text ? "\n" : ""}(\`${command}\` timed out after ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`})`
      else if (aborted) text += `${text ? "\n" : ""}(\`${command}\` was aborted)`
      else if (exitCode !== 0 && !text) text = `(\`${command}\` failed with exit code ${exitCode})`
      resolve(text)
    }

    child.once("error", (e) => finish(e))
    child.once("exit", (code) => {
      exitCode = code
      // A background job may hold the pipes open; do not wait for it.
      closeTimer = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish()
      }, CLOSE_GRACE_MS)
    })
    child.once("close", () => finish())
  })
}
