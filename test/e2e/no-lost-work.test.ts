// No lost work, through the built binary: while a run goes on, someone else edits the
// checkout (the scripted model does it when the step's request arrives, as another process or
// the user in their editor would: wright is not told). The next step's command throws that
// work away. Its tool result says what was discarded, and `wright serve`'s revert (the official
// SDK, as a client's /undo) brings every file back byte for byte: the edited tracked file, a
// staged new file and an untracked one. Sandbox off: the guard does not depend on it.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import Database from "better-sqlite3"
import { afterAll, afterEach, beforeAll, expect, test as base } from "vitest"
import { providerConfig, sandbox, storedParts, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { requires } from "../lib/requires"
import { startServe, stopServe, type Served } from "./serve-helpers"

const test = base.skipIf(requires("git"))

let llm: LLMServer
let served: Served | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  if (served) await stopServe(served)
  served = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const WORK = { "a.txt": "the user's two days of work\n", "staged.txt": "a new file, staged\n", "notes/todo.txt": "untracked notes\n" }

function repo(): { box: Sandbox; git: (...args: string[]) => void } {
  const box = sandbox()
  const dir = box.project
  writeConfig(dir, { ...providerConfig(llm, "openai-chat"), sandbox: { mode: "off" } })
  writeFileSync(path.join(dir, ".gitignore"), "wright.json\n")
  writeFileSync(path.join(dir, "a.txt"), "committed\n")
  const env = { PATH: process.env.PATH, HOME: box.home, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }
  const git = (...args: string[]) => void execFileSync("git", args, { cwd: dir, env })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-qm", "init")
  return { box, git }
}

/** Someone else's work, written behind wright's back: an edit, a staged new file, an untracked one. */
function workBehindItsBack(dir: string, git: (...args: string[]) => void) {
  for (const [file, content] of Object.entries(WORK)) {
    execFileSync("mkdir", ["-p", path.dirname(path.join(dir, file))])
    writeFileSync(path.join(dir, file), content)
  }
  git("add", "staged.txt")
}

async function runAndRevert(command: string, discarded: (dir: string) => void) {
  const { box, git } = repo()
  const dir = box.project
  llm.script(
    // Step 1 reads (no write, no process: wright has no reason to look at the tree again).
    toolCall("read", { filePath: "a.txt" }),
    // Step 2's request: meanwhile the work appears; the step's command discards it.
    { ...toolCall("bash", { command, description: "tidy up" }), expect: () => workBehindItsBack(dir, git) },
    text("tidied"),
  )
  const run = await wright(["run", "tidy the checkout"], { cwd: dir, env: box.env, timeoutMs: 120_000 })
  expect(run.code, run.stderr).toBe(0)
  discarded(dir)
  // The user is told as well as the model.
  expect(run.stderr).toContain("discarded uncommitted changes to")

  const db = new Database(box.dbPath, { readonly: true })
  const bash = storedParts(db).find((p) => p.type === "tool" && p.tool === "bash")
  db.close()

  served = await startServe(box)
  const client = createOpencodeClient({ baseUrl: served.url, directory: dir })
  const [session] = (await client.session.list()).data!
  const messages = (await client.session.messages({ path: { id: session!.id } })).data!
  const user = messages.find((m) => m.info.role === "user")!
  const reverted = await client.session.revert({ path: { id: session!.id }, body: { messageID: user.info.id } })
  expect(reverted.error).toBeUndefined()
  return { dir, bash, toolResult: String(bash.state.output) }
}

test("no lost work e2e - git reset --hard over someone's edit and staged file: the result lists them and the revert brings every file back", { timeout: 120_000 }, async () => {
  const { dir, toolResult, bash } = await runAndRevert("git reset --hard", (at) => {
    expect(readFileSync(path.join(at, "a.txt"), "utf8")).toBe("committed\n")
    expect(existsSync(path.join(at, "staged.txt"))).toBe(false)
  })
  expect(toolResult).toContain("discarded uncommitted changes to 2 files")
  expect(toolResult).toContain("- a.txt")
  expect(toolResult).toContain("- staged.txt")
  expect(toolResult).toContain("undoing this step")
  expect(bash.state.metadata.discarded.files.sort()).toEqual(["a.txt", "staged.txt"])
  for (const [file, content] of Object.entries(WORK)) expect(readFileSync(path.join(dir, file), "utf8")).toBe(content)
})

test("no lost work e2e - git clean -fd through sh -c removes untracked files; the revert brings them back", { timeout: 120_000 }, async () => {
  const { dir, toolResult } = await runAndRevert("sh -c 'git clean -fd'", (at) => expect(existsSync(path.join(at, "notes"))).toBe(false))
  expect(toolResult).toContain("- notes/todo.txt")
  for (const [file, content] of Object.entries(WORK)) expect(readFileSync(path.join(dir, file), "utf8")).toBe(content)
})
