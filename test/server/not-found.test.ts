// A session id that names nothing is the same 404 on every path, whichever service fetches
// the session (the session service, revert, the user shell, permissions): one
// `sessions.get`, one NotFoundError, one body.
import { afterEach, beforeEach, expect, test } from "vitest"
import { raw, startServer, type Harness } from "./harness"

let h: Harness
beforeEach(async () => {
  h = await startServer()
})
afterEach(() => h.close())

const MISSING = "ses_missing"
const BODY = { name: "NotFoundError", data: { message: `Session not found: ${MISSING}` } }

test.each([
  ["GET", `/session/${MISSING}`, undefined],
  ["PATCH", `/session/${MISSING}`, { title: "x" }],
  ["DELETE", `/session/${MISSING}`, undefined],
  ["GET", `/session/${MISSING}/message`, undefined],
  ["POST", `/session/${MISSING}/message`, { parts: [{ type: "text", text: "hi" }] }],
  ["POST", `/session/${MISSING}/prompt_async`, { parts: [{ type: "text", text: "hi" }] }],
  ["POST", `/session/${MISSING}/shell`, { agent: "build", command: "true" }],
  ["POST", `/session/${MISSING}/revert`, { messageID: "msg_x" }],
  ["POST", `/session/${MISSING}/unrevert`, undefined],
  ["GET", `/session/${MISSING}/message/msg_x`, undefined],
  ["POST", `/session/${MISSING}/permissions/per_x`, { response: "once" }],
] as const)("not found - %s %s answers 404 with the one body", async (method, pathname, body) => {
  const res = await raw(h, method, pathname, body === undefined ? {} : { body: JSON.stringify(body) })
  expect(res.status).toBe(404)
  expect(await res.json()).toEqual(BODY)
})

test("not found - the sdk sees the same error: NotFoundError, 404, the same body", async () => {
  const e = await h.client.session.revert(MISSING, { messageID: "msg_x" }).catch((e) => e)
  expect([e.name, e.status, e.body]).toEqual(["NotFoundError", 404, BODY])
  expect(e.info.quiet).toBe(true)
})
