// The files this running wright wrote: by the file writer (every edit, write and apply_patch,
// told through afterWrite) and by bash commands, as far as the gate reads them (redirections,
// cp/mv/tee destinations, sed -i). The bash gate asks before running one of them as a program
// or script, so a file cannot be written by one call and run by the next unseen.
import fs from "node:fs"
import path from "node:path"

export interface WrittenFiles {
  /** Records absolute paths (both as given and with symlinks resolved). Never throws. */
  add(paths: string[]): void
  /** True when `p` (absolute) was recorded. Never throws. */
  has(p: string): boolean
}

export function createWrittenFiles(): WrittenFiles {
  const files = new Set<string>()
  return {
    add(paths) {
      for (const p of paths) {
        const abs = path.resolve(p)
        files.add(abs)
        try {
          files.add(fs.realpathSync.native(abs))
        } catch {
          // Not on disk (yet): the literal path is enough.
        }
      }
    },
    has: (p) => files.has(path.resolve(p)),
  }
}
