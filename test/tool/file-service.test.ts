// The one file writer (`ToolServices.files`): edit, write and apply_patch change files only
// through it, and it announces every change (file.edited per file, afterWrite once per write
// or patch).
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import type { BusEvent } from "../../src/protocol"
import { createApp } from "../../src/session"
import { openStore } from "../../src/storage"
import { applyPatchTool, createFileService, editTool, readTool, runTool, writeTool, type FileService } from "../../src/tool"
import type { PlannedChange } from "../../src/tool/patch/types"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, text, toolCall } from "../lib/llm-server"
import { tempDir, toolContext } from "../lib/tool-context"

/** A file service that records every call and writes nothing. */
function recordingFiles() {
  const calls: { locks: string[][]; writes: { file: string; data: string }[]; commits: PlannedChange[][] } = { locks: [], writes: [], commits: [] }
  const files: FileService = {
    async lock(keys, fn) {
      calls.locks.push(keys)
      return fn()
    },
    async write(w) {
      calls.writes.push({ file: w.file, data: String(w.data) })
      return ""
    },
    async commit(plan) {
      calls.commits.push(plan)
      return ""
    },
    forSession: () => files,
    readText: async () => undefined,
  }
  return { files, calls }
}

function project() {
  const dir = tempDir()
  writeFileSync(path.join(dir, "a.txt"), "alpha\n")
  writeFileSync(path.join(dir, "b.txt"), "beta\n")
  return dir
}

test("file service - write, edit and apply_patch write only through ctx.services.files: a service that writes nowhere leaves the disk unchanged", async () => {
  const dir = project()
  const { files, calls } = recordingFiles()
  const ctx = toolContext({ directory: dir, files })

  await runTool(writeTool, { filePath: "a.txt", content: "written\n" }, ctx)
  await runTool(writeTool, { filePath: "new.txt", content: "created\n" }, ctx)
  await runTool(editTool, { filePath: "b.txt", oldString: "beta", newString: "edited" }, ctx)
  const patch = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-alpha", "+patched", "*** Add File: added.txt", "+added", "*** Delete File: b.txt", "*** End Patch"].join("\n")
  await runTool(applyPatchTool, { patchText: patch }, ctx)

  expect(calls.writes).toEqual([
    { file: path.join(dir, "a.txt"), data: "written\n" },
    { file: path.join(dir, "new.txt"), data: "created\n" },
    { file: path.join(dir, "b.txt"), data: "edited\n" },
  ])
  expect(calls.commits).toHaveLength(1)
  expect(calls.commits[0]!.map((c) => [c.type, path.basename(c.path), c.after])).toEqual([
    ["update", "a.txt", "patched\n"],
    ["add", "added.txt", "added\n"],
    ["delete", "b.txt", null],
  ])
  // Each write held its file's lock; the patch held all three at once.
  expect(calls.locks.map((keys) => keys.map((k) => path.basename(k)).sort())).toEqual([["a.txt"], ["new.txt"], ["b.txt"], ["a.txt", "added.txt", "b.txt"]])

  expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("alpha\n")
  expect(readFileSync(path.join(dir, "b.txt"), "utf8")).toBe("beta\n")
  expect(existsSync(path.join(dir, "new.txt"))).toBe(false)
  expect(existsSync(path.join(dir, "added.txt"))).toBe(false)
})

test("file service - each write is announced: file.edited per file, afterWrite once per write and once for a whole patch", async () => {
  const dir = project()
  const edited: string[] = []
  const batches: string[][] = []
  const files = createFileService({ edited: (f) => edited.push(f), afterWrite: [(fs) => void batches.push(fs)] })
  const ctx = toolContext({ directory: dir, files })

  await runTool(writeTool, { filePath: "a.txt", content: "written\n" }, ctx)
  await runTool(editTool, { filePath: "b.txt", oldString: "beta", newString: "edited" }, ctx)
  const patch = ["*** Begin Patch", "*** Update File: a.txt", "*** Move to: moved.txt", "@@", "-written", "+moved", "*** Add File: added.txt", "+added", "*** Delete File: b.txt", "*** End Patch"].join("\n")
  await runTool(applyPatchTool, { patchText: patch }, ctx)

  const a = path.join(dir, "a.txt")
  const b = path.join(dir, "b.txt")
  const moved = path.join(dir, "moved.txt")
  const added = path.join(dir, "added.txt")
  expect(batches.map((fs) => [...fs].sort())).toEqual([[a], [b], [a, added, b, moved].sort()])
  expect(edited.slice(0, 2)).toEqual([a, b])
  expect(edited.slice(2).sort()).toEqual([a, added, b, moved].sort())
  expect(readFileSync(moved, "utf8")).toBe("moved\n")
  expect(existsSync(a) || existsSync(b)).toBe(false)
})

