// Undo that restores files, through the real App and our SDK client, the model faked at the
// wire: each step's changes (edit, write, bash) are recorded in patch parts, revert puts the
// files back as they were before the reverted steps, unrevert brings the changes back.
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, toolCalls, type LLMServer } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const read = (core: TestCore, f: string) => readFileSync(path.join(core.box.project, f), "utf8")
const exists = (core: TestCore, f: string) => existsSync(path.join(core.box.project, f))

function patches(core: TestCore, sessionID: string) {
  return core.app.sessions.messages(sessionID).flatMap((m) => m.parts.filter((p) => p.type === "patch"))
}

function userMessages(core: TestCore, sessionID: string) {
  return core.app.sessions.messages(sessionID).filter((m) => m.info.role === "user")
}

test("undo - revert restores files every step after the point changed (edit, write, bash), unrevert brings them back", async () => {
  const core = await testCore({ llm, files: { "a.txt": "one\ntwo\n", "gone.txt": "delete me\n", "old-name.txt": "moving\n", "untouched.txt": "same\n" } })
  const s = await core.client.session.create()
  llm.script(
    toolCalls([
      { name: "edit", input: { filePath: "a.txt", oldString: "two", newString: "TWO" } },
      { name: "write", input: { filePath: "deep/new/dir/new.txt", content: "brand new\n" } },
    ]),
    toolCall("bash", { command: "rm gone.txt && mv old-name.txt new-name.txt && chmod +x a.txt && ln -s a.txt link && printf '\\000\\001\\002' > bin.dat", description: "shuffle" }),
    text("done"),
  )
  await core.client.session.prompt(s.id, prompt("change things"))
  expect(read(core, "a.txt")).toBe("one\nTWO\n")
  expect(exists(core, "gone.txt")).toBe(false)
  expect(readlinkSync(path.join(core.box.project, "link"))).toBe("a.txt")
  const ps = patches(core, s.id)
  expect(ps).toHaveLength(2)
  expect(ps[0]!.files.map((f) => path.relative(core.box.project, f)).sort()).toEqual(["a.txt", "deep/new/dir/new.txt"])

  const user = userMessages(core, s.id)[0]!
  const reverted = await core.client.session.revert(s.id, { messageID: user.info.id })
  expect(read(core, "a.txt")).toBe("one\ntwo\n")
  expect(statSync(path.join(core.box.project, "a.txt")).mode & 0o111).toBe(0)
  expect(read(core, "gone.txt")).toBe("delete me\n")
  expect(read(core, "old-name.txt")).toBe("moving\n")
  expect(exists(core, "new-name.txt")).toBe(false)
  expect(exists(core, "link")).toBe(false)
  expect(exists(core, "bin.dat")).toBe(false)
  expect(exists(core, "deep")).toBe(false)
  expect(read(core, "untouched.txt")).toBe("same\n")
  const revert = reverted.revert as { restored?: string[]; kept?: unknown[]; snapshot?: string; diff?: string }
  expect(revert.restored!.map((f) => path.relative(core.box.project, f)).sort()).toEqual(
    ["a.txt", "bin.dat", "deep/new/dir/new.txt", "gone.txt", "link", "new-name.txt", "old-name.txt"].sort(),
  )
  expect(revert.kept).toEqual([])
  expect(revert.snapshot).toMatch(/^[0-9a-f]{40}$/)
  expect(revert.diff).toContain("-TWO")

  await core.client.session.unrevert(s.id)
  expect(read(core, "a.txt")).toBe("one\nTWO\n")
  expect(statSync(path.join(core.box.project, "a.txt")).mode & 0o111).not.toBe(0)
  expect(exists(core, "gone.txt")).toBe(false)
  expect(read(core, "new-name.txt")).toBe("moving\n")
  expect(lstatSync(path.join(core.box.project, "link")).isSymbolicLink()).toBe(true)
  expect(readFileSync(path.join(core.box.project, "bin.dat"))).toEqual(Buffer.from([0, 1, 2]))
  expect(read(core, "deep/new/dir/new.txt")).toBe("brand new\n")
  await core.close()
})
