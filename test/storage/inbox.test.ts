// The inbox table over two connections to one file, as two wright processes see it: an item
// is claimed (delivered) by exactly one of them, and an edit after the claim is refused.
import path from "node:path"
import { expect, test } from "vitest"
import { createInboxStore, openDatabase } from "../../src/storage"
import { sandbox } from "../lib/e2e"

test("inbox store - two connections racing to claim the same items each get different ones; edits and withdrawals after delivery are refused", () => {
  const box = sandbox()
  const file = path.join(box.home, "inbox.db")
  const one = openDatabase(file)
  const two = openDatabase(file)
  try {
    one.prepare(`INSERT INTO session (id, project_id, directory, title, time_created, time_updated, data) VALUES ('ses_1', 'p', '/', 't', 0, 0, '{}')`).run()
    const a = createInboxStore(one)
    const b = createInboxStore(two)
    const put = (id: string, delivery: "steer" | "queue") => a.add({ id, sessionID: "ses_1", delivery, prompt: { parts: [{ type: "text", text: id }] }, time: { created: 1 } })
    put("inb_1", "queue")
    put("inb_2", "steer")
    put("inb_3", "queue")
    expect(b.pending("ses_1").map((e) => e.id)).toEqual(["inb_1", "inb_2", "inb_3"])
    // Steering items are taken first by the loop; the rest in order, each by one connection only.
    expect(b.claim("ses_1", "steer")?.id).toBe("inb_2")
    expect(a.claim("ses_1", "steer")).toBeUndefined()
    const taken = [a.claim("ses_1"), b.claim("ses_1"), a.claim("ses_1"), b.claim("ses_1")].map((e) => e?.id)
    expect(taken).toEqual(["inb_1", "inb_3", undefined, undefined])
    expect(a.update("ses_1", "inb_1", (e) => e)).toBe("delivered")
    expect(b.remove("ses_1", "inb_3")).toBe("delivered")
    expect(b.remove("ses_1", "inb_9")).toBe("missing")
    expect(a.pending("ses_1")).toEqual([])
  } finally {
    one.close()
    two.close()
  }
})
