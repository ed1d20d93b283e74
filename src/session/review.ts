// The built-in /review: wright gathers the diff with its own git and hands it to the model
// with the review instructions, so the model reviews exactly what the user asked for:
//   /review                 uncommitted changes (staged, unstaged and untracked files)
//   /review <commit>        one commit
//   /review <branch>        a branch against its base (the merge base with main/master/…)
//   /review branch [base]   the current branch against its base (or the base given)
// git runs through worktreeGit (sandboxed read-only when the sandbox is on, filter drivers
// blanked when off) with external diff and textconv turned off: a cloned repository's
// .git/config or .gitattributes cannot make the review run a program.
import path from "node:path"
import type { Exec, Sandbox } from "../process"
import { worktreeGit } from "../process"
import { BadRequestError } from "../protocol"
import template from "./prompt/review.txt"
import { splitArguments } from "./command-expand"

/** Past this many characters the diff is cut, and the model is told which files it does not see. */
const MAX_DIFF = 150_000
/** Untracked files beyond this many are only listed. */
const MAX_UNTRACKED = 50
const BASES = ["main", "master", "trunk", "develop"]
const DIFF_FLAGS = ["--no-ext-diff", "--no-textconv", "--no-color", "-M"]

export interface ReviewDeps {
  exec: Exec
  sandbox?: Sandbox
  /** The git worktree the session works in. */
  worktree: string
}

export const REVIEW_COMMAND = {
  name: "review",
  description: "review changes: uncommitted (default), a commit, a branch, or `branch [base]` for the current one",
  source: "builtin" as const,
}

/** The /review prompt for `args`: the instructions, what is reviewed, and the diff. Throws BadRequestError when there is nothing to review. */
export async function reviewPrompt(args: string, deps: ReviewDeps): Promise<string> {
  const git: Git = async (argv, allowFail = false, ok = [0]) => {
    const r = await worktreeGit(deps.exec, deps.sandbox, argv, { cwd: deps.worktree, timeout: 60_000 })
    const fine = r.code !== null && ok.includes(r.code)
    if (!fine && !allowFail) throw new BadRequestError({ message: `/review: git ${argv[0]} failed: ${r.stderr.trim().split("\n")[0] || `exit ${r.code}`}` })
    return fine ? r.stdout.toString() : undefined
  }
  if ((await git(["rev-parse", "--is-inside-work-tree"], true))?.trim() !== "true") throw new BadRequestError({ message: "/review needs a git repository: this folder is not inside one" })
  const [first, second] = splitArguments(args)
  const target = await resolveTarget(first, second, git)
  const diff = await target.diff()
  if (!diff.trim()) throw new BadRequestError({ message: `Nothing to review: ${target.empty}` })
  return template.trim().replace("{{WHAT}}", target.what).replace("{{DIFF}}", bounded(diff))
}

/** git's output; undefined when it exited with a code outside `ok` (default [0]) and `allowFail`, else such an exit throws. */
type Git = (argv: string[], allowFail?: boolean, ok?: number[]) => Promise<string | undefined>

async function resolveTarget(first: string | undefined, second: string | undefined, git: Git): Promise<{ what: string; empty: string; diff: () => Promise<string> }> {
  if (!first) {
    return {
      what: "the uncommitted changes in the working tree (staged, unstaged, and new files)",
      empty: "there are no uncommitted changes (give a commit or a branch: /review <commit>, /review <branch>)",
      diff: () => uncommitted(git),
    }
  }
  if (first.startsWith("-")) throw new BadRequestError({ message: `/review: unknown option ${first}; use /review, /review <commit>, /review <branch> or /review branch [base]` })
  if (first === "branch") {
    const head = (await git(["rev-parse", "--abbrev-ref", "HEAD"]))!.trim()
    const base = second ?? (await defaultBase(git, head))
    if (!base) throw new BadRequestError({ message: `/review branch: no base branch found for ${head} (none of ${BASES.join(", ")}); name one: /review branch <base>` })
    return againstBase(head, "HEAD", base, git)
  }
  const isBranch = (await git(["show-ref", "--verify", "--quiet", `refs/heads/${first}`], true)) !== undefined
  if (isBranch) {
    const base = second ?? (await defaultBase(git, first))
    if (!base) throw new BadRequestError({ message: `/review ${first}: no base branch found (none of ${BASES.join(", ")}); name one: /review ${first} <base>` })
    return againstBase(first, `refs/heads/${first}`, base, git)
  }
  const commit = (await git(["rev-parse", "--verify", "--quiet", `${first}^{commit}`], true))?.trim()
  if (!commit) throw new BadRequestError({ message: `/review: "${first}" is neither a commit nor a branch of this repository` })
  return {
    what: `commit ${commit.slice(0, 12)}`,
    empty: `commit ${commit.slice(0, 12)} changes no file`,
    diff: async () => (await git(["show", ...DIFF_FLAGS, "--format=commit %H%nAuthor: %an <%ae>%n%n%B", commit]))!,
  }
}

