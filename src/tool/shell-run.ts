// Runs one shell command for the bash tool through the spawner (`ToolServices.exec`: its own
// process group, stdin closed, the group killed on timeout or abort), with stdout and stderr
// merged in arrival order. Only the tail of the output stays in memory; once the output
// outgrows that, everything is streamed to a file so the full text survives.
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from "node:fs"
import path from "node:path"
import { StringDecoder } from "node:string_decoder"
import type { Exec, Sandbox } from "../process"

export interface ShellRunOptions {
  exec: Exec
  command: string
  cwd: string
  timeout: number
  signal: AbortSignal
  /** Bytes of output kept in memory; beyond this the output spills to `spillPath()`. */
  keepBytes: number
  spillPath: () => string
  onOutput?: (text: string) => void
  /** Laid over the App's environment. */
  env?: Record<string, string | undefined>
  /** The App's sandbox, or "off" to run outside it (an approved escape). */
  sandbox?: Sandbox | "off"
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

export async function runShell(opts: ShellRunOptions): Promise<ShellRunResult> {
  const child = await opts
    .exec([shell(), "-c", opts.command], { cwd: opts.cwd, env: opts.env, timeout: opts.timeout, abort: opts.signal, sandbox: opts.sandbox })
    .catch((err: Error) => {
      throw new Error(`Could not start ${shell()}: ${err.message}`)
    })

  const chunks: { text: string; bytes: number }[] = []
  let keptBytes = 0
  let totalBytes = 0
  let newlines = 0
  let spill: WriteStream | undefined
  let spilledTo: string | undefined
  let draining = false
  const streams = [child.stdout, child.stderr]

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

  const exit = await child.done
  if (spill) await new Promise<void>((done) => spill!.end(done))
  return {
    text: chunks.map((c) => c.text).join(""),
    spilledTo,
    totalBytes,
    totalLines: newlines + 1,
    exit: exit.code,
    signal: exit.signal,
    timedOut: exit.timedOut,
    aborted: exit.aborted,
  }
}
