// What a sandboxed command may touch, resolved once per App (sandbox.ts) and read by the bwrap
// argument builder, the per-command walls (sandbox-protect.ts) and the failure classifier.
export type SandboxMode = "workspace-write" | "read-only"

/** What a sandboxed command may touch; every path absolute. */
export interface SandboxPolicy {
  mode: SandboxMode
  network: boolean
  /** Mounted read-write: the worktree (workspace-write), the git dirs a worktree's commits need, configured paths. */
  writable: string[]
  /** The private temp dir (read-write, TMPDIR inside). */
  tmpdir: string
  /**
   * Kept as they are inside the writable paths, existing or not (sandbox-protect.ts): git's
   * config, hooks and pointers, .wright and .opencode, wright's and OpenCode's own folders.
   */
  protected: string[]
  /**
   * The protected paths that, when missing, are swept after the command instead of mounted
   * over: files (a mount point would be an empty file on the host) and git's folders (a mount
   * per command for a hooks folder that git does not have costs more than it guards).
   */
  sweepIfMissing: string[]
  /** $HOME: when it lies inside a writable path, its dot entries are protected too. */
  home?: string
  /** Credential files (auth.json, mcp-auth.json, trust.json): /dev/null is bound over them. */
  masked: string[]
  /** Folders holding unix sockets (/tmp, /run, $XDG_RUNTIME_DIR): an empty tmpfs over each. */
  hidden: string[]
  /** Readable folders inside a hidden one (the project, the tool-output folder), mounted back read-only. */
  reexposed: string[]
  /** Single sockets outside the hidden folders ($SSH_AUTH_SOCK, DOCKER_HOST): /dev/null bound over them. */
  sockets: string[]
  /** "all": the whole filesystem read-only. Otherwise only the system directories and these (plus the writable paths). */
  readable: "all" | string[]
}
