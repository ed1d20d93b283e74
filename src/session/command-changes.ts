// Which files a command changed, for diagnostics: the bash tool marks the worktree just before
// its command starts and asks again once it exited. The snapshot store answers (a track at
// each end; the first is usually free, since the step's own track just ran, and the second
// spares the step's closing track the same work), and the code-intel layer reports the errors
// of the changed files that have a language server, as a write's result does. Nothing is
// tracked when no server could report, or when snapshots are off (no git, `snapshot: false`).
import path from "node:path"
import type { CodeIntel } from "../lsp"
import type { SnapshotStore } from "../snapshot"
import type { ToolServices } from "../tool"

export function createCommandChanges(deps: { store: SnapshotStore; intel: CodeIntel }): NonNullable<ToolServices["commandChanges"]> {
  const off = { end: async () => "" }
  return {
    async begin(sessionID) {
      if (!deps.intel.enabled() || deps.store.notice()) return off
      const stamp = deps.intel.commandStarted()
      const before = await deps.store.track(sessionID)
      if (!before) return off
      return {
        async end() {
          try {
            const after = await deps.store.track(sessionID)
            if (!after) return ""
            const changed = await deps.store.changes(before.tree, after.tree)
            return await deps.intel.commandEnded(
              stamp,
              changed.map((f) => path.join(deps.store.worktree, f)),
              sessionID,
            )
          } catch {
            return ""
          }
        },
      }
    },
  }
}
