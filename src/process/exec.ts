// Starts one child process in its own process group (detached), with the App's environment and
// the caller's additions laid over it. A timeout, an abort or kill() ends the whole group: TERM,
// then KILL after a grace if anything in it is left, so a grandchild (`sleep 100 &`) dies too.
// It never reads process.env: the environment is the one the service was created with.
import { spawn } from "node:child_process"
import path from "node:path"
import { PassThrough, type Readable, type Writable } from "node:stream"
import { bwrapArgs, type Sandbox } from "./sandbox"

export const KILL_GRACE_MS = 3000
/** How long to wait for the pipes to close after the process exited (a background job may hold them). */
const CLOSE_GRACE_MS = 250

export interface ExecOptions {
  cwd: string
  /** Laid over the App's environment; a variable set to undefined is removed. */
  env?: Record<string, string | undefined>
  /** Milliseconds until the group is killed (ExitInfo.timedOut); undefined: no limit. */
  timeout?: number
  /** Aborting kills the group (ExitInfo.aborted); already aborted: killed as soon as it starts. */
  abort?: AbortSignal
  /** "pipe": the child gets a writable stdin (MCP stdio). Default "ignore": stdin is closed. */
  stdin?: "ignore" | "pipe"
  /**
   * The App's sandbox: when `on`, the command runs inside bwrap (TMPDIR set to its private temp
   * dir); `unavailable` and required: rejects without running anything; undefined, "off",
   * `off` or `unavailable` (not required): runs unconfined.
   */
  sandbox?: Sandbox | "off"
  /**
   * true: the App's environment loses its secrets (see scrubEnv) before `env` is laid over it.
   * Implied when the command runs sandboxed; a process started outside for a project says so.
   */
  scrub?: boolean
  /**
   * The command changes no files (ripgrep): whoever watches processes for changes (the App's
   * snapshots) may skip it. The spawner itself ignores it.
   */
  readsOnly?: boolean
  /**
   * The child gets the terminal (stdin, stdout and stderr inherited) and stays in wright's
   * process group, so it is in the terminal's foreground and may read it: the user's $EDITOR.
   * Its stdout and stderr on the Child are then empty, already-ended streams; kill() signals
   * the process alone. Never with a sandbox.
   */
  tty?: boolean
}

export interface ExitInfo {
  code: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
}

/** A started process. Read (or destroy) both stdout and stderr: a full pipe stalls the child. */
export interface Child {
  pid: number
  /** Set when `stdin: "pipe"` was asked for. */
  stdin: Writable | null
  stdout: Readable
  stderr: Readable
  /**
   * Resolves once the process exited and its pipes closed, or CLOSE_GRACE_MS after the exit
   * (the pipes are then destroyed, so a background job holding them cannot stall the caller).
   * Never rejects.
   */
  done: Promise<ExitInfo>
  /**
   * Ends the whole group: TERM now, KILL after the grace if any member is left. After the
   * exit it still reaches what is left of the group (a background job, a server's helpers).
   * Only the first call signals.
   */
  kill(): void
}

/**
 * Starts `argv[0]` with `argv.slice(1)` (no shell). Resolves once the process runs; rejects
 * with Node's spawn error (its `code` kept: ENOENT, EACCES) when it cannot start, or when the
 * sandbox is required and unavailable. Inside the sandbox a missing command is bwrap's exit 1.
 */
export type Exec = (argv: string[], opts: ExecOptions) => Promise<Child>

export interface ExecDeps {
  /** The App's environment: every child starts from it. */
  env: NodeJS.ProcessEnv
  /** TERM → KILL grace (tests shorten it). */
  killGrace?: number
  /**
   * Variables a scrubbed environment keeps anyway: the user's global `sandbox.env`. Read at
   * each scrubbed start. Undefined: none.
   */
  passEnv?: () => readonly string[]
  /**
   * Further names of secrets: the variables the model catalogue names for providers' keys.
   * Called at the first scrubbed start only (the catalogue is not read for a run that starts none).
   */
  secretNames?: () => Iterable<string>
}

