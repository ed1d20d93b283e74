// The spawner: every child process wright starts for the model or the user (the bash tool, the
// user's `!cmd`, `` !`cmd` `` in command templates, MCP stdio servers) starts through one
// `Exec` made per App from the App's environment. It owns process groups, timeouts and aborts;
// the sandbox (bubblewrap) wraps commands here when the caller hands it the App's `Sandbox`. It never reads process.env, never decides
// what may run (permissions are asked before) and never shapes output for the model.
export { KILL_GRACE_MS, type Child, type Exec, type ExecDeps, type ExecOptions, type ExitInfo } from "./exec"
export { resolveSandbox, bwrapArgs, gitDirs, type Sandbox, type SandboxMode, type SandboxPolicy } from "./sandbox"
export { readRestriction } from "./sandbox-reads"
export { npmInstall, isInstalled, rememberedFailure, specName, type NpmInstall } from "./npm"
export { warmSandbox } from "./sandbox-probe"
export type { SandboxBlock } from "./sandbox-failure"
export { toolSandbox, type ToolSandboxOptions } from "./sandbox-variant"
// The spawner with the sandbox's before and after (sweep, live registry) around exec.ts.
export { createExec } from "./sandbox-exec"
export { sandboxedPeer } from "./sandbox-peer"
