import type { Context } from "hono"
import { NamedError, toErrorObject } from "../protocol"

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
}

export function errorResponse(e: unknown, c: Context) {
  const body =
    e instanceof NamedError
      ? e.toObject()
      : e instanceof Error && e.name in STATUS
        ? { name: e.name, data: { message: e.message } }
        : toErrorObject(e)
  const status = STATUS[body.name] ?? 500
  if (status === 500) console.error(e)
  return c.json(body, status as 500)
}
