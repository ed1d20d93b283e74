// Errors become answers here: `{name, data}` with the status the error's definition declares
// (protocol/error-info.ts). No list of names: an error that declares nothing is a 500.
import type { Context } from "hono"
import { errorInfo, type NamedError, toErrorObject } from "../protocol"

/** Any error as the server answers it: `{name, data}` with the status its definition declares (500 when it declares none). */
export function errorResponse(e: unknown, c: Context) {
  const { status } = errorInfo(e)
  if (status >= 500) console.error(e)
  return c.json(toErrorObject(e), status as 500)
}

/** The same answer outside Hono (the guarded listener refuses before routing). */
export function errorAnswer(e: NamedError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(e.toObject()), { status: errorInfo(e).status, headers: { "content-type": "application/json", ...headers } })
}
