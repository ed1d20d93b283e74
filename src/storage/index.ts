// Durable storage: one SQLite file (better-sqlite3, WAL) holding sessions, messages, parts,
// todos and the replayable event log for every project, and the leases saying which process
// runs a session. It only stores and loads; it publishes no events and keeps no caches (the
// session layer keeps live history in memory and writes through here); the event log queues
// events for one turn of the event loop so they are written in one transaction.
import { createStore, type Store } from "./store"
import { openDatabase } from "./database"
import type { EventLogOptions } from "./event-log"

export { StorageError, databasePath, openDatabase, type DB } from "./database"
export { createStore, outputOnDisk, type Store, type SessionQuery } from "./store"
export { LATEST_VERSION } from "./migrations"
export { createInboxStore, inboxItem, type InboxEntry, type InboxStore, type InboxChange } from "./inbox"
export { EVENT_LOG_DEFAULTS, type EventLog, type EventLogOptions, type LoggedEvent, type Replay, type ReplayScope } from "./event-log"
export { createLeases, pidAlive, LEASE_STALE_MS, type Lease, type Leases, type Acquired, type LeaseOptions } from "./lease"

/** Opens the database at `file` (see `databasePath`) and returns its repositories. */
export function openStore(file: string, opts: { events?: EventLogOptions } = {}): Store & { close(): void } {
  const db = openDatabase(file)
  const store = createStore(db, opts)
  return {
    ...store,
    close() {
      store.events.flush()
      if (db.open) db.close()
    },
  }
}
