// Running ripgrep for glob, grep and list (and the server's /find), through the spawner: the
// binary shipped by @vscode/ripgrep, else `rg` on PATH. Output is streamed line by line so a caller can stop early; rg is killed on
// abort or once the caller has enough.
import { existsSync } from "node:fs"
import type { Exec } from "../process"

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
  /** The spawner (a tool's ctx.services.exec). */
  exec: Exec
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
  let child
  try {
    // Outside the sandbox: rg only reads (no --pre: the flags are ours), and wraps nothing of the project's.
    child = await opts.exec([rg, ...opts.args], { cwd: opts.cwd, abort: opts.signal, readsOnly: true })
  } catch (e) {
    throw new Error(`Could not run ripgrep (${rg}): ${(e as Error).message}`)
  }
  let stopped = false
  let lines = 0
  let rest = ""
  let stderr = ""
  const stdout = child.stdout
  stdout.setEncoding("utf8")
  stdout.on("data", (chunk: string) => {
    const parts = (rest + chunk).split("\n")
    rest = parts.pop()!
    for (const line of parts) {
      lines++
      if (opts.onLine(line) === false) {
        stopped = true
        stdout.removeAllListeners("data")
        stdout.resume()
        child.kill()
        return
      }
    }
  })
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk
  })
  const exit = await child.done
  if (opts.signal.aborted) throw opts.signal.reason ?? new Error("Aborted")
  if (stopped) return { stopped: true }
  if (rest) {
    lines++
    if (opts.onLine(rest) === false) return { stopped: true }
  }
  // 1 = nothing matched; 2 = some error (unreadable files are silenced by --no-messages),
  // fatal only when rg said why and produced nothing: a bad regex or glob.
  const code = exit.code
  if (code === 0 || code === 1 || (code === 2 && (lines > 0 || !stderr.trim()))) return { stopped: false }
  throw new Error(`ripgrep failed: ${stderr.trim() || `exit code ${code}`}`)
}
