// Which commands of an analysed command line throw away work git cannot give back: the
// worktree's uncommitted changes (`reset --hard`, `checkout -- paths`, `restore`, `clean -f`,
// `switch --discard-changes`), stash entries (`stash drop`, `clear`), branches with commits
// nothing else holds (`branch -D`). It reads the commands the bash analysis found, so every
// spelling it looks through (`sh -c`, `env`, `xargs`, `timeout`, `git -C dir`) counts. Pure.
import type { BashCommand } from "./bash-analyze"

/** What a discarding git command loses. */
export type DiscardKind = "worktree" | "stash" | "branch"

export interface Discard {
  /** The command as the analysis read it, e.g. "git -C sub reset --hard". */
  text: string
  kind: DiscardKind
}

/** Global options of git that take a value as the next word. */
const VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--attr-source", "--super-prefix"])

/** The discarding git commands among `commands`, in order. */
export function discardingCommands(commands: BashCommand[]): Discard[] {
  const out: Discard[] = []
  for (const c of commands) {
    if (c.name !== "git" && !c.name.endsWith("/git")) continue
    const kind = gitDiscards(c.args)
    if (kind) out.push({ text: c.text, kind })
  }
  return out
}

function gitDiscards(args: string[]): DiscardKind | undefined {
  let i = 0
  while (i < args.length && args[i]!.startsWith("-")) i += VALUED.has(args[i]!) ? 2 : 1
  const sub = args[i]
  const rest = args.slice(i + 1)
  const has = (...flags: string[]) => rest.some((a) => flags.includes(a))
  // Short flags may be bundled: `-fd`, `-xdf`.
  const short = (letter: string) => rest.some((a) => /^-[a-zA-Z]+$/.test(a) && a.includes(letter))
  switch (sub) {
    case "reset":
      return has("--hard", "--merge") ? "worktree" : undefined
    case "checkout":
      // Only creating a branch keeps the tree; any path, `.`, `--` or --force may overwrite files.
      if (has("-b", "-B", "--orphan") && !has("--", ".", "-f", "--force")) return undefined
      return rest.length ? "worktree" : undefined
    case "restore":
      return "worktree"
    case "switch":
      return has("--discard-changes", "--force", "-f") ? "worktree" : undefined
    case "clean":
      if (has("-n", "--dry-run") || short("n")) return undefined
      return has("--force") || short("f") ? "worktree" : undefined
    case "stash":
      return rest[0] === "drop" || rest[0] === "clear" ? "stash" : undefined
    case "branch":
      return has("-D") || ((has("-d", "--delete") || short("d")) && (has("-f", "--force") || short("f"))) ? "branch" : undefined
    default:
      return undefined
  }
}
