// Worktrees against real git in real temp dirs: a hostile repository's `.worktreeinclude`,
// symlinks, hooks, filter and merge drivers must not read or write outside the project nor run
// anything; merge refuses over a dirty target and names the files.
import { execFileSync } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test as base } from "vitest"
import { loadConfig, writeTrustRecord } from "../../src/config"
import { createExec } from "../../src/process"
import { createWorktree, discardWorktree, listWorktrees, mergeWorktree } from "../../src/session"
import { requires } from "../lib/requires"
import { tempDir } from "../lib/tool-context"

const test = base.skipIf(requires("git"))
const exec = createExec({ env: { PATH: process.env.PATH } })

function repo() {
  const root = tempDir("wright-wt-")
  const main = path.join(root, "project")
  const data = path.join(root, "data")
  mkdirSync(main)
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: main, env: { PATH: process.env.PATH, HOME: root } }).toString()
  git("init", "-q", "-b", "main")
  writeFileSync(path.join(main, "app.txt"), "v1\n")
  git("add", "-A")
  git("commit", "-qm", "first")
  return { root, main, data, git }
}

test("worktree - .worktreeinclude copies matching untracked files, ignored ones too, and nothing tracked", async () => {
  const { main, data } = repo()
  writeFileSync(path.join(main, ".gitignore"), ".env\n")
  writeFileSync(path.join(main, ".env"), "KEY=1\n")
  mkdirSync(path.join(main, "conf"))
  writeFileSync(path.join(main, "conf", "local.json"), "{}\n")
  writeFileSync(path.join(main, "notes.txt"), "not listed\n")
  writeFileSync(path.join(main, ".worktreeinclude"), "# local files\n.env\nconf/\n")
  const made = await createWorktree({ exec, dataDir: data }, main, "feat")
  expect(made.branch).toBe("wright/feat")
  expect(made.included.copied.sort()).toEqual([".env", "conf/local.json"])
  expect(readFileSync(path.join(made.path, ".env"), "utf8")).toBe("KEY=1\n")
  expect(existsSync(path.join(made.path, "notes.txt"))).toBe(false)
  expect(path.relative(main, made.path).startsWith("..")).toBe(true)
  // Copied files are the user's local files: not work to merge or lose.
  const [listed] = await listWorktrees(exec, main)
  expect(listed).toMatchObject({ name: "feat", ahead: 0, dirty: [] })
})

test("worktree - a hostile .worktreeinclude reads nothing outside the project: ../ patterns, absolute paths, symlinked files and folders", async () => {
  const { root, main, data } = repo()
  writeFileSync(path.join(root, "secret.txt"), "outside secret\n")
  mkdirSync(path.join(root, "outside-dir"))
  writeFileSync(path.join(root, "outside-dir", "key"), "outside key\n")
  symlinkSync(path.join(root, "secret.txt"), path.join(main, "leak"))
  symlinkSync(path.join(root, "outside-dir"), path.join(main, "linkdir"))
  symlinkSync("/etc/passwd", path.join(main, "passwd"))
  writeFileSync(path.join(main, ".worktreeinclude"), ["../secret.txt", "../../etc/passwd", "/etc/passwd", "../outside-dir/**", "leak", "linkdir", "linkdir/**", "passwd", "*"].join("\n"))
  const made = await createWorktree({ exec, dataDir: data }, main, "hostile")
  const everything = walk(made.path)
  for (const file of everything) {
    const st = lstatSync(path.join(made.path, file))
    expect(st.isSymbolicLink(), `${file} is a symlink`).toBe(false)
    expect(readFileSync(path.join(made.path, file), "utf8")).not.toMatch(/outside secret|outside key|root:x/)
  }
  expect(made.included.skipped.map((s) => s.file).sort()).toEqual(["leak", "linkdir", "passwd"])
})

