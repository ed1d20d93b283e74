// What the bash tool does when the OS sandbox stopped a command: it tells the model, in the
// result, that the sandbox (not the command) failed, and asks the user through the
// `sandbox_escape` permission whether to run the same command again outside. A user's own
// `!cmd` is never escalated: it asks nobody, and a project's scripts it runs must stay inside.
import { PermissionDeniedError, PermissionRejectedError } from "../protocol"
import type { SandboxBlock } from "../process"
import type { ShellRunResult } from "./shell-run"
import type { ToolContext } from "./tool"

export type Escape = { rerun: true; note: string } | { rerun: false; note: string } | undefined

/** Undefined when the sandbox is not on or played no part in how the command ended. */
export async function sandboxEscape(command: string, run: ShellRunResult, ctx: ToolContext): Promise<Escape> {
  const box = ctx.services.sandbox
  // Only a failed command: output that merely mentions "Read-only file system" (a grep hit) is no block.
  if (box?.state !== "on" || run.exit === 0 || run.timedOut || run.aborted) return undefined
  const blocked: SandboxBlock | undefined = box.explain(run.text)
  if (!blocked) return undefined
  if (ctx.byUser) return { rerun: false, note: `${blocked.note} Run it in your own terminal if it must reach outside.` }
  try {
    await ctx.ask({ permission: "sandbox_escape", patterns: [command], always: [command], metadata: { command, reason: blocked.note, kind: blocked.kind, path: blocked.path } })
  } catch (e) {
    if (PermissionRejectedError.is(e)) return { rerun: false, note: `${blocked.note} The user declined to run it outside the sandbox: do not retry it as it is.` }
    if (PermissionDeniedError.is(e)) return { rerun: false, note: `${blocked.note} Running it outside the sandbox is denied by the permission rules (sandbox_escape).` }
    throw e
  }
  return { rerun: true, note: `${blocked.note} The user allowed running it outside the sandbox: this is the output of that second run.` }
}
