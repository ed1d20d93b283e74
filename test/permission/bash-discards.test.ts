// Which command lines throw away work: the bash analysis's commands (wrappers looked through)
// read by discardingCommands. The table is the specification.
import { expect, test } from "vitest"
import { analyzeBash, discardingCommands, type BashCommand } from "../../src/permission"

async function discards(command: string) {
  const requests = await analyzeBash(command, { cwd: process.cwd(), project: process.cwd() })
  const commands = (requests.find((r) => r.permission === "bash")?.metadata.commands ?? []) as BashCommand[]
  return discardingCommands(commands).map((d) => `${d.kind}: ${d.text}`)
}

test.each([
  ["git reset --hard", ["worktree: git reset --hard"]],
  ["git reset --hard HEAD~1", ["worktree: git reset --hard HEAD~1"]],
  ["git checkout -- a.txt", ["worktree: git checkout -- a.txt"]],
  ["git checkout .", ["worktree: git checkout ."]],
  ["git restore src", ["worktree: git restore src"]],
  ["git clean -f", ["worktree: git clean -f"]],
  ["git clean -xdf", ["worktree: git clean -xdf"]],
  ["git switch --discard-changes main", ["worktree: git switch --discard-changes main"]],
  ["git stash drop", ["stash: git stash drop"]],
  ["git stash clear", ["stash: git stash clear"]],
  ["git branch -D feature", ["branch: git branch -D feature"]],
  ["git branch --delete --force feature", ["branch: git branch --delete --force feature"]],
  // Through wrappers and global options.
  ["sh -c 'git clean -fd'", ["worktree: git clean -fd"]],
  ["env GIT_DIR=.git git reset --hard", ["worktree: git reset --hard"]],
  ["echo a.txt | xargs git checkout --", ["worktree: git checkout --"]],
  ["git -C sub -c core.x=1 reset --hard", ["worktree: git -C sub -c core.x=1 reset --hard"]],
  ["timeout 5 bash -c 'cd x && git stash drop'", ["stash: git stash drop"]],
  ["true && (git restore .)", ["worktree: git restore ."]],
])("bash discards - %s is found", async (command, expected) => {
  expect(await discards(command)).toEqual(expected)
})

test.each(["git status", "git reset --soft HEAD~1", "git reset", "git clean -n", "git clean -fdn", "git checkout -b feature", "git checkout", "git stash", "git stash pop", "git branch -d feature", "git switch main", "echo git reset --hard"])(
  "bash discards - %s keeps the work",
  async (command) => {
    expect(await discards(command)).toEqual([])
  },
)
