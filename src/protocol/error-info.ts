// What an error means beyond its message, declared once beside the error's definition:
// the server's HTTP status, whether the CLI prints it without a stack trace, and whether a
// tool call failing with it stops the loop. Every error class carries it as a static `info`;
// `declareError` also records it by name, for errors known only by name (a `{name, data}`
// body, an error rebuilt after crossing a worker's RPC). Nobody keeps a list of names.

export interface ErrorInfo {
  /** The HTTP status the server answers with. */
  status: number
  /** The user caused it or can fix it: the CLI prints the message alone, without a stack trace. */
  quiet: boolean
  /** The user said no (a rejected permission or question): a tool call failing with it ends the loop after its step. */
  stopsLoop: boolean
}

/** What an error nobody declared means: a 500, printed with its stack, the loop goes on. */
export const UNDECLARED: ErrorInfo = Object.freeze({ status: 500, quiet: false, stopsLoop: false })

const byName = new Map<string, ErrorInfo>()

/**
 * Declares what errors named `name` mean, and returns it for the class's `static info`.
 * Omitted facts take UNDECLARED's values. Declaring one name twice with other facts throws.
 */
export function declareError(name: string, info: Partial<ErrorInfo> = {}): ErrorInfo {
  const full: ErrorInfo = Object.freeze({ ...UNDECLARED, ...info })
  const prior = byName.get(name)
  if (prior && (prior.status !== full.status || prior.quiet !== full.quiet || prior.stopsLoop !== full.stopsLoop)) {
    throw new Error(`${name} is declared twice, with different facts`)
  }
  byName.set(name, full)
  return full
}

/**
 * The declaration of an error, or of an error name; undefined when nobody declared it. An
 * error's own `info` (the sdk's ApiError carries what the server's answer says) comes first,
 * then its class's static `info`, then its name.
 */
export function declaredInfo(e: unknown): ErrorInfo | undefined {
  if (typeof e === "string") return byName.get(e)
  if (!e || typeof e !== "object") return undefined
  const own = (e as { info?: unknown }).info
  if (isInfo(own)) return own
  const ofClass = (e.constructor as { info?: unknown } | undefined)?.info
  if (isInfo(ofClass)) return ofClass
  const name = (e as { name?: unknown }).name
  return typeof name === "string" ? byName.get(name) : undefined
}

/** What an error (or an error name) means; UNDECLARED when nobody declared it. */
export function errorInfo(e: unknown): ErrorInfo {
  return declaredInfo(e) ?? UNDECLARED
}

/** Whether a tool call that failed with `e` ends the loop (see ErrorInfo.stopsLoop). */
export function stopsLoop(e: unknown): boolean {
  return errorInfo(e).stopsLoop
}

function isInfo(v: unknown): v is ErrorInfo {
  return !!v && typeof v === "object" && typeof (v as ErrorInfo).status === "number" && typeof (v as ErrorInfo).quiet === "boolean"
}
