// The core's own lifecycle and diagnostics. /instance/dispose is OpenCode's: the project's App
// is dropped (running steps end) and the next request loads its config afresh.
// Diagnostics of the core process itself. The snapshot is written where the server chooses
// (its state directory), never to a path a client names: a client reads the path back.
import { chmodSync, mkdirSync, statSync } from "node:fs"
import path from "node:path"
import { threadId } from "node:worker_threads"
import { writeHeapSnapshot } from "node:v8"
import { z } from "zod"
import { HeapSnapshotInfo } from "../../protocol"
import { route } from "../route"

export const debugRoutes = [
  route({
    method: "post",
    path: "/debug/heap",
    operationId: "debug.heap",
    summary: "Write a V8 heap snapshot of the core (the TUI's worker, when the TUI hosts it) to the state directory; answers its path",
    tags: ["debug"],
    response: HeapSnapshotInfo,
    handler: ({ app }) => {
      const dir = path.join(app.paths.state, "heap")
      // A snapshot holds every secret the core does (keys, the server password): its owner's alone.
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      chmodSync(dir, 0o700)
      const stamp = new Date().toISOString().replace(/[:.]/g, "-")
      const file = writeHeapSnapshot(path.join(dir, `wright-${stamp}-${process.pid}-${threadId}.heapsnapshot`))
      chmodSync(file, 0o600)
      return { path: file, bytes: statSync(file).size, pid: process.pid, threadId }
    },
  }),
  route({
    method: "post",
    path: "/instance/dispose",
    operationId: "instance.dispose",
    summary: "Drop the project's App (running steps are interrupted); the next request loads its config afresh",
    tags: ["instance"],
    response: z.boolean(),
    handler: async ({ app, server }) => {
      if (!server.reloadApp) return false
      await server.reloadApp(app.directory)
      return true
    },
  }),
]