function againstBase(name: string, ref: string, base: string, git: Git) {
  return {
    what: `branch ${name} against its base ${base} (the changes since they diverged)`,
    empty: `${name} has no changes against ${base}`,
    diff: async () => {
      const log = await git(["log", "--no-color", "--format=%h %s", `${base}..${ref}`], true)
      const diff = await git(["diff", ...DIFF_FLAGS, `${base}...${ref}`], true)
      if (diff === undefined) throw new BadRequestError({ message: `/review: cannot compare ${name} with ${base}: is ${base} a branch or commit here?` })
      return diff.trim() ? `Commits:\n${log ?? ""}\n${diff}` : ""
    },
  }
}

/** The first usual base branch that exists and is not `branch` itself (origin's default first). */
async function defaultBase(git: Git, branch: string): Promise<string | undefined> {
  const origin = (await git(["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], true))?.trim()
  for (const candidate of [origin, ...BASES].filter((c): c is string => !!c)) {
    if (candidate === branch || candidate === `origin/${branch}`) continue
    const ref = candidate.startsWith("origin/") ? `refs/remotes/${candidate}` : `refs/heads/${candidate}`
    if ((await git(["rev-parse", "--verify", "--quiet", ref], true)) !== undefined) return candidate
  }
  return undefined
}

async function uncommitted(git: Git): Promise<string> {
  const hasHead = (await git(["rev-parse", "--verify", "--quiet", "HEAD"], true)) !== undefined
  const tracked = hasHead ? (await git(["diff", ...DIFF_FLAGS, "HEAD"]))! : (await git(["diff", ...DIFF_FLAGS, "--cached"]))! + (await git(["diff", ...DIFF_FLAGS]))!
  const untracked = (await git(["ls-files", "-z", "--others", "--exclude-standard"]))!.split("\0").filter(Boolean)
  const shown: string[] = []
  for (const file of untracked.slice(0, MAX_UNTRACKED)) {
    // --no-index exits 1 when the files differ, which they always do here.
    shown.push((await git(["diff", ...DIFF_FLAGS, "--no-index", "--", "/dev/null", file], true, [0, 1])) ?? `new file ${file} (unreadable)\n`)
  }
  const rest = untracked.slice(MAX_UNTRACKED)
  const listed = rest.length ? `\nNew files not shown (${rest.length}): ${rest.map((f) => path.normalize(f)).join(", ")}\n` : ""
  return tracked + shown.join("") + listed
}

/** The diff cut at MAX_DIFF on a file boundary, naming the files left out. */
function bounded(diff: string): string {
  if (diff.length <= MAX_DIFF) return diff
  const cut = diff.lastIndexOf("\ndiff --git ", MAX_DIFF)
  const kept = diff.slice(0, cut > 0 ? cut : MAX_DIFF)
  const omitted = [...diff.slice(kept.length).matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1])
  return `${kept}\n\n[The diff is cut at ${MAX_DIFF} characters. Files not shown: ${omitted.join(", ") || "the rest of the last file"}. Read them with your tools if they matter.]`
}