test("file service - a session whose editor attached its buffers: read and edit see the buffer, the edit goes to the editor, other sessions use the disk", async () => {
  const dir = project()
  const a = path.join(dir, "a.txt")
  const buffers = new Map([[a, "alpha unsaved\nsecond line\n"]])
  const editorWrites: { file: string; content: string }[] = []
  const batches: string[][] = []
  const files = createFileService({
    edited: () => {},
    afterWrite: [(fs) => void batches.push(fs)],
    editor: (sessionID) =>
      sessionID === "ses_test"
        ? { read: async (file) => buffers.get(file) ?? readFileSync(file, "utf8"), write: async (file, content) => void editorWrites.push({ file, content }) }
        : undefined,
  })
  const ctx = toolContext({ directory: dir, files })

  const read = await runTool(readTool, { filePath: "a.txt" }, ctx)
  expect(read.output).toContain("1: alpha unsaved\n2: second line")
  expect(read.output).toContain("total 2 lines")
  const edit = await runTool(editTool, { filePath: "a.txt", oldString: "unsaved", newString: "edited" }, ctx)
  expect(edit.metadata.diff).toContain("-alpha unsaved")
  expect(editorWrites).toEqual([{ file: a, content: "alpha edited\nsecond line\n" }])
  expect(batches).toEqual([[a]])
  expect(readFileSync(a, "utf8")).toBe("alpha\n")

  // A write outside the project is refused before the editor hears of it.
  await expect(files.write({ roots: [dir], file: path.join(tempDir(), "x.txt"), data: "x" }, "ses_test")).rejects.toThrow(/outside the project/)
  expect(editorWrites).toHaveLength(1)

  const other = { ...ctx, sessionID: "ses_other" }
  expect((await runTool(readTool, { filePath: "a.txt" }, other)).output).toContain("1: alpha\n")
  await runTool(editTool, { filePath: "a.txt", oldString: "alpha", newString: "disk" }, other)
  expect(readFileSync(a, "utf8")).toBe("disk\n")
  expect(editorWrites).toHaveLength(1)
})

test("file service - a write that fails announces nothing", async () => {
  const dir = project()
  const batches: string[][] = []
  const files = createFileService({ edited: () => {}, afterWrite: [(fs) => void batches.push(fs)] })
  const outside = tempDir()
  await expect(files.write({ roots: [dir], file: path.join(outside, "x.txt"), data: "no" })).rejects.toThrow(/outside the project/)
  expect(batches).toEqual([])
  expect(existsSync(path.join(outside, "x.txt"))).toBe(false)
})

test("file service - an App publishes file.edited on its bus and tells its afterWrite subscribers when the model's write tool writes, and for which session", async () => {
  const llm = await startLLMServer()
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const store = openStore(":memory:")
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home })
  try {
    const events: BusEvent[] = []
    app.bus.subscribeAll((e) => events.push(e))
    const batches: string[][] = []
    const writers: (string | undefined)[] = []
    app.afterWrite.push((files, sessionID) => void (batches.push(files), writers.push(sessionID)))
    const session = app.sessions.create()
    llm.script(toolCall("write", { filePath: "notes.md", content: "# notes\n" }), text("written"))
    await app.sessions.prompt(session.id, { parts: [{ type: "text", text: "write notes" }] })

    const file = path.join(box.project, "notes.md")
    expect(readFileSync(file, "utf8")).toBe("# notes\n")
    expect(events.filter((e) => e.type === "file.edited").map((e) => e.properties)).toEqual([{ file }])
    expect(batches).toEqual([[file]])
    expect(writers).toEqual([session.id])
    expect(llm.failures).toEqual([])
  } finally {
    await app.dispose()
    store.close()
    await llm.close()
  }
})
