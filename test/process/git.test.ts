// wright's own git (process/git.ts) against a hostile repository's config: each setting that
// names a program is set in the repository, proved to run under plain git, and then not run by
// runGit / worktreeGit. A marker file outside the repository tells whether it ran.
import { execFileSync } from "node:child_process"
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, expect, test } from "vitest"
import { createExec, resolveSandbox, runGit, worktreeGit, type Sandbox } from "../../src/process"
import { tempDir } from "../lib/tool-context"

const env = { PATH: process.env.PATH, HOME: tempDir("wright-git-home-"), LANG: "C.UTF-8" }
const exec = createExec({ env })
const boxes: Sandbox[] = []
afterAll(() => boxes.forEach((b) => b.state === "on" && b.dispose()))

/** A repository whose config runs `marker`'s trap from fsmonitor, hooks, a filter, the pager and ssh. */
function hostileRepo(root = tempDir("wright-git-")) {
  const repo = path.join(root, "repo")
  mkdirSync(repo)
  const marker = path.join(root, "ran")
  const trap = path.join(root, "trap.sh")
  writeFileSync(trap, `#!/bin/sh\necho "$0 $*" >> "${marker}"\ncat\n`)
  chmodSync(trap, 0o755)
  const hooks = path.join(root, "hooks")
  mkdirSync(hooks)
  for (const h of ["post-index-change", "reference-transaction"]) writeFileSync(path.join(hooks, h), `#!/bin/sh\necho hook >> "${marker}"\n`, { mode: 0o755 })
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo, stdio: "pipe", env })
  git("init", "-q")
  writeFileSync(path.join(repo, "a.txt"), "one\n")
  writeFileSync(path.join(repo, ".gitattributes"), "* filter=evil\n")
  git("add", "-A")
  git("commit", "-qm", "init")
  appendFileSync(
    path.join(repo, ".git", "config"),
    `[core]\n\tfsmonitor = ${trap}\n\thooksPath = ${hooks}\n\tpager = ${trap}\n\tsshCommand = ${trap}\n[filter "evil"]\n\tclean = ${trap}\n\tsmudge = ${trap}\n\trequired = true\n[alias]\n\tst = !${trap}\n`,
  )
  // Same size, other content, mtime in the past: git must read it (through the filter) to compare.
  writeFileSync(path.join(repo, "a.txt"), "two\n")
  execFileSync("touch", ["-d", "2001-01-01", path.join(repo, "a.txt")])
  return { repo, marker }
}

test("git - the hostile fixture's settings run under plain git (the trap works)", () => {
  const { repo, marker } = hostileRepo()
  execFileSync("git", ["status"], { cwd: repo, stdio: "ignore", env })
  expect(existsSync(marker)).toBe(true)
})

test("git - runGit runs no fsmonitor, hook, pager or ssh command of the repository's config", async () => {
  const { repo, marker } = hostileRepo()
  // rev-list and ls-remote (a transport) need neither the index nor the work tree.
  const root = await runGit(exec, ["rev-list", "--max-parents=0", "HEAD"], { cwd: repo })
  expect(root.code).toBe(0)
  expect(root.stdout.toString()).toMatch(/^[0-9a-f]{40}\n$/)
  const remote = await runGit(exec, ["ls-remote", "ssh://example.invalid/x"], { cwd: repo, timeout: 10_000 })
  expect(remote.code).not.toBe(0)
  await runGit(exec, ["log", "-1", "--oneline"], { cwd: repo })
  await runGit(exec, ["update-index", "--refresh"], { cwd: repo, config: ["filter.evil.clean=", "filter.evil.required=false"] })
  expect(existsSync(marker)).toBe(false)
})

test("git - worktreeGit status without the sandbox: the repository's filter drivers are blanked, the status still right", async () => {
  const { repo, marker } = hostileRepo()
  const r = await worktreeGit(exec, undefined, ["status", "--short"], { cwd: repo })
  expect(r.code).toBe(0)
  expect(r.stdout.toString()).toBe(" M a.txt\n")
  expect(existsSync(marker)).toBe(false)
})

test("git - worktreeGit status in the sandbox: read-only, no network; a filter that runs cannot write outside", async () => {
  // Outside /tmp: the sandbox empties /tmp (its sockets), so a trap there could not even start,
  // and this case is about a filter that does run inside.
  const base = path.resolve(import.meta.dirname, "../../.tmp")
  mkdirSync(base, { recursive: true })
  const { repo, marker } = hostileRepo(mkdtempSync(path.join(base, "wright-git-")))
  const box = await resolveSandbox({ config: {}, worktree: repo, directory: repo, env, home: env.HOME, restrictReads: false })
  boxes.push(box)
  expect(box.state).toBe("on")
  const r = await worktreeGit(exec, box, ["status", "--short"], { cwd: repo })
  // The filter ran inside (git needed it) but its marker, outside the repository, is read-only there.
  expect(existsSync(marker)).toBe(false)
  expect(r.stdout.toString()).toContain("a.txt")
  // Nor can git in there write into the worktree the sandbox would let a command write.
  const w = await worktreeGit(exec, box, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x"], { cwd: repo })
  expect(w.code).not.toBe(0)
  rmSync(marker, { force: true })
})
