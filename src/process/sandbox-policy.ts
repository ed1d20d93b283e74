// What a sandboxed command may touch, resolved once per App (sandbox.ts) and read by the bwrap
// argument builder and the failure classifier.
export type SandboxMode = "workspace-write" | "read-only"

/** What a sandboxed command may touch; every path absolute. */
export interface SandboxPolicy {
  mode: SandboxMode
  network: boolean
  /** Mounted read-write: the worktree (workspace-write), the git dirs a worktree's commits need, configured paths. */
  writable: string[]
  /** The private temp dir (read-write, TMPDIR inside). */
  tmpdir: string
  /** Re-mounted read-only inside the writable paths when they exist at the call (.git/config, .git/hooks, .wright, .opencode). */
  protected: string[]
  /** "all": the whole filesystem read-only. Otherwise only the system directories and these (plus the writable paths). */
  readable: "all" | string[]
}
