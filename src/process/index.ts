// The spawner: every child process wright starts (the bash tool, the user's `!cmd`, `` !`cmd` ``
// in command templates, MCP stdio servers, hooks, a plugin's `$`, ripgrep, wright's own git)
// starts through one `Exec` made per App from the App's environment; nothing else in src/
// imports node:child_process (.dependency-cruiser.cjs). It owns process groups, timeouts and
// aborts; the sandbox (bubblewrap) wraps commands here when the caller hands it the App's
// `Sandbox`, and a sandboxed command gets a scrubbed environment (no keys, passwords, tokens).
// wright's own git runs through git.ts with its code-running settings off. It never reads
// process.env, never decides what may run (permissions are asked before) and never shapes
// output for the model.
export { scrubEnv, KILL_GRACE_MS, type Child, type Exec, type ExecDeps, type ExecOptions, type ExitInfo } from "./exec"
export { runGit, worktreeGit, GIT_SAFE_CONFIG, type GitOptions, type GitResult } from "./git"
export { resolveSandbox, bwrapArgs, gitDirs, type Sandbox, type SandboxMode, type SandboxPolicy } from "./sandbox"
export { readRestriction } from "./sandbox-reads"
export { npmInstall, isInstalled, rememberedFailure, specName, type NpmInstall } from "./npm"
export { warmSandbox } from "./sandbox-probe"
export type { SandboxBlock } from "./sandbox-failure"
export { toolSandbox, type ToolSandboxOptions } from "./sandbox-variant"
// The spawner with the sandbox's before and after (sweep, live registry) around exec.ts.
export { createExec } from "./sandbox-exec"
export { sandboxedPeer } from "./sandbox-peer"
