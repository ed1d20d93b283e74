// A worktree per session through the built binary and the scripted model: `run -w` edits in
// the worktree and leaves the main checkout byte-identical; `worktree merge` brings the change
// over, refusing first while the target has uncommitted changes to the same file; the API's
// POST /session {worktree} makes one too, and sessions show their branch.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test as base } from "vitest"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { fingerprint } from "../lib/fingerprint"
import { text, toolCall } from "../lib/llm-server"
import { requires } from "../lib/requires"
import { send, startServe, stopServe } from "./serve-helpers"

const test = base.skipIf(requires("git"))
const llm = useLLMServer()

function project() {
  const box = sandbox()
  // The provider is the user's (global config): the worktree holds HEAD's files only.
  const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(global, { recursive: true })
  writeConfig(global, providerConfig(llm, "openai-chat"))
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: box.project, env: { PATH: process.env.PATH, HOME: box.home } }).toString()
  git("init", "-q", "-b", "main")
  writeFileSync(path.join(box.project, "app.py"), "print('v1')\n")
  git("add", "-A")
  git("commit", "-qm", "first")
  // Uncommitted work of the user's in the main checkout, which the run must not see or touch.
  writeFileSync(path.join(box.project, "scratch.txt"), "mine\n")
  return { box, git }
}

/** Every file of the main checkout but its .git, with mtime, mode and content. */
const checkout = (dir: string) => Object.fromEntries(Object.entries(fingerprint(dir)).filter(([f]) => !f.startsWith(".git/")))

test("worktree e2e - run -w edits in the worktree, the main checkout stays byte-identical, merge refuses over a dirty target then brings the change", { timeout: 120_000 }, async () => {
  const { box, git } = project()
  const before = checkout(box.project)
  llm.script(toolCall("edit", { filePath: "app.py", oldString: "v1", newString: "v2" }), text("changed"))
  const run = await wright(["run", "-w", "feat", "make it v2"], { cwd: box.project, env: box.env })
  expect(run.code, run.stderr).toBe(0)
  expect(run.stderr).toMatch(/worktree feat on branch wright\/feat/)
  expect(checkout(box.project)).toEqual(before)

  const list = await wright(["worktree", "list", "--format", "json"], { cwd: box.project, env: box.env })
  const [wt] = JSON.parse(list.stdout)
  expect(wt).toMatchObject({ name: "feat", branch: "wright/feat", ahead: 0, dirty: ["app.py"] })
  expect(readFileSync(path.join(wt.path, "app.py"), "utf8")).toBe("print('v2')\n")

  // The session ran in the worktree and says so wherever sessions are listed.
  const sessions = await wright(["session", "list", "--format", "json"], { cwd: box.project, env: box.env })
  expect(JSON.parse(sessions.stdout)[0]).toMatchObject({ directory: wt.path, worktree: { name: "feat", branch: "wright/feat" } })
  const table = await wright(["session", "list"], { cwd: box.project, env: box.env })
  expect(table.stdout).toMatch(/\[wright\/feat\]/)

  // The user changed the same file in the main checkout: merge refuses and names it.
  writeFileSync(path.join(box.project, "app.py"), "print('mine')\n")
  const refused = await wright(["worktree", "merge", "feat"], { cwd: box.project, env: box.env })
  expect(refused.code).toBe(1)
  expect(refused.stderr).toMatch(/uncommitted changes to files the merge would write: app\.py/)
  expect(readFileSync(path.join(box.project, "app.py"), "utf8")).toBe("print('mine')\n")

  git("checkout", "--", "app.py")
  const merged = await wright(["worktree", "merge", "feat"], { cwd: box.project, env: box.env })
  expect(merged.code, merged.stderr).toBe(0)
  expect(merged.stdout).toMatch(/Merged wright\/feat: 1 file\(s\): app\.py/)
  expect(readFileSync(path.join(box.project, "app.py"), "utf8")).toBe("print('v2')\n")
  expect(readFileSync(path.join(box.project, "scratch.txt"), "utf8")).toBe("mine\n")
  expect(git("log", "-1", "--format=%s", "wright/feat").trim()).toBe("wright: uncommitted work of worktree feat")

  // Merged: discarding loses nothing, so it needs no --force.
  const discarded = await wright(["worktree", "discard", "feat"], { cwd: box.project, env: box.env })
  expect(discarded.code, discarded.stderr).toBe(0)
  expect(git("branch", "--list", "wright/*").trim()).toBe("")
})

test("worktree e2e - POST /session {worktree} makes the worktree and the session lives there; a bad name is a 400 naming the field", { timeout: 60_000 }, async () => {
  const { box } = project()
  const served = await startServe(box)
  try {
    const headers = { "content-type": "application/json" }
    const made = await send(served.url, "POST", "/session", { headers, body: JSON.stringify({ worktree: "api" }) })
    expect(made.status, made.text).toBe(200)
    const session = made.json()
    expect(session.worktree).toEqual({ name: "api", branch: "wright/api" })
    expect(session.directory).not.toBe(box.project)
    expect(readFileSync(path.join(session.directory, "app.py"), "utf8")).toBe("print('v1')\n")
    // The worktree is now a project of this server: its sessions list there.
    const listed = await send(served.url, "GET", `/session?directory=${encodeURIComponent(session.directory)}`)
    expect(listed.json().map((s: { id: string }) => s.id)).toContain(session.id)
    const bad = await send(served.url, "POST", "/session", { headers, body: JSON.stringify({ worktree: "../escape" }) })
    expect(bad.status).toBe(400)
    expect(bad.json().data.message).toMatch(/body\.worktree: worktree name "\.\.\/escape"/)
  } finally {
    await stopServe(served)
  }
})

test("worktree e2e - a run -w that fails before doing anything (no message, an unknown model) leaves no worktree, branch or empty session behind; one that ran keeps its worktree", { timeout: 60_000 }, async () => {
  const { box, git } = project()
  const branches = () => git("branch", "--list", "wright/*").trim()
  const nothing = await wright(["run", "-w", "idle"], { cwd: box.project, env: box.env })
  expect(nothing.code).toBe(1)
  expect(nothing.stderr).toContain("worktree idle removed: nothing was done in it")
  expect(branches()).toBe("")
  expect(git("worktree", "list")).not.toContain("idle")

  // A model that does not exist: the run fails once the session was made, before a message was stored.
  const unknown = await wright(["run", "-w", "unknown", "--model", "nosuch/model", "hi"], { cwd: box.project, env: box.env })
  expect(unknown.code).toBe(1)
  expect(unknown.stderr).toContain('Unknown provider "nosuch"')
  expect(unknown.stderr).toContain("worktree unknown removed")
  expect(branches()).toBe("")
  expect((await wright(["session", "list"], { cwd: box.project, env: box.env })).stdout).not.toContain("unknown")

  // A run that answered (and changed nothing) has a session there: its worktree stays.
  llm.script(text("Nothing to change."))
  const ran = await wright(["run", "-w", "kept", "look around"], { cwd: box.project, env: box.env })
  expect(ran.code, ran.stderr).toBe(0)
  expect(ran.stderr).not.toContain("removed")
  expect(branches()).toContain("wright/kept")
})
