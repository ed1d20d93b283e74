// The logger: levelled lines to sinks (a file per process run, stderr with --print-logs).
// No global instance: the cli makes one, the App gets it, and each service takes a child
// tagged with its name. Writes are buffered and happen after the current tick, so logging
// costs a format and an array push; what is still buffered is written when the process exits.
import { mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from "node:fs"
import path from "node:path"

export type LogLevel = "DEBUG" | "INFO" | "WARN" | "ERROR"
export const LOG_LEVELS: readonly LogLevel[] = ["DEBUG", "INFO", "WARN", "ERROR"]
export type LogFields = Record<string, unknown>

export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
  /** A logger whose lines also carry `tags` (e.g. `{ service: "mcp" }`), written where this one writes. */
  child(tags: LogFields): Logger
}

/** Where formatted lines go. `write` gets one line with its newline and must not throw. */
export interface LogSink {
  write(line: string): void
  /** Writes what is buffered now, synchronously (before a worker is terminated, say). */
  flush?(): void
}

export interface RootLogger extends Logger {
  readonly level: LogLevel
  /** Applies `level` (a config's `logLevel`) unless the logger was created with an explicit one (the flag wins). */
  fallbackLevel(level: LogLevel | undefined): void
  flush(): void
}

const RANK: Record<LogLevel, number> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 }

/** `DEBUG`/`debug`/… → the level; anything else → undefined. */
export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  const upper = value?.trim().toUpperCase()
  return LOG_LEVELS.find((l) => l === upper)
}

/** A logger that drops everything: the default of services nobody handed one. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
}

export function createLogger(opts: { level?: LogLevel; sinks: LogSink[]; now?: () => number }): RootLogger {
  const now = opts.now ?? Date.now
  let level = opts.level ?? "INFO"
  const fixed = opts.level !== undefined
  let last = now()
  const make = (tags: string): Logger => {
    const at = (l: LogLevel) => (message: string, fields?: LogFields) => {
      if (RANK[l] < RANK[level] || opts.sinks.length === 0) return
      const t = now()
      const line = `${l.padEnd(5)} ${new Date(t).toISOString().slice(0, 19)} +${t - last}ms${tags} ${message}${fields ? formatFields(fields) : ""}\n`
      last = t
      for (const sink of opts.sinks) sink.write(line)
    }
    return { debug: at("DEBUG"), info: at("INFO"), warn: at("WARN"), error: at("ERROR"), child: (more) => make(tags + formatFields(more)) }
  }
  return {
    ...make(""),
    get level() {
      return level
    },
    fallbackLevel(l) {
      if (!fixed && l) level = l
    },
    flush() {
      for (const sink of opts.sinks) sink.flush?.()
    },
  }
}

/** ` key=value …`: bare when the value is a plain word, JSON otherwise; an Error as `Name: message`. */
function formatFields(fields: LogFields): string {
  let out = ""
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue
    const text = value instanceof Error ? errorText(value) : typeof value === "string" ? value : String(JSON.stringify(value))
    out += ` ${key}=${/^[\w./:@+-]+$/.test(text) ? text : JSON.stringify(text)}`
  }
  return out
}

function errorText(e: Error): string {
  const head = e.name && e.name !== "Error" && !e.message.startsWith(e.name) ? `${e.name}: ${e.message}` : e.message
  return e.cause instanceof Error ? `${head} (cause: ${errorText(e.cause)})` : head
}

/** Lines to a text stream such as stderr (`write` is called with whole lines). */
export function streamSink(write: (text: string) => void): LogSink {
  return { write }
}

export interface FileSinkOptions {
  /** Log files kept in `dir`, this run's included; older ones are deleted when this one is created. */
  keep?: number
  /** The file name; default: the start time and pid, e.g. `2025-06-01T101500-4242.log`. */
  name?: string
  /** The file cannot be created or written: called once, then the sink drops its lines. */
  onError?(error: unknown): void
}

/**
 * One file per process run in `dir`, created on the first line (a run that logs nothing
 * leaves no file). Lines are collected and written in one append after the current tick;
 * the process's `exit` writes what is left, so `process.exit` loses nothing.
 */
export function fileSink(dir: string, opts: FileSinkOptions = {}): LogSink & { file: string } {
  const file = path.join(dir, opts.name ?? `${new Date().toISOString().slice(0, 19).replace(/:/g, "")}-${process.pid}.log`)
  let buffer: string[] = []
  let fd: number | undefined
  let broken = false
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (broken || buffer.length === 0) return
    const text = buffer.join("")
    buffer = []
    try {
      if (fd === undefined) {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        fd = openSync(file, "a", 0o600)
        prune(dir, path.basename(file), opts.keep ?? 10)
      }
      writeSync(fd, text)
    } catch (e) {
      broken = true
      opts.onError?.(e)
    }
  }
  return {
    file,
    write(line) {
      if (broken) return
      buffer.push(line)
      if (scheduled) return
      scheduled = true
      if (fd === undefined) process.once("exit", flush)
      setImmediate(flush)
    },
    flush,
  }
}

/** Deletes all but the newest `keep` log files (names sort by start time). */
function prune(dir: string, current: string, keep: number) {
  const logs = readdirSync(dir)
    .filter((n) => /^\d{4}-\d{2}-\d{2}T\d{6}.*\.log$/.test(n) && n !== current)
    .sort()
  for (const name of logs.slice(0, Math.max(0, logs.length - (keep - 1)))) {
    try {
      unlinkSync(path.join(dir, name))
    } catch {
      // Another wright pruned it first, or it is not ours to delete: either way it is not this run's log.
    }
  }
}
