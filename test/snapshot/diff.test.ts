// The session's diff (GET /session/:id/diff and the session.diff event after each changing
// step) is kept between steps: a step adds only the files it changed. It must always equal
// the diff recomputed from scratch from the session's visible patches, read with git alone.
import { execFileSync } from "node:child_process"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer, type Reply } from "../lib/llm-server"
import { prompt, testCore, type TestCore } from "../lib/core"
import { fileDiffs, type Entry, type SnapshotStore, type StepPatch } from "../../src/snapshot"
import type { FileDiff } from "../../src/protocol"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

/** The store read through git's own commands only: no tree or blob the store holds in memory. */
function gitOnly(store: SnapshotStore): SnapshotStore {
  const git = (...args: string[]) => execFileSync("git", ["--git-dir", store.gitDir, ...args], { maxBuffer: 64 * 1024 * 1024 })
  return {
    ...store,
    worktree: store.worktree,
    async entries(tree: string, files: string[]) {
      const out = new Map<string, Entry>()
      if (!files.length) return out
      for (const line of git("ls-tree", "-r", "-z", "--full-tree", tree, "--", ...files).toString("utf8").split("\0").filter(Boolean)) {
        const tab = line.indexOf("\t")
        const [mode, , oid] = line.slice(0, tab).split(" ")
        out.set(line.slice(tab + 1), { mode: mode!, oid: oid! })
      }
      return out
    },
    async blob(oid: string) {
      return git("cat-file", "blob", oid)
    },
  }
}

/** The session's visible patches, oldest first, as the revert logic counts them. */
function visibleSteps(core: TestCore, sessionID: string): StepPatch[] {
  const session = core.app.sessions.get(sessionID)
  const messages = core.app.sessions.messages(sessionID)
  return messages
    .filter((m) => !session.revert || m.info.id < session.revert.messageID)
    .flatMap((m) => m.parts.flatMap((p) => (p.type === "patch" && p.after ? [{ before: p.hash, after: p.after, files: p.files }] : [])))
}

const lastDiffEvent = (core: TestCore, sessionID: string) =>
  (core.events.filter((e) => e.type === "session.diff" && (e.properties as { sessionID: string }).sessionID === sessionID).at(-1)?.properties as { diff: FileDiff[] } | undefined)?.diff

/** Ten steps from `start`: new files, edits, rewrites to the original bytes, deletions, mode changes, commands, a binary file. */
function steps(start: number): Reply[] {
  const out: Reply[] = []
  for (let i = start; i < start + 10; i++) {
    const f = `f${i % 4}.txt`
    switch (i % 7) {
      case 0:
        out.push(toolCall("write", { filePath: f, content: `written in step ${i}\n` }))
        break
      case 1:
        out.push(toolCall("bash", { command: `printf 'line %s\\n' ${i} >> ${f} && printf 'also\\n' >> a.txt`, description: "append" }))
        break
      case 2:
        out.push(toolCall("write", { filePath: "a.txt", content: "one\ntwo\n" }))
        break
      case 3:
        out.push(toolCall("bash", { command: `rm -f f${(i + 1) % 4}.txt && mkdir -p d/e && echo ${i} > d/e/n${i % 3}.txt`, description: "shuffle" }))
        break
      case 4:
        out.push(toolCall("bash", { command: `touch ${f} && chmod +x ${f}`, description: "mode" }))
        break
      case 5:
        out.push(toolCall("bash", { command: `printf 'bin\\000%s' ${i} > blob.bin`, description: "binary" }))
        break
      default:
        out.push(toolCall("write", { filePath: `d/new-${i}.txt`, content: `new ${i}\nsecond\n` }))
    }
  }
  return out
}

test("session diff - after 30 steps over three turns, each session.diff equals the diff recomputed from every patch with git alone, after an undo too", async () => {
  const core = await testCore({ llm, files: { "a.txt": "one\ntwo\n", "f1.txt": "first\n", "keep.txt": "untouched\n" } })
  const s = await core.client.session.create()
  const store = core.app.snapshots.store
  const full = async () => fileDiffs(gitOnly(store), visibleSteps(core, s.id))
  for (let turn = 0; turn < 3; turn++) {
    llm.script(...steps(turn * 10), text(`turn ${turn} done`))
    await core.client.session.prompt(s.id, prompt(`turn ${turn}`))
    const expected = await full()
    expect(expected.length).toBeGreaterThan(2)
    expect(lastDiffEvent(core, s.id)).toEqual(expected)
    expect(await core.client.session.diff(s.id)).toEqual(expected)
  }
  expect(visibleSteps(core, s.id).length).toBeGreaterThanOrEqual(25)
  // A revert hides the last turn's patches: the diff is what is still applied.
  const turns = core.app.sessions.messages(s.id).filter((m) => m.info.role === "user")
  await core.client.session.revert(s.id, { messageID: turns[2]!.info.id })
  const reverted = await full()
  expect(await core.client.session.diff(s.id)).toEqual(reverted)
  // A new prompt after the undo starts from the reverted files; its step's event builds on them.
  llm.script(toolCall("write", { filePath: "f1.txt", content: "after the undo\n" }), text("ok"))
  await core.client.session.prompt(s.id, prompt("again"))
  const after = await full()
  expect(after).not.toEqual(reverted)
  expect(lastDiffEvent(core, s.id)).toEqual(after)
  expect(await core.client.session.diff(s.id)).toEqual(after)
  // And one turn's own diff.
  const again = core.app.sessions.messages(s.id).filter((m) => m.info.role === "user").at(-1)!.info.id
  expect((await core.client.session.diff(s.id, { messageID: again })).map((d) => d.file)).toEqual(["f1.txt"])
  await core.close()
})
