// Terminal output helpers shared by commands, and the one place that maps fatal errors to
// a message on stderr and an exit code.
export const VERSION = typeof __WRIGHT_VERSION__ !== "undefined" ? __WRIGHT_VERSION__ : "0.0.0-dev"

const color = process.stderr.isTTY && !process.env.NO_COLOR
const wrap = (code: string) => (s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s)
export const dim = wrap("2")
export const bold = wrap("1")
export const red = wrap("31")
export const green = wrap("32")
export const yellow = wrap("33")
export const cyan = wrap("36")

/** A failure the user caused or can fix: printed without a stack trace. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
    this.name = "UserError"
  }
}

const QUIET_ERRORS = new Set(["UserError", "ConfigError", "StorageError", "ProviderModelNotFoundError", "ProviderAuthError", "AgentNotFoundError", "NotFoundError", "BadRequestError", "UnauthorizedError", "BusyError", "ForbiddenError", "PayloadTooLargeError", "UnsupportedMediaTypeError"])

export function fail(e: unknown): never {
  const err = e instanceof Error ? e : new Error(String(e))
  if (QUIET_ERRORS.has(err.name)) process.stderr.write(`${red("Error:")} ${err.message}\n`)
  else process.stderr.write(`${red("Error:")} ${err.stack ?? err.message}\n`)
  process.exit(err instanceof UserError ? err.exitCode : 1)
}
