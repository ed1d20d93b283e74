// Terminal output helpers shared by commands, and the one place that maps fatal errors to
// a message on stderr and an exit code. Loaded by `--help` and `--version`: no schema code
// here (protocol is imported only to report a failure).
import os from "node:os"
import path from "node:path"
import type { ErrorInfo } from "../protocol"

export const VERSION = typeof __WRIGHT_VERSION__ !== "undefined" ? __WRIGHT_VERSION__ : "0.0.0-dev"

// Decided on first use, not at import: in the startup snapshot (scripts/snapshot.mjs) a
// module's top level runs while the blob is built, with the build's stderr and environment.
let color: boolean | undefined
const colored = () => (color ??= Boolean(process.stderr.isTTY) && !process.env.NO_COLOR)
const wrap = (code: string) => (s: string) => (colored() ? `\x1b[${code}m${s}\x1b[0m` : s)
export const dim = wrap("2")
export const bold = wrap("1")
export const red = wrap("31")
export const green = wrap("32")
export const yellow = wrap("33")
export const cyan = wrap("36")

/** A failure the user caused or can fix: printed without a stack trace. */
/** A path under the home directory as ~/…, for display. */
export function tildify(dir: string): string {
  const home = os.homedir()
  return dir === home || dir.startsWith(home + path.sep) ? `~${dir.slice(home.length)}` : dir
}

export class UserError extends Error {
  /** Declared as protocol's declareError would, written out so that loading this file loads no protocol. */
  static readonly info: ErrorInfo = { status: 400, quiet: true, stopsLoop: false }
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
    this.name = "UserError"
  }
}

/** Prints a fatal error (the message alone when its definition declares it quiet, else the stack) and exits. */
export async function fail(e: unknown): Promise<never> {
  const err = e instanceof Error ? e : new Error(String(e))
  const quiet = await import("../protocol").then(
    ({ errorInfo }) => errorInfo(err).quiet,
    () => false,
  )
  process.stderr.write(`${red("Error:")} ${quiet ? err.message : (err.stack ?? err.message)}\n`)
  process.exit(err instanceof UserError ? err.exitCode : 1)
}
