// Parsed arguments of each command, shared by its yargs definition and its handler.
// --print-logs and --log-level are global (LogArgs): every command's arguments carry them.
import type { LogArgs } from "./log"

export interface RunArgs extends LogArgs {
  message: string[]
  model?: string
  agent?: string
  file?: string[]
  format: "default" | "json"
  continue?: boolean
  session?: string
  /** --resume: carry on this session, left working by a crashed process, with no new prompt. */
  resume?: string
  dir?: string
  /** -w [name]: run in a new git worktree on branch wright/<name> ("": a generated name). */
  worktree?: string
  attach?: string
  password?: string
  username?: string
  auto?: boolean
  title?: string
  command?: string
  schema?: string
  thinking?: boolean
  /** The model's variant (reasoning effort, thinking budget), e.g. high, max, minimal. */
  variant?: string
  /** --timeout: the run's wall-clock budget, in seconds. */
  timeout?: number
  /** --steer / --queue: to a busy session, the prompt goes to its inbox and the run exits at once. */
  steer?: boolean
  queue?: boolean
  /** --detach: exit when the agent's turn ends, without waiting for its background subagents. */
  detach?: boolean
}

/** The flags of every guarded listener: `wright serve` and the TUI's --port. */
export interface ListenerArgs {
  /** Extra browser origins allowed, exact. */
  cors?: string[]
  /** Extra names the Host header may carry (`name` or `name:port`). */
  allowHost?: string[]
  /** Extra directories (and what is inside them) requests may name. */
  allowDir?: string[]
  insecure?: boolean
  /** Advertise the server on the local network (mDNS); the bind defaults to 0.0.0.0. */
  mdns?: boolean
  mdnsDomain?: string
  password?: string
  passwordFile?: string
  passwordPrompt?: boolean
}

export interface ServeArgs extends ListenerArgs, LogArgs {
  /** Default: `server.port` of the config, else 4096. */
  port?: number
  /** Default: `server.hostname` of the config, else 127.0.0.1. */
  hostname?: string
  dir?: string
  /** Serve the browser UI with pairing too (`wright web`, `serve --web`). */
  web?: boolean
  /** With the UI: open the pairing link in the local browser. */
  open?: boolean
}

/** `wright worktree list | merge <name> | discard <name>`. */
export interface WorktreeArgs {
  dir?: string
  format?: "table" | "json"
  name?: string
  /** discard: without asking, unmerged work and all. */
  force?: boolean
}
