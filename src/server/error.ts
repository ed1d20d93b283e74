import type { Context } from "hono"
import { z } from "zod"
import { NamedError, namedError, toErrorObject } from "../protocol"

const message = z.object({ message: z.string() })
/** A request the guard or the directory rule refuses; the message names the flag or config key that allows it. */
export const ForbiddenError = namedError("ForbiddenError", message)
export const PayloadTooLargeError = namedError("PayloadTooLargeError", message)
export const UnsupportedMediaTypeError = namedError("UnsupportedMediaTypeError", message)

/** The one place where error names become HTTP status codes. */
const STATUS: Record<string, number> = {
  BadRequestError: 400,
  ConfigError: 400,
  ProviderModelNotFoundError: 400,
  AgentNotFoundError: 400,
  ToolInvalidArgumentsError: 400,
  NotFoundError: 404,
  BusyError: 409,
  ProviderAuthError: 401,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  PayloadTooLargeError: 413,
  UnsupportedMediaTypeError: 415,
}

export function statusOf(name: string): number {
  return STATUS[name] ?? 500
}

function bodyOf(e: unknown) {
  return e instanceof NamedError ? e.toObject() : e instanceof Error && e.name in STATUS ? { name: e.name, data: { message: e.message } } : toErrorObject(e)
}

export function errorResponse(e: unknown, c: Context) {
  const body = bodyOf(e)
  const status = statusOf(body.name)
  if (status === 500) console.error(e)
  return c.json(body, status as 500)
}

/** The same answer outside Hono (the guarded listener refuses before routing). */
export function errorAnswer(e: NamedError): Response {
  return new Response(JSON.stringify(e.toObject()), { status: statusOf(e.name), headers: { "content-type": "application/json" } })
}
