// Where the server's password comes from, for both ends: a listener (`serve`, the TUI's
// --port) and a client (`run --attach`, `attach`). The environment, a file or a prompt keep
// it out of `ps`; a password on the command line still works, with a warning.
import { readFileSync, statSync } from "node:fs"
import path from "node:path"
import { readLine } from "./line-input"
import { UserError, yellow } from "./ui"

export interface PasswordFlags {
  password?: string
  passwordFile?: string
  passwordPrompt?: boolean
}

type Warn = (line: string) => void
const stderrWarn: Warn = (line) => void process.stderr.write(`${yellow("Warning:")} ${line}\n`)

export const VISIBLE_WARNING = "a password given with --password/-p is visible to other users of this machine (ps); use WRIGHT_SERVER_PASSWORD, --password-file or WRIGHT_SERVER_PASSWORD_FILE instead"

/** The first line of a password file; refuses a missing or empty one, warns when others can read it. */
export function readPasswordFile(file: string, source: string, warn: Warn = stderrWarn): string {
  const abs = path.resolve(file)
  let text: string
  try {
    text = readFileSync(abs, "utf8")
  } catch (e) {
    throw new UserError(`${source}: cannot read ${abs} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
  const password = text.split(/\r?\n/)[0]!
  if (!password) throw new UserError(`${source}: ${abs} is empty`)
  if ((statSync(abs).mode & 0o077) !== 0) warn(`${abs} is readable by other users (chmod 600 ${abs})`)
  return password
}

/**
 * A listener's password: --password, --password-file or --password-prompt (one of them), else
 * WRIGHT_SERVER_PASSWORD_FILE, else WRIGHT_SERVER_PASSWORD / OPENCODE_SERVER_PASSWORD.
 * The username is WRIGHT_SERVER_USERNAME / OPENCODE_SERVER_USERNAME.
 */
export async function listenerAuth(flags: PasswordFlags, env: NodeJS.ProcessEnv, warn: Warn = stderrWarn): Promise<{ password?: string; username?: string }> {
  const given = [flags.password !== undefined && "--password", flags.passwordFile !== undefined && "--password-file", flags.passwordPrompt && "--password-prompt"].filter(Boolean)
  if (given.length > 1) throw new UserError(`${given.join(" and ")}: give only one way to set the password`)
  const username = env.WRIGHT_SERVER_USERNAME || env.OPENCODE_SERVER_USERNAME || undefined
  if (flags.password !== undefined) {
    if (!flags.password) throw new UserError("--password: empty")
    warn(VISIBLE_WARNING)
    return { password: flags.password, username }
  }
  if (flags.passwordFile !== undefined) return { password: readPasswordFile(flags.passwordFile, "--password-file", warn), username }
  if (flags.passwordPrompt) return { password: await promptPassword(), username }
  if (env.WRIGHT_SERVER_PASSWORD_FILE) return { password: readPasswordFile(env.WRIGHT_SERVER_PASSWORD_FILE, "WRIGHT_SERVER_PASSWORD_FILE", warn), username }
  return { password: env.WRIGHT_SERVER_PASSWORD || env.OPENCODE_SERVER_PASSWORD || undefined, username }
}

/** A client's basic auth, for the sdk's `auth` option: -p (warned), else WRIGHT_SERVER_PASSWORD_FILE, else the password variables. */
export function clientAuth(flags: { password?: string; username?: string }, env: NodeJS.ProcessEnv, warn: Warn = stderrWarn): { username: string; password: string } | undefined {
  if (flags.password !== undefined) warn(VISIBLE_WARNING)
  const password =
    flags.password ??
    (env.WRIGHT_SERVER_PASSWORD_FILE ? readPasswordFile(env.WRIGHT_SERVER_PASSWORD_FILE, "WRIGHT_SERVER_PASSWORD_FILE", warn) : undefined) ??
    env.WRIGHT_SERVER_PASSWORD ??
    env.OPENCODE_SERVER_PASSWORD
  const username = flags.username ?? env.WRIGHT_SERVER_USERNAME ?? env.OPENCODE_SERVER_USERNAME ?? "wright"
  return password ? { username, password } : undefined
}

/** Reads one line from stdin: hidden (no echo) on a terminal, as is when piped. */
export function promptPassword(): Promise<string> {
  const stdin = process.stdin
  if (!stdin.isTTY) {
    return new Promise((resolve, reject) => {
      let text = ""
      const done = () => {
        stdin.off("data", onData)
        stdin.off("end", done)
        stdin.pause()
        const line = text.split(/\r?\n/)[0]!
        line ? resolve(line) : reject(new UserError("--password-prompt: no password on stdin"))
      }
      const onData = (d: Buffer) => {
        text += d.toString("utf8")
        if (text.includes("\n")) done()
      }
      stdin.on("data", onData)
      stdin.once("end", done)
    })
  }
  return readLine("Server password: ", { hidden: true, trim: false }).then(
    (line) => (line ? line : Promise.reject(new UserError("--password-prompt: no password typed"))),
    (e: unknown) => Promise.reject(e instanceof UserError && e.exitCode === 130 ? new UserError("--password-prompt: cancelled", 130) : e),
  )
}
