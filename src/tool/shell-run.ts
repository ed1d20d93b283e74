// Runs one shell command for the bash tool: its own process group, stdin closed, stdout and
// stderr merged in arrival order. Only the tail of the output stays in memory; once the output
// outgrows that, everything is streamed to a file so the full text survives. A timeout or an
// abort kills the whole group (TERM, then KILL after a grace).
import { spawn } from "node:child_process"
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from "node:fs"
import path from "node:path"
import { StringDecoder } from "node:string_decoder"
import type { Readable } from "node:stream"

export const KILL_GRACE_MS = 3000
/** How long to wait for the pipes to close after the shell exited (a background job may hold them). */
const CLOSE_GRACE_MS = 250

export interface ShellRunOptions {
  command: string
  cwd: string
  timeout: number
  signal: AbortSignal
  /** Bytes of output kept in memory; beyond this the output spills to `spillPath()`. */
  keepBytes: number
  spillPath: () => string
  onOutput?: (text: string) => void
  env?: NodeJS.ProcessEnv
}

export interface ShellRunResult {
  /** The whole output, or only its tail (at least `keepBytes`) when it spilled to a file. */
  text: string
  /** Set when the output outgrew memory: the file holding all of it. */
  spilledTo?: string
  totalBytes: number
  /** Newline count + 1, as `text.split("\n").length` would give for the whole output. */
  totalLines: number
  exit: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
}

let shellPath: string | undefined
/** `/bin/bash` when present, else `sh`: the same shell whatever `$SHELL` says. */
export function shell(): string {
  shellPath ??= existsSync("/bin/bash") ? "/bin/bash" : "sh"
  return shellPath
}

function signalGroup(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, sig)
    return true
  } catch {
    return false
  }
}

export function runShell(opts: ShellRunOptions): Promise<ShellRunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell(), ["-c", opts.command], {
      cwd: opts.cwd,
      env: opts.env ?? { ...process.env, TERM: "dumb", PAGER: "cat", GIT_PAGER: "cat" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    })

    const chunks: { text: string; bytes: number }[] = []
    let keptBytes = 0
    let totalBytes = 0
    let newlines = 0
    let spill: WriteStream | undefined
    let spilledTo: string | undefined
    let draining = false
    let timedOut = false
    let aborted = false
    let exited = false
    let settled = false
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null }
    let killTimer: NodeJS.Timeout | undefined
    let closeTimer: NodeJS.Timeout | undefined

    const streams = [child.stdout, child.stderr] as Readable[]

    function take(text: string) {
      if (!text) return
      const bytes = Buffer.byteLength(text)
      if (!spill && keptBytes + bytes > opts.keepBytes) startSpill()
      if (spill && !spill.write(text) && !draining) {
        // Let the disk keep up instead of queueing a fast command's output in memory.
        draining = true
        for (const s of streams) s.pause()
        spill.once("drain", () => {
          draining = false
          for (const s of streams) s.resume()
        })
      }
      chunks.push({ text, bytes })
      keptBytes += bytes
      while (chunks.length > 1 && keptBytes - chunks[0]!.bytes >= opts.keepBytes) keptBytes -= chunks.shift()!.bytes
      opts.onOutput?.(text)
    }

    function startSpill() {
      spilledTo = opts.spillPath()
      mkdirSync(path.dirname(spilledTo), { recursive: true })
      spill = createWriteStream(spilledTo)
      for (const c of chunks) spill.write(c.text)
    }

    for (const s of streams) {
      const decoder = new StringDecoder("utf8")
      s.on("data", (b: Buffer) => {
        totalBytes += b.length
        for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) newlines++
        take(decoder.write(b))
      })
      s.on("end", () => take(decoder.end()))
    }

    function terminate() {
      if (exited || !child.pid) return
      signalGroup(child.pid, "SIGTERM")
      killTimer ??= setTimeout(() => {
        if (child.pid && signalGroup(child.pid, 0)) signalGroup(child.pid, "SIGKILL")
      }, KILL_GRACE_MS)
    }

    const timer = setTimeout(() => {
      timedOut = true
      terminate()
    }, opts.timeout)
    const onAbort = () => {
      aborted = true
      terminate()
    }
    if (opts.signal.aborted) onAbort()
    else opts.signal.addEventListener("abort", onAbort, { once: true })

    function cleanup() {
      clearTimeout(timer)
      clearTimeout(closeTimer)
      opts.signal.removeEventListener("abort", onAbort)
    }

    child.once("error", (err) => {
      if (settled) return
      settled = true
      cleanup()
      clearTimeout(killTimer)
      reject(new Error(`Could not start ${shell()}: ${err.message}`))
    })

    child.once("exit", (code, signal) => {
      exited = true
      exitInfo = { code, signal }
      // A background job may keep the pipes open; stop waiting for it after a short grace.
      closeTimer = setTimeout(() => {
        for (const s of streams) s.destroy()
        void finish()
      }, CLOSE_GRACE_MS)
    })
    child.once("close", () => void finish())

    async function finish() {
      if (settled) return
      settled = true
      cleanup()
      if (spill) await new Promise<void>((done) => spill!.end(done))
      resolve({
        text: chunks.map((c) => c.text).join(""),
        spilledTo,
        totalBytes,
        totalLines: newlines + 1,
        exit: exitInfo.code,
        signal: exitInfo.signal,
        timedOut,
        aborted,
      })
    }
  })
}
