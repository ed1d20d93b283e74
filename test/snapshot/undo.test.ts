// Undo that restores files, through the real App and our SDK client, the model faked at the
// wire: each step's changes (edit, write, bash) are recorded in patch parts, revert puts the
// files back as they were before the reverted steps, unrevert brings the changes back.
import { execFileSync } from "node:child_process"
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base } from "vitest"
import { startLLMServer, text, toolCall, toolCalls, type LLMServer } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { createClient } from "../../src/sdk"
import { createServer } from "../../src/server"
import { createApp } from "../../src/session"
import { openStore } from "../../src/storage"
import { fingerprint } from "../lib/fingerprint"
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


function git(cwd: string, ...args: string[]) {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8", env: { PATH: process.env.PATH, HOME: cwd } })
}

test("undo - in a git repository: ignored, oversize and untouched files are never written, and the project's .git is byte-for-byte unchanged", async () => {
  const core = await testCore({
    llm,
    config: { snapshot: { max_file_size: 1000 } },
    files: { ".gitignore": "ignored/\n*.log\n", "src/main.ts": "export const x = 1\n", "untouched.md": "hands off\n", "README.md": "readme\n" },
  })
  const dir = core.box.project
  git(dir, "init", "-q")
  git(dir, "add", "-A")
  git(dir, "commit", "-qm", "init")
  const gitBefore = fingerprint(path.join(dir, ".git"))
  const untouchedBefore = fingerprint(dir)["untouched.md"]
  const s = await core.client.session.create()
  llm.script(
    toolCall("edit", { filePath: "src/main.ts", oldString: "x = 1", newString: "x = 2" }),
    toolCall("bash", { command: "mkdir -p ignored && echo junk > ignored/cache.txt && echo log > run.log && head -c 5000 /dev/zero | tr '\\0' 'z' > big.bin", description: "make files" }),
    text("ok"),
  )
  await core.client.session.prompt(s.id, prompt("go"))
  const ps = patches(core, s.id)
  expect(ps).toHaveLength(2)
  // The oversize file is counted as not captured; ignored files are not in the patch at all.
  expect(ps[1]!.files).toEqual([])
  expect((ps[1] as { notCaptured?: string[] }).notCaptured).toEqual(["big.bin"])

  const reverted = await core.client.session.revert(s.id, { messageID: userMessages(core, s.id)[0]!.info.id })
  expect(read(core, "src/main.ts")).toBe("export const x = 1\n")
  expect(read(core, "ignored/cache.txt")).toBe("junk\n")
  expect(read(core, "run.log")).toBe("log\n")
  expect(statSync(path.join(dir, "big.bin")).size).toBe(5000)
  expect(fingerprint(dir)["untouched.md"]).toBe(untouchedBefore)
  expect((reverted.revert as { restored: string[] }).restored).toEqual([path.join(dir, "src/main.ts")])
  await core.client.session.unrevert(s.id)
  expect(read(core, "src/main.ts")).toBe("export const x = 2\n")
  expect(fingerprint(path.join(dir, ".git"))).toEqual(gitBefore)
  // The shadow store lives under the data directory and borrows the project's objects.
  const shadow = core.app.snapshots.store.gitDir
  expect(shadow.startsWith(path.join(core.box.home, "data", "wright", "snapshot"))).toBe(true)
  expect(readFileSync(path.join(shadow, "objects/info/alternates"), "utf8").trim()).toBe(path.join(dir, ".git/objects"))
  await core.close()
})

test("undo - a file the user changed after the step is kept and reported; force restores it", async () => {
  const core = await testCore({ llm, files: { "a.txt": "a\n", "b.txt": "b\n" } })
  const s = await core.client.session.create()
  llm.script(
    toolCalls([
      { name: "write", input: { filePath: "a.txt", content: "A\n" } },
      { name: "write", input: { filePath: "b.txt", content: "B\n" } },
    ]),
    text("ok"),
  )
  await core.client.session.prompt(s.id, prompt("go"))
  writeFileSync(path.join(core.box.project, "b.txt"), "mine\n")
  const user = userMessages(core, s.id)[0]!.info.id
  const reverted = await core.client.session.revert(s.id, { messageID: user })
  expect(read(core, "a.txt")).toBe("a\n")
  expect(read(core, "b.txt")).toBe("mine\n")
  const revert = reverted.revert as { restored: string[]; kept: { file: string; reason: string }[] }
  expect(revert.restored).toEqual([path.join(core.box.project, "a.txt")])
  expect(revert.kept).toEqual([{ file: path.join(core.box.project, "b.txt"), reason: expect.stringContaining("changed after") }])

  await core.client.session.unrevert(s.id)
  expect(read(core, "a.txt")).toBe("A\n")
  expect(read(core, "b.txt")).toBe("mine\n")
  const forced = await core.client.session.revert(s.id, { messageID: user, force: true } as never)
  expect(read(core, "b.txt")).toBe("b\n")
  expect((forced.revert as { kept: unknown[] }).kept).toEqual([])
  await core.close()
})

