// Which project directories a request may name (query `directory`, header
// `x-opencode-directory`): the one the server started in and those inside it, those the user
// allowed (flag or global config, with what is inside them), and known projects (they
// already have sessions). Anything else is refused before an App is built, so no request
// can open a new folder as a project, read its files or start its MCP servers. A symlink is
// judged by both where it is and where it leads.
import { realpathSync } from "node:fs"
import path from "node:path"
import { ForbiddenError } from "../protocol"

export interface DirectoryRule {
  /** The server's own project. */
  start: string
  /** More trees requests may name (--allow-dir, `server.directories` of the global config). */
  allowed?: string[]
  /** A directory that already has sessions; such a project may be named exactly. */
  isKnownProject?(directory: string): boolean
}

const inside = (dir: string, root: string) => {
  const rel = path.relative(root, dir)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p)
  } catch {
    return undefined
  }
}

/** Returns a check that throws ForbiddenError (403) for a directory the rule does not allow. */
export function directoryRule(rule: DirectoryRule): (directory: string) => void {
  const roots = [rule.start, ...(rule.allowed ?? [])].map((p) => path.resolve(p))
  const allows = (dir: string) => {
    const realRoots = roots.map((r) => real(r) ?? r)
    return roots.some((r) => inside(dir, r)) || realRoots.some((r) => inside(dir, r)) || (rule.isKnownProject?.(dir) ?? false)
  }
  return (directory) => {
    const dir = path.resolve(directory)
    const target = real(dir)
    // A missing directory is judged by its name (a 400 follows); an existing one by both names.
    if (allows(dir) && (target === undefined || target === dir || allows(target))) return
    throw new ForbiddenError({
      message: `Directory "${dir}" is not a project of this server; start wright with --allow-dir ${dir}, or add it to "server.directories" in the global config`,
    })
  }
}
