// The handlers of `wright worktree …` and the `-w` of run and the TUI: git only, no core.
import { existsSync } from "node:fs"
import path from "node:path"
import { createExec } from "../../process"
import { createWorktree, discardWorktree, listWorktrees, mergeWorktree, WorktreeError, type CreatedWorktree } from "../../session"
import { databasePath, openStore } from "../../storage"
import { xdg } from "../../util"
import type { WorktreeArgs } from "../args"
import { readLine } from "../line-input"
import { dim, tildify, UserError, yellow } from "../ui"

const out = (s: string) => void process.stdout.write(s)
const exec = () => createExec({ env: process.env })
const dirOf = (args: { dir?: string }) => path.resolve(args.dir ?? process.cwd())

/** A WorktreeError is the user's to fix: printed as is, exit 1. */
async function userErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof WorktreeError) throw new UserError(e.message)
    throw e
  }
}

/**
 * `-w [name]` of run and the TUI: makes the worktree and returns its folder, the session's
 * directory from then on. Says on stderr where it is and what `.worktreeinclude` brought.
 */
export async function openWorktree(dir: string, name: string | true): Promise<CreatedWorktree> {
  // `-w "fix the bug"`: the prompt was taken for the name.
  if (typeof name === "string" && (/\s/.test(name) || name === "--")) throw new UserError(`-w takes the worktree's name, and got "${name}": write -w <name> "<prompt>", or "<prompt>" -w (or --worktree= "<prompt>") for a generated name`)
  const made = await userErrors(() => createWorktree({ exec: exec(), dataDir: xdg(process.env).data, env: process.env }, dir, name === true ? undefined : name))
  process.stderr.write(dim(`worktree ${made.name} on branch ${made.branch}: ${tildify(made.path)}${made.trusted ? " (trusted, as this folder is)" : ""}\n`))
  for (const s of made.included.skipped) process.stderr.write(`${yellow("Warning:")} .worktreeinclude: ${s.file} not copied: ${s.reason}\n`)
  return made
}

/**
 * Removes the worktree `-w` made when what it was made for ended before anything was done
 * there: no answer of the agent in a session there, no commit, no change (discard refuses a
 * worktree with work). Sessions made there with no answer go with it. Says so on stderr.
 * Never throws: the failure that may have brought us here is what the user needs to see.
 */
export async function dropUnusedWorktree(made: CreatedWorktree): Promise<void> {
  const file = databasePath(process.env)
  const store = existsSync(file) ? openStore(file) : undefined
  try {
    const sessions = store?.sessions.list({ directory: made.path }).map((s) => s.id) ?? []
    // The agent answered in one of them (a prompt that never reached a model is not work).
    if (sessions.some((id) => store!.messages.page(id, { limit: 20 }).some((m) => m.info.role === "assistant"))) return
    await discardWorktree(exec(), made.main, made.name)
    for (const id of sessions) store!.sessions.remove(id)
    process.stderr.write(dim(`worktree ${made.name} removed: nothing was done in it\n`))
  } catch {
    // Kept: it has work, or git could not remove it (`wright worktree discard` can).
  } finally {
    store?.close()
  }
}

export async function worktreeList(args: WorktreeArgs) {
  const list = await userErrors(() => listWorktrees(exec(), dirOf(args)))
  if (args.format === "json") return out(JSON.stringify(list, null, 2) + "\n")
  if (!list.length) return out("No worktrees. `wright run -w <name> …` or `wright -w <name>` makes one.\n")
  for (const w of list) {
    const work = [w.ahead ? `${w.ahead} commit(s) to merge` : "", w.dirty.length ? `${w.dirty.length} uncommitted file(s)` : ""].filter(Boolean).join(", ") || "nothing to merge"
    out(`${w.name}  ${w.branch}  ${work}  ${dim(tildify(w.path))}\n`)
  }
}

export async function worktreeMerge(args: WorktreeArgs) {
  const merged = await userErrors(() => mergeWorktree(exec(), dirOf(args), args.name!))
  if (!merged.files.length) return out(`Nothing to merge: ${merged.branch} has no change the main checkout lacks.\n`)
  if (merged.committedWork) out(dim(`The worktree's uncommitted changes were committed on ${merged.branch} first.\n`))
  out(`Merged ${merged.branch}: ${merged.files.length} file(s): ${merged.files.join(", ")}\n`)
}

export async function worktreeDiscard(args: WorktreeArgs) {
  const dir = dirOf(args)
  const e = exec()
  let force = args.force === true
  if (!force) {
    const all = await userErrors(() => listWorktrees(e, dir))
    const wt = all.find((w) => w.name === args.name)
    if (wt && (wt.ahead || wt.dirty.length) && process.stdin.isTTY) {
      const what = [wt.ahead ? `${wt.ahead} commit(s) not merged` : "", wt.dirty.length ? `${wt.dirty.length} uncommitted file(s)` : ""].filter(Boolean).join(" and ")
      const answer = await readLine(`Worktree ${wt.name} has ${what}. Discard them? [y/N] `)
      if (!/^y(es)?$/i.test(answer.trim())) return out("Kept.\n")
      force = true
    }
  }
  const gone = await userErrors(() => discardWorktree(e, dir, args.name!, { force }))
  out(`Discarded worktree ${gone.name} and branch ${gone.branch}.\n`)
}
