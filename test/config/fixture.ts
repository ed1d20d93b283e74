import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"

/** A throwaway tree: `home/` (fake HOME) and `repo/` (a git worktree), removed by `cleanup()`. */
export function makeTree() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-config-")))
  const home = path.join(root, "home")
  const repo = path.join(root, "repo")
  mkdirSync(home, { recursive: true })
  mkdirSync(path.join(repo, ".git"), { recursive: true })
  return {
    root,
    home,
    repo,
    /** Writes `content` (objects as JSON) at `rel` under root, creating directories. Returns the absolute path. */
    write(rel: string, content: string | object): string {
      const file = path.join(root, rel)
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2))
      return file
    },
    mkdir(rel: string): string {
      const dir = path.join(root, rel)
      mkdirSync(dir, { recursive: true })
      return dir
    },
    rm(rel: string) {
      rmSync(path.join(root, rel), { recursive: true, force: true })
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true })
    },
  }
}

export type Tree = ReturnType<typeof makeTree>
