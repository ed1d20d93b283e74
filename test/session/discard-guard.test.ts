// No lost work in process: a subagent's `git reset --hard` is guarded like its parent's (the
// child's undo brings the files back), and dropped stash entries and deleted branches are
// named with the git command that brings each back. Real git, sandbox off.
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test as base } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"
import { requires } from "../lib/requires"

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

const GIT_ENV = { PATH: process.env.PATH, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }
const git = (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, env: { ...GIT_ENV, HOME: dir } }).toString()

function initRepo(dir: string) {
  writeFileSync(path.join(dir, ".gitignore"), "wright.json\n")
  writeFileSync(path.join(dir, "a.txt"), "committed\n")
  git(dir, "init", "-q")
  git(dir, "add", "-A")
  git(dir, "commit", "-qm", "init")
}

const toolOutput = (core: Awaited<ReturnType<typeof testCore>>, sessionID: string) =>
  core.app.sessions
    .messages(sessionID)
    .flatMap((m) => m.parts)
    .filter((p) => p.type === "tool" && p.tool === "bash")
    .map((p) => (p.type === "tool" && p.state.status === "completed" ? p.state.output : ""))
    .join("\n")

test("discard guard - a subagent's git reset --hard is reported, and undoing the child's turn brings the work back", async () => {
  const core = await testCore({ llm, config: { sandbox: { mode: "off" } }, prepare: initRepo })
  const dir = core.box.project
  writeFileSync(path.join(dir, "a.txt"), "uncommitted work\n")
  writeFileSync(path.join(dir, "new.txt"), "new, staged\n")
  git(dir, "add", "new.txt")
  llm.script(
    toolCall("task", { description: "Reset", prompt: "reset the tree", subagent_type: "general" }),
    toolCall("bash", { command: "env GIT_PAGER=cat git reset --hard", description: "reset" }),
    text("reset done"),
    text("the child reset it"),
  )
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("delegate the reset"))
  const child = core.app.sessions.children(session.id)[0]!
  const output = toolOutput(core, child.id)
  expect(output).toContain("discarded uncommitted changes to 2 files:\n- a.txt\n- new.txt")
  expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("committed\n")

  const user = core.app.sessions.messages(child.id).find((m) => m.info.role === "user")!
  await core.client.session.revert(child.id, { messageID: user.info.id })
  expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("uncommitted work\n")
  expect(readFileSync(path.join(dir, "new.txt"), "utf8")).toBe("new, staged\n")
  await core.close()
})

test("discard guard - a dropped stash entry and a deleted unmerged branch are named with the command that restores each", async () => {
  const core = await testCore({ llm, config: { sandbox: { mode: "off" } }, prepare: initRepo })
  const dir = core.box.project
  git(dir, "checkout", "-qb", "feature")
  writeFileSync(path.join(dir, "f.txt"), "feature work\n")
  git(dir, "add", "f.txt")
  git(dir, "commit", "-qm", "feature")
  const tip = git(dir, "rev-parse", "HEAD").trim()
  git(dir, "checkout", "-q", "-")
  writeFileSync(path.join(dir, "a.txt"), "stashed work\n")
  git(dir, "stash", "push", "-q", "-m", "my stash")
  const stash = git(dir, "rev-parse", "stash@{0}").trim()
  llm.script(toolCall("bash", { command: "git stash drop && git branch -D feature", description: "tidy" }), text("tidied"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("tidy"))
  const output = toolOutput(core, session.id)
  expect(output).toContain(`- git stash store -m "On master: my stash" ${stash}`.replace("master", git(dir, "branch", "--show-current").trim()))
  expect(output).toContain(`- git branch feature ${tip}`)
  // The commands given bring them back.
  git(dir, "branch", "feature", tip)
  git(dir, "stash", "store", "-m", "my stash", stash)
  expect(git(dir, "stash", "list")).toContain("my stash")
  await core.close()
})

test("discard guard - in a linked git worktree, git clean -fd is reported and undone like in the main checkout", async () => {
  const core = await testCore({
    llm,
    config: { sandbox: { mode: "off" } },
    // The project is a linked worktree of a repository next to it.
    prepare: (project) => {
      const main = `${project}-main`
      execFileSync("mkdir", ["-p", main])
      initRepo(main)
      execFileSync("rmdir", [project])
      git(main, "worktree", "add", "-q", project)
    },
  })
  const dir = core.box.project
  execFileSync("mkdir", ["-p", path.join(dir, "scratch")])
  writeFileSync(path.join(dir, "scratch/idea.md"), "an untracked idea\n")
  llm.script(toolCall("bash", { command: "sh -c 'git clean -fd'", description: "clean" }), text("cleaned"))
  const session = await core.client.session.create()
  await core.client.session.prompt(session.id, prompt("clean up"))
  expect(toolOutput(core, session.id)).toContain("- scratch/idea.md")
  const user = core.app.sessions.messages(session.id).find((m) => m.info.role === "user")!
  await core.client.session.revert(session.id, { messageID: user.info.id })
  expect(readFileSync(path.join(dir, "scratch/idea.md"), "utf8")).toBe("an untracked idea\n")
  await core.close()
})
