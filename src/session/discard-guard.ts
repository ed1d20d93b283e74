// No lost work. Before a bash command that discards work git cannot give back (permission's
// discardingCommands: `reset --hard`, `checkout -- paths`, `restore`, `clean -f`, `stash drop`,
// `branch -D`, through any wrapper) runs in a dirty tree, the whole worktree, untracked files
// included (not ignored ones), is tracked and the open steps are cut there (snapshot.ts
// checkpoint): undoing the step brings every file back as it was just before the command.
// After it, the tool result names what was discarded and how to get it back: the files (undo),
// dropped stash entries and deleted branches (their commits, with the git command that restores
// each). It attaches at the tool-call pipeline's named points, so the model's calls, the user's
// `!cmd` and subagents' calls are all covered, sandbox on or off.
import path from "node:path"
import { analyzeBash, discardingCommands, type BashCommand, type Discard } from "../permission"
import type { StepSnapshots } from "./snapshot"
import type { AfterFinalize, BeforeExecute } from "./tool-call"

export interface DiscardGuardDeps {
  snapshots: StepSnapshots
  /** The session's directory (a bash call's workdir is relative to it). */
  directory: string
  /** Runs a read-only git command; resolves its exit code and output, never rejects for a failing git. */
  git(args: string[], cwd: string): Promise<{ code: number | null; stdout: Buffer }>
}

interface Guarded {
  found: Discard[]
  /** The tree tracked just before the command, and the worktree-relative files that were dirty then. */
  tree?: string
  dirty?: string[]
  /** Dirty files the track left out (over snapshot.max_file_size): undo cannot bring them back. */
  uncaptured?: string[]
  stashes?: Map<string, string>
  branches?: Map<string, string>
}

export function createDiscardGuard(deps: DiscardGuardDeps): { beforeExecute: BeforeExecute; afterFinalize: AfterFinalize } {
  const guarded = new Map<string, Guarded>()
  const root = deps.snapshots.store.worktree
  const lines = async (args: string[]) => {
    const r = await deps.git(args, root).catch(() => undefined)
    return r?.code === 0 ? r.stdout.toString("utf8").split("\0").filter(Boolean) : undefined
  }
  /** Name → value pairs from NUL-separated `name value` records. */
  const pairs = async (args: string[]) => new Map((await lines(args))?.map((l) => [l.slice(0, l.indexOf(" ")), l.slice(l.indexOf(" ") + 1)] as [string, string]) ?? [])

  return {
    async beforeExecute(call) {
      const command = call.args.command
      if (call.tool !== "bash" || typeof command !== "string" || !command.includes("git")) return undefined
      const cwd = path.resolve(deps.directory, typeof call.args.workdir === "string" ? call.args.workdir : ".")
      const requests = await analyzeBash(command, { cwd, project: deps.directory }).catch(() => [])
      const commands = (requests.find((r) => r.permission === "bash")?.metadata.commands ?? []) as BashCommand[]
      const found = discardingCommands(commands)
      if (!found.length) return undefined
      const g: Guarded = { found }
      if (found.some((f) => f.kind === "worktree")) {
        const dirty = await dirtyFiles()
        if (dirty?.length) {
          g.dirty = dirty
          const track = await deps.snapshots.checkpoint(call.sessionID)
          g.tree = track?.tree
          g.uncaptured = track ? dirty.filter((f) => track.notCaptured.includes(f)) : undefined
        }
      }
      if (found.some((f) => f.kind === "stash")) g.stashes = await pairs(["stash", "list", "-z", "--format=%H %gs"])
      if (found.some((f) => f.kind === "branch")) g.branches = await pairs(["for-each-ref", "--format=%(refname:short) %(objectname)%00", "refs/heads"])
      guarded.set(call.callID, g)
      return undefined
    },
    async afterFinalize(call, final) {
      const g = guarded.get(call.callID)
      if (!g) return undefined
      guarded.delete(call.callID)
      const notes: string[] = []
      const lost = g.tree && g.dirty ? await discardedFiles(call.sessionID, g.tree, g.dirty) : []
      if (lost.length)
        notes.push(
          `This command discarded uncommitted changes to ${lost.length} file${lost.length === 1 ? "" : "s"}:\n${lost.map((f) => `- ${f}`).join("\n")}\n` +
            "wright kept them: undoing this step (/undo, or reverting this message) brings each one back as it was just before the command.",
        )
      if (g.uncaptured?.length)
        notes.push(`Not kept (over snapshot.max_file_size): if this command changed them, undo cannot bring them back:\n${g.uncaptured.map((f) => `- ${f}`).join("\n")}`)
      if (g.stashes) {
        const now = await pairs(["stash", "list", "-z", "--format=%H %gs"])
        const dropped = [...g.stashes].filter(([hash]) => !now.has(hash))
        if (dropped.length) notes.push(`Dropped stash entries; their commits stay in the repository until git gc. Bring one back with its command:\n${dropped.map(([hash, subject]) => `- git stash store -m ${JSON.stringify(subject)} ${hash}`).join("\n")}`)
      }
      if (g.branches) {
        const now = await pairs(["for-each-ref", "--format=%(refname:short) %(objectname)%00", "refs/heads"])
        const deleted = [...g.branches].filter(([name]) => !now.has(name))
        if (deleted.length) notes.push(`Deleted branches; their commits stay in the repository until git gc. Bring one back with its command:\n${deleted.map(([name, hash]) => `- git branch ${name} ${hash}`).join("\n")}`)
      }
      if (!notes.length) return undefined
      return {
        output: `${final.output}\n\n<discarded>\n${notes.join("\n\n")}\n</discarded>`,
        metadata: { ...final.metadata, discarded: { files: lost, commands: g.found.map((f) => f.text) } },
      }
    },
  }

  /** Files with uncommitted changes, untracked ones included (not ignored ones), worktree-relative. */
  async function dirtyFiles(): Promise<string[] | undefined> {
    const records = await lines(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all"])
    if (!records) return undefined
    const out: string[] = []
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!
      out.push(r.slice(3))
      // A rename or copy is followed by its source path.
      if (r[0] === "R" || r[0] === "C") i++
    }
    return out
  }

  /** The dirty files whose content the command changed (or removed). */
  async function discardedFiles(sessionID: string, before: string, dirty: string[]): Promise<string[]> {
    deps.snapshots.store.touch()
    const after = await deps.snapshots.store.track(sessionID)
    if (!after) return []
    const changed = new Set(after.tree === before ? [] : await deps.snapshots.store.changes(before, after.tree).catch(() => []))
    return dirty.filter((f) => changed.has(f))
  }
}
