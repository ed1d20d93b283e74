// Spawning ripgrep for glob, grep and list: the binary shipped by @vscode/ripgrep, else `rg`
// on PATH. Output is streamed line by line so a caller can stop early; rg is killed on
// abort or once the caller has enough.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"

let binary: Promise<string> | undefined

export function ripgrepBinary(): Promise<string> {
  binary ??= import("@vscode/ripgrep")
    .then((m) => (existsSync(m.rgPath) ? m.rgPath : "rg"))
    .catch(() => "rg")
  return binary
}

/** Flags every search shares: no user config, hidden files in, `.git` out, `.gitignore` honoured even outside a git repo. */
export const BASE_FLAGS = ["--no-config", "--hidden", "--no-require-git", "--no-messages", "--glob=!.git"]

export interface RipgrepOptions {
  cwd: string
  args: string[]
  signal: AbortSignal
  /** Called per output line; return `false` to stop reading (rg is then killed). */
  onLine(line: string): boolean | void
}

export interface RipgrepResult {
  /** The caller stopped early: there was more output. */
  stopped: boolean
}

export async function ripgrep(opts: RipgrepOptions): Promise<RipgrepResult> {
  opts.signal.throwIfAborted()
  const rg = await ripgrepBinary()
  return new Promise<RipgrepResult>((resolve, reject) => {
    const child = spawn(rg, opts.args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] })
    let stopped = false
    let lines = 0
    let rest = ""
    let stderr = ""
    const onAbort = () => child.kill()
    opts.signal.addEventListener("abort", onAbort, { once: true })

    const stop = () => {
      stopped = true
      child.stdout.removeAllListeners("data")
      child.kill()
    }
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\n")
      rest = parts.pop()!
      for (const line of parts) {
        lines++
        if (opts.onLine(line) === false) return stop()
      }
    })
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk
    })
    child.on("error", (err) => {
      opts.signal.removeEventListener("abort", onAbort)
      reject(new Error(`Could not run ripgrep (${rg}): ${err.message}`))
    })
    child.on("close", (code) => {
      opts.signal.removeEventListener("abort", onAbort)
      if (opts.signal.aborted) return reject(opts.signal.reason ?? new Error("Aborted"))
      if (stopped) return resolve({ stopped: true })
      if (rest) {
        lines++
        if (opts.onLine(rest) === false) return resolve({ stopped: true })
      }
      // 1 = nothing matched; 2 = some error (unreadable files are silenced by --no-messages),
      // fatal only when rg said why and produced nothing: a bad regex or glob.
      if (code === 0 || code === 1 || (code === 2 && (lines > 0 || !stderr.trim()))) return resolve({ stopped: false })
      reject(new Error(`ripgrep failed: ${stderr.trim() || `exit code ${code}`}`))
    })
  })
}