test("undo - across turns: each /undo steps back one turn, redo returns to the latest, and a new prompt starts from the reverted files", async () => {
  const core = await testCore({ llm, files: { "n.txt": "0\n" } })
  const s = await core.client.session.create()
  for (const n of [1, 2]) {
    llm.script(toolCall("write", { filePath: "n.txt", content: `${n}\n` }), text(`wrote ${n}`))
    await core.client.session.prompt(s.id, prompt(`write ${n}`))
  }
  const [first, second] = userMessages(core, s.id).map((m) => m.info.id)
  await core.client.session.revert(s.id, { messageID: second! })
  expect(read(core, "n.txt")).toBe("1\n")
  await core.client.session.revert(s.id, { messageID: first! })
  expect(read(core, "n.txt")).toBe("0\n")
  await core.client.session.unrevert(s.id)
  expect(read(core, "n.txt")).toBe("2\n")

  await core.client.session.revert(s.id, { messageID: second! })
  expect(read(core, "n.txt")).toBe("1\n")
  llm.script(toolCall("edit", { filePath: "n.txt", oldString: "1", newString: "one" }), text("edited"))
  await core.client.session.prompt(s.id, prompt("again"))
  expect(read(core, "n.txt")).toBe("one\n")
  // The committed revert's messages are gone; undoing the new turn goes back to turn one's file.
  const users = userMessages(core, s.id)
  expect(users).toHaveLength(2)
  await core.client.session.revert(s.id, { messageID: users[1]!.info.id })
  expect(read(core, "n.txt")).toBe("1\n")
  await core.close()
})

test("undo - the user's !cmd is captured like a step and reverted with its message", async () => {
  const core = await testCore({ llm, files: { "x.txt": "x\n" } })
  const s = await core.client.session.create()
  await core.client.session.shell(s.id, { agent: "build", command: "echo changed > x.txt && touch made.txt" })
  expect(read(core, "x.txt")).toBe("changed\n")
  const ps = patches(core, s.id)
  expect(ps.flatMap((p) => p.files).sort()).toEqual([path.join(core.box.project, "made.txt"), path.join(core.box.project, "x.txt")])
  await core.client.session.revert(s.id, { messageID: userMessages(core, s.id)[0]!.info.id })
  expect(read(core, "x.txt")).toBe("x\n")
  expect(exists(core, "made.txt")).toBe(false)
  await core.close()
})

test("undo - snapshot: false takes no snapshots; the revert says why no file came back", async () => {
  const core = await testCore({ llm, config: { snapshot: false }, files: { "a.txt": "a\n" } })
  const s = await core.client.session.create()
  llm.script(toolCall("write", { filePath: "a.txt", content: "A\n" }), text("ok"))
  await core.client.session.prompt(s.id, prompt("go"))
  expect(patches(core, s.id)).toEqual([])
  const reverted = await core.client.session.revert(s.id, { messageID: userMessages(core, s.id)[0]!.info.id })
  expect(read(core, "a.txt")).toBe("A\n")
  expect((reverted.revert as { notice?: string }).notice).toContain("snapshot: false")
  expect(existsSync(path.join(core.box.home, "data", "wright", "snapshot"))).toBe(false)
  await core.close()
})

test("undo - steps that touch no file share one tree and leave no patch", async () => {
  const core = await testCore({ llm, files: { "a.txt": "a\n" } })
  const s = await core.client.session.create()
  llm.script(toolCall("read", { filePath: "a.txt" }), toolCall("glob", { pattern: "*.txt" }), text("ok"))
  await core.client.session.prompt(s.id, prompt("look"))
  const parts = core.app.sessions.messages(s.id).flatMap((m) => m.parts)
  const starts = parts.filter((p) => p.type === "step-start") as { snapshot?: string }[]
  expect(starts).toHaveLength(3)
  // The steps with tool calls saw the same tree; the answer without tools took no snapshot at all.
  expect(starts.map((p) => p.snapshot !== undefined)).toEqual([true, true, false])
  expect(starts[0]!.snapshot).toMatch(/^[0-9a-f]{40}$/)
  expect(starts[1]!.snapshot).toBe(starts[0]!.snapshot)
  expect(patches(core, s.id)).toEqual([])
  expect(core.app.snapshots.store.clean()).toBe(true)
  await core.close()
})

