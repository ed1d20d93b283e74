// The spawner as the rest of wright gets it: exec.ts's `createExec`, plus what a sandboxed
// command needs before and after it runs. Before: the state of the protected paths that
// cannot be mounted over (sandbox-protect.ts). While it runs: its bwrap pid is in the registry
// of live sandboxes, which the guarded listener asks about each new connection (sandbox-peer.ts,
// sandbox-registry.ts). After (bwrap has exited, so nothing from inside is left running): the
// sweep, whose findings end the command's stderr, so the model (or the hook's log) is told.
import { PassThrough } from "node:stream"
import { createExec as createRawExec, type Child, type Exec, type ExecDeps } from "./exec"
import { handLayout, protectLayout, removeMade, sweep } from "./sandbox-protect"
import { othersLive, registerSandbox } from "./sandbox-registry"
/** Mount points bwrap made on the host (missing protected folders), and how many live commands use each. */
const made = new Map<string, number>()
/** Mount points no command of this process uses any more, left while another process's sandbox runs. */
const unused = new Set<string>()

export function createExec(deps: ExecDeps): Exec {
  const raw = createRawExec(deps)
  const register = registerSandbox(deps.env)
  return async (argv, opts) => {
    const box = opts.sandbox
    if (!box || box === "off" || box.state !== "on") return raw(argv, opts)
    const layout = protectLayout(box.policy)
    handLayout(box.policy, layout)
    // A folder another live command made is one to keep until both are done.
    const using = [...layout.made, ...[...made.keys()].filter((p) => !layout.made.includes(p))]
    for (const p of using) made.set(p, (made.get(p) ?? 0) + 1)
    const release = () => {
      for (const p of using) {
        const n = (made.get(p) ?? 1) - 1
        if (n > 0) made.set(p, n)
        else {
          made.delete(p)
          unused.add(p)
        }
      }
      if (unused.size === 0 || othersLive()) return
      for (const p of unused) if (!made.has(p)) removeMade(p)
      unused.clear()
    }
    let child: Child
    try {
      const started = raw(argv, opts)
      handLayout(box.policy, undefined)
      child = await started
    } catch (e) {
      release()
      throw e
    }
    const unregister = register(child.pid)
    // stderr passes through, and stays open until the sweep has said what it removed.
    const stderr = new PassThrough()
    child.stderr.pipe(stderr, { end: false })
    stderr.on("close", () => child.stderr.destroy())
    const done = child.done.then(async (exit) => {
      unregister()
      release()
      const removed = sweep(box.policy, layout, (p) => made.has(p))
      if (removed.length > 0 && !stderr.destroyed) stderr.write(`\n${sweepNote(removed)}\n`)
      stderr.end()
      // Let a reader that listens for "data" have the last chunk before `done` resolves.
      await new Promise((r) => setImmediate(r))
      return exit
    })
    return { ...child, stderr, done }
  }
}

function sweepNote(removed: string[]): string {
  return (
    `wright removed ${removed.join(", ")} after the command: a sandboxed command may not create or replace files that git, wright or a login shell ` +
    `read later (git's config, hooks and pointers, .wright, .opencode, wright's own folders, dotfiles in a writable home). Ask the user to make such a change.`
  )
}
