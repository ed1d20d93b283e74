// A session's projectID is the repository's root commit (as in OpenCode), asked of real git; in
// a subfolder of the repository it is the same, outside any repository "global". A recording
// spawner shows git runs through the App's spawner, with the App's environment.
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test as base } from "vitest"
import { createExec, GIT_SAFE_CONFIG, type Exec } from "../../src/process"
import { createApp, type App } from "../../src/session"
import { openStore } from "../../src/storage"
import { sandbox } from "../lib/e2e"
import { requires } from "../lib/requires"

// The project id is the repository's root commit: without git this test is skipped, saying so.
const test = base.skipIf(requires("git"))

const apps: App[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.dispose()))
})

async function projectOf(directory: string, box: ReturnType<typeof sandbox>, started: string[][] = []) {
  const spawner = createExec({ env: box.env })
  const exec: Exec = (argv, o) => (started.push(argv), spawner(argv, o))
  const app = await createApp({ directory, store: openStore(":memory:"), env: box.env, home: box.home, version: "test", exec })
  apps.push(app)
  return app.sessions.create().projectID
}

test("project id - the root commit in a repository and in its subfolders, through the App's spawner; global outside one", async () => {
  const box = sandbox()
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: box.project, env: box.env, encoding: "utf8" }).trim()
  expect(await projectOf(box.project, box)).toBe("global")

  git("init", "-q")
  writeFileSync(path.join(box.project, "a.txt"), "one\n")
  git("add", "a.txt")
  git("commit", "-qm", "first")
  const root = git("rev-list", "--max-parents=0", "HEAD")
  writeFileSync(path.join(box.project, "a.txt"), "two\n")
  git("commit", "-qam", "second")
  expect(root).toMatch(/^[0-9a-f]{40}$/)

  const started: string[][] = []
  expect(await projectOf(box.project, box, started)).toBe(root)
  // With its code-running settings off (process/git.ts).
  expect(started).toContainEqual(["git", "--no-optional-locks", ...GIT_SAFE_CONFIG, "rev-list", "--max-parents=0", "HEAD"])
  const sub = path.join(box.project, "src", "deep")
  mkdirSync(sub, { recursive: true })
  expect(await projectOf(sub, box)).toBe(root)
})