export function createExec(deps: ExecDeps): Exec {
  const grace = deps.killGrace ?? KILL_GRACE_MS
  let named: Set<string> | undefined
  const scrubbed = () => scrubEnv(deps.env, (named ??= new Set(deps.secretNames?.() ?? [])), deps.passEnv?.() ?? [])
  return async (argv, opts) => {
    if (argv.length === 0 || !argv[0]) throw new Error("exec needs a command: argv was empty")
    const box = opts.sandbox
    let extra = opts.env
    let scrub = opts.scrub === true
    if (opts.tty && box && box !== "off") throw new Error("exec: a tty child (the user's editor) never runs in the sandbox")
    if (box && box !== "off" && box.state === "unavailable" && box.required) throw new Error(`Nothing was run. ${box.notice}`)
    if (box && box !== "off" && box.state === "on") {
      scrub = true
      argv = [box.bwrap, ...bwrapArgs(box.policy, path.resolve(opts.cwd)), "--", ...argv]
      extra = { ...opts.env, TMPDIR: box.policy.tmpdir }
    }
    const [command, ...args] = argv as [string, ...string[]]
    const proc = spawn(command, args, {
      cwd: opts.cwd,
      env: environment(scrub ? scrubbed() : deps.env, extra),
      stdio: opts.tty ? "inherit" : [opts.stdin ?? "ignore", "pipe", "pipe"],
      detached: !opts.tty,
    })
    await new Promise<void>((resolve, reject) => {
      proc.once("spawn", resolve)
      proc.once("error", reject)
    })
    // Errors after the start (a failed kill, EPIPE on stdin) are not the caller's to catch here.
    proc.on("error", () => {})
    proc.stdin?.on("error", () => {})
    const pid = proc.pid!
    const ended = () => new PassThrough().end()
    const stdout = proc.stdout ?? ended()
    const stderr = proc.stderr ?? ended()

    let timedOut = false
    let aborted = false
    let settled = false
    let killTimer: NodeJS.Timeout | undefined

    function kill() {
      if (killTimer) return
      // A tty child shares wright's group: signalling the group would end wright too.
      if (opts.tty) return void proc.kill("SIGTERM")
      signalGroup(pid, "SIGTERM")
      killTimer = setTimeout(() => {
        if (signalGroup(pid, 0)) signalGroup(pid, "SIGKILL")
      }, grace)
    }
    const timer = opts.timeout === undefined ? undefined : setTimeout(() => ((timedOut = true), kill()), opts.timeout)
    const onAbort = () => {
      aborted = true
      kill()
    }
    if (opts.abort?.aborted) onAbort()
    else opts.abort?.addEventListener("abort", onAbort, { once: true })

    const done = new Promise<ExitInfo>((resolve) => {
      let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null }
      let closeTimer: NodeJS.Timeout | undefined
      const finish = () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        clearTimeout(closeTimer)
        opts.abort?.removeEventListener("abort", onAbort)
        resolve({ ...exit, timedOut, aborted })
      }
      proc.once("exit", (code, signal) => {
        exit = { code, signal }
        closeTimer = setTimeout(() => {
          stdout.destroy()
          stderr.destroy()
          finish()
        }, CLOSE_GRACE_MS)
      })
      proc.once("close", finish)
    })
    return { pid, stdin: proc.stdin, stdout, stderr, done, kill }
  }
}

function environment(base: NodeJS.ProcessEnv, extra: ExecOptions["env"]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...base, ...extra })) if (v !== undefined) out[k] = v
  return out
}

/** Names that hold keys, passwords and tokens (upper-cased before the test). */
const SECRET = [
  /API_?KEY/,
  /SECRET|PASSWORD|PASSWD|CREDENTIAL/,
  /(^|_)TOKENS?(_|$)/,
  /(^|_)(ACCESS|PRIVATE|SESSION)_?KEY/,
  // Cloud credentials come in many names (AWS_BEARER_TOKEN_BEDROCK, AZURE_CLIENT_ID, …).
  /^(AWS|AZURE)_/,
]

/**
 * The environment a sandboxed command (or a process started outside for a project) gets: the
 * App's, without provider keys, the server password, tokens and cloud credentials (`names` adds
 * the catalogue's provider variables), except the variables the user passes in by name.
 * PATH, HOME, LANG, TERM and the like stay.
 */
export function scrubEnv(env: NodeJS.ProcessEnv, names: ReadonlySet<string>, pass: readonly string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(env)) {
    const upper = k.toUpperCase()
    if (pass.includes(k) || !(names.has(k) || SECRET.some((re) => re.test(upper)))) out[k] = v
  }
  return out
}

/** Sends `sig` to the group led by `pid`; false when the group no longer exists. */
function signalGroup(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, sig)
    return true
  } catch {
    return false
  }
}
