import path from "node:path"
import { xdgPaths } from "../config"
import { createLogger, fileSink, streamSink, type LogLevel, type LogSink, type RootLogger } from "../util"

/** The global log flags, as every command (and the TUI's worker) receives them. */
export interface LogArgs {
  printLogs?: boolean
  logLevel?: LogLevel
}

/** Where this process's log files go: `$XDG_STATE_HOME/wright/log` (`~/.local/state/wright/log`). */
export function logDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(xdgPaths(env).state, "log")
}

/**
 * The process's logger: a file per run under the state dir, and stderr with --print-logs (never
 * stdout, which is the protocol for acp and the answer for run). A file that cannot be written
 * is said once on stderr; the run goes on.
 */
export function cliLogger(args: LogArgs, env: NodeJS.ProcessEnv = process.env): RootLogger {
  const stderr = (text: string) => void process.stderr.write(text)
  const sinks: LogSink[] = [fileSink(logDir(env), { onError: (e) => stderr(`wright: cannot write the log file: ${(e as Error).message}\n`) })]
  if (args.printLogs) sinks.push(streamSink(stderr))
  return createLogger({ level: args.logLevel, sinks })
}