test("worktree - a symlink the branch has where the main checkout has a folder is not written through", async () => {
  const { root, main, data, git } = repo()
  const target = path.join(root, "target")
  mkdirSync(target)
  symlinkSync(target, path.join(main, "conf"))
  git("add", "conf")
  git("commit", "-qm", "conf is a link")
  // The main checkout now has a real folder there (uncommitted), with an untracked file in it.
  rmSync(path.join(main, "conf"))
  mkdirSync(path.join(main, "conf"))
  writeFileSync(path.join(main, "conf", "x"), "payload\n")
  writeFileSync(path.join(main, ".worktreeinclude"), "conf/\n")
  const made = await createWorktree({ exec, dataDir: data }, main, "swap")
  expect(readdirSync(target)).toEqual([])
  expect(made.included.skipped.map((s) => s.file)).toEqual(["conf/x"])
})

test("worktree - a .worktreeinclude that is a symlink is refused", async () => {
  const { root, main, data } = repo()
  writeFileSync(path.join(root, "patterns"), "*\n")
  symlinkSync(path.join(root, "patterns"), path.join(main, ".worktreeinclude"))
  await expect(createWorktree({ exec, dataDir: data }, main, "x")).rejects.toThrow(/not a regular file/)
})

test("worktree - making, merging and discarding runs none of the repository's hooks, filter or merge drivers", async () => {
  const { root, main, data, git } = repo()
  const marker = path.join(root, "ran")
  const evil = (what: string) => `sh -c 'echo ${what} >> ${marker}; cat'`
  writeFileSync(path.join(main, ".gitattributes"), "*.txt filter=evil merge=evil\n")
  git("add", ".gitattributes")
  git("commit", "-qm", "attributes")
  git("config", "filter.evil.smudge", evil("smudge"))
  git("config", "filter.evil.clean", evil("clean"))
  git("config", "merge.evil.driver", `sh -c 'echo merge >> ${marker}; exit 0'`)
  git("config", "commit.gpgSign", "true")
  git("config", "gpg.program", `sh -c 'echo gpg >> ${marker}; exit 1'`)
  for (const hook of ["post-checkout", "pre-commit", "post-merge", "pre-merge-commit", "commit-msg", "post-commit"]) {
    writeFileSync(path.join(main, ".git", "hooks", hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`, { mode: 0o755 })
  }
  const made = await createWorktree({ exec, dataDir: data }, main, "quiet")
  // A change on both sides of one file: the merge driver would be asked.
  writeFileSync(path.join(made.path, "app.txt"), "v1\nworktree\n")
  writeFileSync(path.join(main, "app.txt"), "main\nv1\n")
  git("commit", "-qam", "main side", "--no-verify", "--no-gpg-sign")
  rmSync(marker, { force: true })
  await mergeWorktree(exec, main, "quiet").catch(() => undefined)
  await discardWorktree(exec, main, "quiet", { force: true })
  expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("")
})

test("worktree - merge refuses over uncommitted changes in the main checkout, names the files and changes nothing", async () => {
  const { main, data, git } = repo()
  const made = await createWorktree({ exec, dataDir: data }, main, "edit")
  writeFileSync(path.join(made.path, "app.txt"), "v2\n")
  writeFileSync(path.join(made.path, "new.txt"), "new\n")
  writeFileSync(path.join(main, "app.txt"), "mine, not committed\n")
  const before = git("rev-parse", "HEAD")
  const refused = await mergeWorktree(exec, main, "edit").catch((e: Error & { files?: string[] }) => e)
  expect(refused).toBeInstanceOf(Error)
  expect((refused as Error).message).toMatch(/uncommitted changes to files the merge would write: app\.txt/)
  expect((refused as { files: string[] }).files).toEqual(["app.txt"])
  expect(readFileSync(path.join(main, "app.txt"), "utf8")).toBe("mine, not committed\n")
  expect(existsSync(path.join(main, "new.txt"))).toBe(false)
  expect(git("rev-parse", "HEAD")).toBe(before)
  // Discarding unmerged work needs force.
  await expect(discardWorktree(exec, main, "edit")).rejects.toThrow(/1 commit\(s\) not merged.*--force/)
})

test("worktree - merge refuses to overwrite a file the main checkout ignores (an .env) that the branch added", async () => {
  const { main, data, git } = repo()
  writeFileSync(path.join(main, ".gitignore"), ".env\n")
  git("add", ".gitignore")
  git("commit", "-qm", "ignore")
  writeFileSync(path.join(main, ".env"), "MY_SECRET=1\n")
  const made = await createWorktree({ exec, dataDir: data }, main, "env")
  writeFileSync(path.join(made.path, ".env"), "AGENT=1\n")
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "add", "-f", ".env"], { cwd: made.path })
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "agent adds .env"], { cwd: made.path })
  await expect(mergeWorktree(exec, main, "env")).rejects.toThrow(/would write: \.env/)
  expect(readFileSync(path.join(main, ".env"), "utf8")).toBe("MY_SECRET=1\n")
})

test("worktree - merge that conflicts with the main branch's commits is undone and names the file", async () => {
  const { main, data, git } = repo()
  const made = await createWorktree({ exec, dataDir: data }, main, "both")
  writeFileSync(path.join(made.path, "app.txt"), "worktree\n")
  writeFileSync(path.join(main, "app.txt"), "main\n")
  git("commit", "-qam", "main side")
  const head = git("rev-parse", "HEAD")
  await expect(mergeWorktree(exec, main, "both")).rejects.toThrow(/both changed app\.txt; the merge was undone/)
  expect(readFileSync(path.join(main, "app.txt"), "utf8")).toBe("main\n")
  expect(git("rev-parse", "HEAD")).toBe(head)
  expect(git("status", "--porcelain")).toBe("")
})

test("worktree - a trusted project's trust carries over to its worktree only when its config is committed as the user trusted it", async () => {
  const { root, main, git } = repo()
  const env = { PATH: process.env.PATH, HOME: root, XDG_DATA_HOME: path.join(root, "xdg-data"), XDG_CONFIG_HOME: path.join(root, "xdg-config") }
  const dataDir = path.join(env.XDG_DATA_HOME, "wright")
  writeFileSync(path.join(main, "wright.json"), JSON.stringify({ permission: { bash: "allow" } }))
  git("add", "wright.json")
  git("commit", "-qm", "config")
  const trust = async (dir: string) => writeTrustRecord(dataDir, dir, (await loadConfig({ directory: dir, env, home: root })).trust.hash)
  const trusted = async (dir: string) => (await loadConfig({ directory: dir, env, home: root })).trust.trusted
  // Not trusted: nothing to carry.
  expect((await createWorktree({ exec, dataDir, env }, main, "a")).trusted).toBe(false)
  await trust(main)
  const b = await createWorktree({ exec, dataDir, env }, main, "b")
  expect(b.trusted).toBe(true)
  expect(await trusted(b.path)).toBe(true)
  // Trusted with an uncommitted config change: the worktree's (HEAD's) config is not what was trusted.
  writeFileSync(path.join(main, "wright.json"), JSON.stringify({ permission: { bash: "deny" } }))
  await trust(main)
  const c = await createWorktree({ exec, dataDir, env }, main, "c")
  expect(c.trusted).toBe(false)
  expect(await trusted(c.path)).toBe(false)
})

test("worktree - names that could leave the worktrees folder or break a branch name are refused", async () => {
  const { main, data } = repo()
  for (const bad of ["../x", "a/b", "-rf", ".hidden", "x..y", "x.lock", ""]) {
    await expect(createWorktree({ exec, dataDir: data }, main, bad), bad).rejects.toThrow(/worktree name/)
  }
})

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    if (e.name === ".git") return []
    return e.isDirectory() ? walk(p, base) : [path.relative(base, p)]
  })
}
