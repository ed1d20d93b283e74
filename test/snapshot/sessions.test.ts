// Two sessions running at once in one project share the worktree and the shadow store, but
// not their undo: each step's patch lists only the files its own session's tools changed, so a
// revert of one session never puts back a file only the other one changed. Through the real
// App and our SDK client, the model faked at the wire; one session's bash waits on a gate file
// (outside the project) while the other session runs whole steps.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base } from "vitest"
import { startLLMServer, text, toolCall, toolCalls, type LLMServer } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"
import { requires } from "../lib/requires"

// Snapshots are git trees: without git these tests are skipped, saying so.
const test = base.skipIf(requires("git"))

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

/** The worktree-relative files of every patch part of the session, per patch. */
function patchFiles(core: TestCore, sessionID: string): string[][] {
  return core.app.sessions
    .messages(sessionID)
    .flatMap((m) => m.parts.filter((p) => p.type === "patch"))
    .map((p) => (p as { files: string[] }).files.map((f) => path.relative(core.box.project, f)).sort())
}

const firstUser = (core: TestCore, sessionID: string) => core.app.sessions.messages(sessionID).find((m) => m.info.role === "user")!.info.id

/** Resolves once the session has a bash call running (its command is waiting on the gate). */
async function bashRunning(core: TestCore, sessionID: string) {
  for (let i = 0; i < 600; i++) {
    const running = core.app.sessions
      .messages(sessionID)
      .some((m) => m.parts.some((p) => p.type === "tool" && p.tool === "bash" && p.state.status === "running"))
    if (running) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`no bash call of ${sessionID} started`)
}

/** A shell command that waits for `gate` to exist, then runs `then`. */
const gated = (gate: string, then: string) => `while [ ! -e '${gate}' ]; do sleep 0.05; done; ${then}`

test("sessions - while A's bash runs, B's writes stay B's: A's revert never undoes them, B's revert never undoes A's", async () => {
  const core = await testCore({ llm, files: { "shared.txt": "one\n" } })
  const gate = path.join(core.box.home, "gate-a")
  const a = await core.client.session.create()
  const b = await core.client.session.create()

  llm.script(toolCall("bash", { command: gated(gate, "echo A > a.txt"), description: "wait, then write a.txt" }))
  const running = core.client.session.prompt(a.id, prompt("slow work"))
  await bashRunning(core, a.id)

  // B runs a whole turn inside A's step: a new file and an edit of an existing one.
  llm.script(
    toolCalls([
      { name: "write", input: { filePath: "b.txt", content: "B\n" } },
      { name: "edit", input: { filePath: "shared.txt", oldString: "one", newString: "ONE" } },
    ]),
    text("b done"),
  )
  await core.client.session.prompt(b.id, prompt("quick work"))
  llm.script(text("a done"))
  writeFileSync(gate, "")
  await running

  expect(read(core, "a.txt")).toBe("A\n")
  expect(patchFiles(core, a.id)).toEqual([["a.txt"]])
  expect(patchFiles(core, b.id)).toEqual([["b.txt", "shared.txt"]])
  expect((await core.client.session.diff(a.id)).map((d) => d.file)).toEqual(["a.txt"])

  // Undoing A takes back only a.txt.
  const revertedA = await core.client.session.revert(a.id, { messageID: firstUser(core, a.id) })
  expect((revertedA.revert as { restored: string[] }).restored).toEqual([path.join(core.box.project, "a.txt")])
  expect(exists(core, "a.txt")).toBe(false)
  expect(read(core, "b.txt")).toBe("B\n")
  expect(read(core, "shared.txt")).toBe("ONE\n")
  await core.client.session.unrevert(a.id)
  expect(read(core, "a.txt")).toBe("A\n")

  // Undoing B takes back only its two files.
  const revertedB = await core.client.session.revert(b.id, { messageID: firstUser(core, b.id) })
  expect((revertedB.revert as { restored: string[] }).restored.map((f) => path.relative(core.box.project, f)).sort()).toEqual(["b.txt", "shared.txt"])
  expect(exists(core, "b.txt")).toBe(false)
  expect(read(core, "shared.txt")).toBe("one\n")
  expect(read(core, "a.txt")).toBe("A\n")
  await core.close()
}, 60_000)

test("sessions - a user's !cmd in B waiting while A's tools write: B's patch has only what B's command changed", async () => {
  const core = await testCore({ llm, files: { "notes.txt": "n\n" } })
  const gate = path.join(core.box.home, "gate-b")
  const a = await core.client.session.create()
  const b = await core.client.session.create()

  const shell = core.client.session.shell(b.id, { agent: "build", command: gated(gate, "echo from-b > b.txt") })
  await bashRunning(core, b.id)
  llm.script(
    toolCall("write", { filePath: "a.txt", content: "from a\n" }),
    toolCall("edit", { filePath: "notes.txt", oldString: "n", newString: "N" }),
    text("a done"),
  )
  await core.client.session.prompt(a.id, prompt("write things"))
  writeFileSync(gate, "")
  await shell

  expect(patchFiles(core, b.id)).toEqual([["b.txt"]])
  expect(patchFiles(core, a.id)).toEqual([["a.txt"], ["notes.txt"]])

  await core.client.session.revert(b.id, { messageID: firstUser(core, b.id) })
  expect(exists(core, "b.txt")).toBe(false)
  expect(read(core, "a.txt")).toBe("from a\n")
  expect(read(core, "notes.txt")).toBe("N\n")

  await core.client.session.revert(a.id, { messageID: firstUser(core, a.id) })
  expect(exists(core, "a.txt")).toBe(false)
  expect(read(core, "notes.txt")).toBe("n\n")
  await core.close()
}, 60_000)

test("sessions - a subtask's writes are its parent's too: undoing the parent's turn takes them back", async () => {
  const core = await testCore({ llm, files: { "keep.txt": "k\n" } })
  const parent = await core.client.session.create()
  llm.script(
    toolCall("task", { description: "Write a file", prompt: "write it", subagent_type: "general" }),
    toolCall("write", { filePath: "child.txt", content: "from the subtask\n" }),
    text("child done"),
    text("parent done"),
  )
  await core.client.session.prompt(parent.id, prompt("delegate"))
  expect(read(core, "child.txt")).toBe("from the subtask\n")
  expect(patchFiles(core, parent.id)).toEqual([["child.txt"]])
  await core.client.session.revert(parent.id, { messageID: firstUser(core, parent.id) })
  expect(exists(core, "child.txt")).toBe(false)
  expect(read(core, "keep.txt")).toBe("k\n")
  await core.close()
}, 60_000)
