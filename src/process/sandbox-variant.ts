// Variants of the App's sandbox for the project tools wright starts on its own (language
// servers, formatters in untrusted folders): no network, and only what they need writable.
// The App's sandbox stays as it is; a variant shares its bwrap, temp dir and protected paths.
import type { Sandbox } from "./sandbox"
import type { SandboxPolicy } from "./sandbox-policy"

export interface ToolSandboxOptions {
  /** Whether the worktree stays writable (a formatter rewrites the file); false: read-only, only the temp dir writable. */
  write: boolean
  /** Directories readable besides the App's when reads are restricted (the tool's own install, wright's cache). */
  readable?: string[]
}

/** A network-off variant of an `on` sandbox; undefined when `box` is not on (the caller then runs nothing). */
export function toolSandbox(box: Sandbox | undefined, opts: ToolSandboxOptions): Sandbox | undefined {
  if (!box || box.state !== "on") return undefined
  const base = box.policy
  const policy: SandboxPolicy = {
    mode: opts.write ? base.mode : "read-only",
    network: false,
    writable: opts.write ? base.writable : [],
    // A getter, as the App's: the private temp dir is made with the first sandboxed command.
    get tmpdir() {
      return base.tmpdir
    },
    protected: base.protected,
    sweepIfMissing: base.sweepIfMissing,
    home: base.home,
    masked: base.masked,
    hidden: base.hidden,
    reexposed: base.reexposed,
    sockets: base.sockets,
    readable: base.readable === "all" ? "all" : [...new Set([...base.readable, ...(opts.readable ?? [])])],
  }
  // The App disposes the shared temp dir; a variant owns nothing.
  return { ...box, policy, dispose: () => {} }
}