test("undo - GET /session/:id/diff gives each changed file's before, after and line counts; session.diff follows each changing step", async () => {
  const core = await testCore({ llm, files: { "a.txt": "one\ntwo\nthree\n" } })
  const s = await core.client.session.create()
  llm.script(toolCall("edit", { filePath: "a.txt", oldString: "two\n", newString: "2\n2b\n" }), text("ok"))
  await core.client.session.prompt(s.id, prompt("first"))
  llm.script(toolCall("write", { filePath: "b.txt", content: "new\n" }), text("ok"))
  await core.client.session.prompt(s.id, prompt("second"))

  const diff = await core.client.session.diff(s.id)
  expect(diff).toEqual([
    { file: "a.txt", before: "one\ntwo\nthree\n", after: "one\n2\n2b\nthree\n", additions: 2, deletions: 1, status: "modified" },
    { file: "b.txt", before: "", after: "new\n", additions: 1, deletions: 0, status: "added" },
  ])
  const second = userMessages(core, s.id)[1]!.info.id
  expect((await core.client.session.diff(s.id, { messageID: second })).map((d) => d.file)).toEqual(["b.txt"])
  const events = core.events.filter((e) => e.type === "session.diff") as { properties: { diff: { file: string }[] } }[]
  expect(events.map((e) => e.properties.diff.map((d) => d.file))).toEqual([["a.txt"], ["a.txt", "b.txt"]])
  // After an undo the diff shows only what is still applied.
  await core.client.session.revert(s.id, { messageID: second })
  expect((await core.client.session.diff(s.id)).map((d) => d.file)).toEqual(["a.txt"])
  await core.close()
})

test("undo - apply_patch's add, update, move and delete are undone and redone", async () => {
  const core = await testCore({
    llm,
    config: { model: "fake/gpt-5-fake", provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "k" }, models: { "gpt-5-fake": { limit: { context: 100000, output: 4000 } } } } } },
    files: { "keep.txt": "alpha\nbeta\n", "drop.txt": "bye\n", "from.txt": "move me\n" },
  })
  const s = await core.client.session.create()
  const patchText = [
    "*** Begin Patch",
    "*** Add File: sub/added.txt",
    "+hello",
    "*** Update File: keep.txt",
    "@@",
    " alpha",
    "-beta",
    "+BETA",
    "*** Delete File: drop.txt",
    "*** Update File: from.txt",
    "*** Move to: to.txt",
    "@@",
    "-move me",
    "+moved",
    "*** End Patch",
  ].join("\n")
  llm.script(toolCall("apply_patch", { patchText }), text("patched"))
  await core.client.session.prompt(s.id, prompt("patch"))
  expect(read(core, "keep.txt")).toBe("alpha\nBETA\n")
  expect(read(core, "to.txt")).toBe("moved\n")
  await core.client.session.revert(s.id, { messageID: userMessages(core, s.id)[0]!.info.id })
  expect(read(core, "keep.txt")).toBe("alpha\nbeta\n")
  expect(read(core, "drop.txt")).toBe("bye\n")
  expect(read(core, "from.txt")).toBe("move me\n")
  expect(exists(core, "to.txt")).toBe(false)
  expect(exists(core, "sub")).toBe(false)
  await core.client.session.unrevert(s.id)
  expect(read(core, "sub/added.txt")).toBe("hello\n")
  expect(exists(core, "drop.txt")).toBe(false)
  expect(read(core, "to.txt")).toBe("moved\n")
  await core.close()
})

test("undo - without git on PATH the run still works, and the revert carries the notice", async () => {
  const box = sandbox()
  writeFileSync(path.join(box.project, "a.txt"), "a\n")
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const store = openStore(":memory:")
  const app = await createApp({ directory: box.project, store, env: { ...box.env, PATH: path.join(box.home, "empty-bin") }, home: box.home, version: "test" })
  const server = createServer({ directory: box.project, getApp: async () => app, version: "test" })
  const client = createClient({ baseUrl: "http://wright.test", fetch: server.fetch })
  const s = await client.session.create()
  llm.script(toolCall("write", { filePath: "a.txt", content: "A\n" }), text("ok"))
  await client.session.prompt(s.id, prompt("go"))
  expect(readFileSync(path.join(box.project, "a.txt"), "utf8")).toBe("A\n")
  const user = app.sessions.messages(s.id).find((m) => m.info.role === "user")!
  const reverted = await client.session.revert(s.id, { messageID: user.info.id })
  expect((reverted.revert as { notice?: string }).notice).toContain("git was not found")
  await app.dispose()
  store.close()
})
