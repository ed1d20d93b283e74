// Named errors declare what they mean where they are defined (protocol/error-info.ts): the
// server's status, whether the CLI prints them without a stack, whether they stop the loop.
// These tables are the specification; the server, the CLI and the tool-call pipeline read them.
import { expect, test } from "vitest"
import { ConfigError } from "../../src/config"
import { ProviderTimeoutError } from "../../src/llm"
import {
  AgentNotFoundError,
  APIError,
  BadRequestError,
  BusyError,
  declareError,
  errorInfo,
  ForbiddenError,
  MessageError,
  NamedError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionRejectedError,
  ProviderAuthError,
  ProviderModelNotFoundError,
  sessionNotFound,
  stopsLoop,
  toErrorObject,
  toMessageError,
  UnauthorizedError,
  UNDECLARED,
  UnknownError,
  UnsupportedMediaTypeError,
} from "../../src/protocol"
import { ApiError } from "../../src/sdk"
import { ListenError } from "../../src/server"
import { QuestionRejectedError } from "../../src/session"
import { StorageError } from "../../src/storage"
import { ToolInvalidArgumentsError } from "../../src/tool"
import { UserError } from "../../src/cli/ui"

const m = { message: "m" }
const cases: [Error, number, boolean, boolean][] = [
  // error, status, quiet, stops the loop
  [new BadRequestError(m), 400, true, false],
  [new ConfigError("/p/wright.json", [{ path: "model", message: "bad" }]), 400, true, false],
  [new ProviderModelNotFoundError({ providerID: "p", modelID: "x", message: "m" }), 400, true, false],
  [new AgentNotFoundError({ agent: "a", message: "m", available: [] }), 400, true, false],
  [new ToolInvalidArgumentsError("read", "filePath: required"), 400, false, false],
  [new ProviderAuthError({ providerID: "p", message: "m" }), 401, true, false],
  [new UnauthorizedError(m), 401, true, false],
  [new ForbiddenError(m), 403, true, false],
  [new NotFoundError(m), 404, true, false],
  [new BusyError({ message: "m", sessionID: "ses_1" }), 409, true, false],
  [new PayloadTooLargeError(m), 413, true, false],
  [new UnsupportedMediaTypeError(m), 415, true, false],
  [new StorageError("m", "/db"), 500, true, false],
  [new UserError("m"), 400, true, false],
  [new ListenError("m"), 500, true, false],
  [new ProviderTimeoutError("header", 10, "http://x"), 504, false, false],
  [new PermissionRejectedError(m), 500, false, true],
  [new PermissionDeniedError(m), 500, false, true],
  [new QuestionRejectedError(), 500, false, true],
  [new PermissionCorrectedError({ message: "m", feedback: "f" }), 500, false, false],
  [new APIError({ message: "m", isRetryable: false }), 500, false, false],
  [new Error("anything else"), 500, false, false],
]

test.each(cases.map(([e, ...rest]) => [e.name, e, ...rest] as const))("errors - %s: status, quiet, stops the loop as declared", (_name, e, status, quiet, stops) => {
  expect(errorInfo(e)).toEqual({ status, quiet, stopsLoop: stops })
  expect(stopsLoop(e)).toBe(stops)
})

test("errors - a declared name is known by name alone: a {name, data} body, an error rebuilt after an RPC", () => {
  expect(errorInfo("NotFoundError")).toEqual({ status: 404, quiet: true, stopsLoop: false })
  expect(stopsLoop({ name: "PermissionRejectedError", message: "rebuilt" })).toBe(true)
  const rebuilt = Object.assign(new Error("from the worker"), { name: "ConfigError" })
  expect(errorInfo(rebuilt).quiet).toBe(true)
  expect(errorInfo("NoSuchError")).toBe(UNDECLARED)
})

test("errors - the sdk's ApiError carries what the server's answer says: its status, quiet when a 4xx", () => {
  expect(errorInfo(new ApiError(404, { name: "NotFoundError", data: m }))).toEqual({ status: 404, quiet: true, stopsLoop: false })
  expect(errorInfo(new ApiError(403, { name: "SomethingThisClientNeverLoaded", data: m })).quiet).toBe(true)
  expect(errorInfo(new ApiError(500, { name: "UnknownError", data: m })).quiet).toBe(false)
})

test("errors - one name declared twice with other facts is refused; the same facts again are fine", () => {
  expect(declareError("NotFoundError", { status: 404, quiet: true })).toEqual(NotFoundError.info)
  expect(() => declareError("NotFoundError", { status: 410 })).toThrow(/declared twice/)
})

test("errors - on the wire: named errors and declared ones keep their name, anything else is UnknownError", () => {
  expect(toErrorObject(new NotFoundError(m))).toEqual({ name: "NotFoundError", data: m })
  expect(toErrorObject(new ConfigError(undefined, [{ path: "model", message: "bad" }]))).toEqual({ name: "ConfigError", data: { message: "Invalid config: model: bad" } })
  expect(toErrorObject(new TypeError("x is undefined"))).toEqual({ name: "UnknownError", data: { message: "x is undefined" } })
})

test("errors - session.error carries a MessageError: one as it is, any other error as UnknownError with its message", () => {
  const auth = new ProviderAuthError({ providerID: "p", message: "no key" })
  expect(toMessageError(auth)).toEqual(auth.toObject())
  expect(toMessageError(auth.toObject())).toEqual(auth.toObject())
  const missing = toMessageError(sessionNotFound("ses_x"))
  expect(missing).toEqual({ name: "UnknownError", data: { message: "Session not found: ses_x" } })
  expect(toMessageError(new NotFoundError(m).toObject())).toEqual({ name: "UnknownError", data: m })
  expect(toMessageError(new Error("boom"))).toEqual({ name: "UnknownError", data: { message: "boom" } })
  for (const e of [missing, toMessageError("text")]) expect(MessageError.safeParse(e).success).toBe(true)
  expect(UnknownError.is(new NamedError("UnknownError", m))).toBe(true)
})
