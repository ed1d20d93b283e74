import Database from "better-sqlite3"
import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import { declareError } from "../protocol"
import { xdg } from "../util"
import { LATEST_VERSION, migrations } from "./migrations"

export type DB = Database.Database

/** Opening or migrating the database failed; the message says which file and what to do. */
export class StorageError extends Error {
  static readonly info = declareError("StorageError", { status: 500, quiet: true })
  constructor(
    message: string,
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = "StorageError"
  }
}

/** `WRIGHT_DB` (absolute, `:memory:`, or relative to the data dir), else `<XDG data>/wright/wright.db`. */
export function databasePath(env: NodeJS.ProcessEnv = process.env): string {
  const dataDir = xdg(env).data
  const override = env.WRIGHT_DB
  if (!override) return path.join(dataDir, "wright.db")
  if (override === ":memory:" || path.isAbsolute(override)) return override
  return path.join(dataDir, override)
}

/**
 * Opens (creating if absent) and migrates the database. A corrupt file, or one written by a
 * newer wright, is reported and left exactly as it is: never recreated, never wiped.
 */
export function openDatabase(file: string): DB {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true })
  const existed = file !== ":memory:" && existsSync(file)
  let db: DB
  try {
    db = new Database(file)
  } catch (e) {
    throw new StorageError(`Cannot open the database ${file}: ${(e as Error).message}`, file, { cause: e })
  }
  // Another process opening the same new file at the same moment can hold the lock where
  // SQLite answers "busy" without waiting (switching the file to WAL, recovering a WAL): every
  // step below is safe to repeat, so a busy answer is retried for a while before it counts.
  const started = Date.now()
  for (;;) {
    try {
      setUp(db, file)
      return db
    } catch (e) {
      if (isBusy(e) && Date.now() - started < OPEN_BUSY_MS) {
        sleep(25)
        continue
      }
      db.close()
      if (e instanceof StorageError) throw e
      const reason = (e as Error).message
      const corrupt = /not a database|malformed|corrupt/i.test(reason)
      throw new StorageError(
        corrupt
          ? `The database ${file} is damaged or not a SQLite file (${reason}). wright left it untouched: move it aside (or set WRIGHT_DB to another path) to start a new one.`
          : `Cannot open the database ${file}${existed ? "" : " (new file)"}: ${reason}`,
        file,
        { cause: e },
      )
    }
  }
}

/** How long opening keeps retrying while another process holds the file's lock. */
const OPEN_BUSY_MS = 10_000

const isBusy = (e: unknown) => /^SQLITE_BUSY/.test(String((e as { code?: unknown }).code)) || /database is locked/i.test((e as Error).message ?? "")

function sleep(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function setUp(db: DB, file: string) {
  db.pragma("busy_timeout = 5000")
  // Check the version before anything writes: switching to WAL rewrites the file header.
  const version = db.pragma("user_version", { simple: true }) as number
  if (version > LATEST_VERSION) {
    throw new StorageError(
      `The database ${file} was written by a newer wright (schema version ${version}; this wright knows up to ${LATEST_VERSION}). Upgrade wright, or set WRIGHT_DB to use another database. The file was not changed.`,
      file,
    )
  }
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  // 8 MB of page cache: sessions are read once into memory (session/history), so a bigger
  // cache only held a long session's pages (64 MB: +18 MB RSS loading 10,000 messages).
  db.pragma("cache_size = -8000")
  db.pragma("foreign_keys = ON")
  migrate(db, version)
}

/**
 * Applies the migrations past `current`. Each runs in an IMMEDIATE transaction (the write lock
 * first) that reads the version again: another process opening the same new file at the same
 * moment saw the same old version, and whichever locks second must skip what the first did.
 */
function migrate(db: DB, current: number) {
  for (const m of migrations) {
    if (m.version <= current) continue
    db.transaction(() => {
      if ((db.pragma("user_version", { simple: true }) as number) >= m.version) return
      db.exec(m.sql)
      db.pragma(`user_version = ${m.version}`)
    }).immediate()
  }
}
