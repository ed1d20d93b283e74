// The core: sessions, the two loops (outer loop over history, inner processor over one
// stream), tool calls, system prompt and instructions, and the App that wires one project's
// services. Front ends never import this: they reach it through the server's HTTP API.
export { createApp, type App, type AppOptions } from "./app"
export { createApps, type Apps } from "./apps"
export { shadowedBuiltins } from "./command"
export type { SessionService } from "./service"
export { QuestionRejectedError } from "./question"
export { STREAM_PERSIST_MS } from "./history"
export { fork, forkTitle, type ForkDeps } from "./fork"
export { revert, unrevert, visibleMessages, cleanupRevert, type RevertDeps } from "./revert"
export { createShells, SHELL_NOTE, type Shells } from "./shell"
export type { ToolHooks, BeforeExecute, BeforeExecuteResult, AfterFinalize, ToolCallInfo, ToolFinal, ToolOutcome, ToolPipeline } from "./tool-call"
export { importSession, ImportError, type ImportResult } from "./import"
export { generateAgent, readAgent, AgentGenerateError, type GeneratedAgent } from "./agent-generate"
export { createWorktree, listWorktrees, mergeWorktree, discardWorktree, mainCheckout, wrightWorktreeOf, WorktreeError, BRANCH_PREFIX, type WorktreeRef, type WorktreeStatus, type Created as CreatedWorktree, type Merged } from "./worktree"
export { createLiveRegistry, readLive, type LiveFile, type LiveSession, type LiveState } from "./live"
