// The bridge between a session's file tools and its editor's buffers: each read or write is an
// `editor.file.requested` event answered through reply(); an answer for another session is
// refused, a silent editor times out, an aborted read stops waiting, a deleted session fails its
// requests at once.
import { expect, test } from "vitest"
import { createBus } from "../../src/bus"
import type { BusEvent } from "../../src/protocol"
import { createEditorBridge } from "../../src/session/editor-files"

function setup(timeoutMs?: number, parents: Record<string, string> = {}) {
  const bus = createBus()
  const requests: Extract<BusEvent, { type: "editor.file.requested" }>["properties"][] = []
  bus.subscribe("editor.file.requested", (e) => void requests.push(e.properties))
  return { bridge: createEditorBridge({ bus, timeoutMs, parentOf: (id) => parents[id] }), requests }
}

test("editor bridge - a subtask uses the editor of the session that started it, under its own id", async () => {
  const { bridge, requests } = setup(undefined, { ses_child: "ses_root", ses_grandchild: "ses_child" })
  bridge.attach("ses_root", { read: true, write: false })
  const read = bridge.files("ses_grandchild")!.read!("/p/a.ts")
  expect(requests[0]).toMatchObject({ sessionID: "ses_grandchild", operation: "read" })
  bridge.reply("ses_grandchild", requests[0]!.requestID, { content: "buffer" })
  expect(await read).toBe("buffer")
  expect(bridge.files("ses_unrelated")).toBeUndefined()
})

test("editor bridge - only sessions that attached an editor get one, with the sides they attached", () => {
  const { bridge } = setup()
  expect(bridge.files("ses_a")).toBeUndefined()
  bridge.attach("ses_a", { read: true, write: false })
  expect(Object.keys(bridge.files("ses_a")!)).toEqual(["read"])
  bridge.attach("ses_a", { read: false, write: false })
  expect(bridge.files("ses_a")).toBeUndefined()
})

test("editor bridge - a read is answered by the editor of its own session, not another's", async () => {
  const { bridge, requests } = setup()
  bridge.attach("ses_a", { read: true, write: true })
  const read = bridge.files("ses_a")!.read!("/p/a.ts")
  expect(requests).toEqual([{ sessionID: "ses_a", requestID: expect.stringMatching(/^edf_/), operation: "read", path: "/p/a.ts" }])
  expect(bridge.reply("ses_b", requests[0]!.requestID, { content: "forged" })).toBe(false)
  expect(bridge.reply("ses_a", requests[0]!.requestID, { content: "buffer text" })).toBe(true)
  expect(await read).toBe("buffer text")
  // Answered once: a second answer finds nothing waiting.
  expect(bridge.reply("ses_a", requests[0]!.requestID, { content: "again" })).toBe(false)

  const write = bridge.files("ses_a")!.write!("/p/a.ts", "new text")
  expect(requests[1]).toMatchObject({ operation: "write", path: "/p/a.ts", content: "new text" })
  bridge.reply("ses_a", requests[1]!.requestID, { error: "read-only buffer" })
  await expect(write).rejects.toThrow(/The editor could not write \/p\/a.ts: read-only buffer. Nothing was written./)
})

test("editor bridge - a silent editor times out, an aborted read stops waiting, a deleted session fails its requests", async () => {
  const { bridge, requests } = setup(200)
  bridge.attach("ses_a", { read: true, write: true })
  await expect(bridge.files("ses_a")!.read!("/p/slow.ts")).rejects.toThrow(/did not answer the read of \/p\/slow.ts within 0.2 s/)

  const abort = new AbortController()
  const aborted = bridge.files("ses_a")!.read!("/p/b.ts", abort.signal)
  abort.abort(new Error("stopped by the user"))
  await expect(aborted).rejects.toThrow(/stopped by the user/)
  expect(bridge.reply("ses_a", requests.at(-1)!.requestID, { content: "late" })).toBe(false)

  const pending = bridge.files("ses_a")!.write!("/p/c.ts", "x")
  bridge.forget("ses_a")
  await expect(pending).rejects.toThrow(/the session was deleted/)
  expect(bridge.files("ses_a")).toBeUndefined()
})
