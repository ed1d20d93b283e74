// Numbered schema migrations. The schema version lives in SQLite's `user_version`; each
// migration runs once, in its own transaction. Never edit a shipped migration: add one.
export const migrations: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: "sessions, messages, parts, todos",
    sql: `
      CREATE TABLE session (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        parent_id TEXT,
        directory TEXT NOT NULL,
        title TEXT NOT NULL,
        time_created INTEGER NOT NULL,
        time_updated INTEGER NOT NULL,
        time_archived INTEGER,
        data TEXT NOT NULL
      );
      CREATE INDEX session_project_updated ON session(project_id, time_updated DESC);
      CREATE INDEX session_parent ON session(parent_id);
      CREATE TABLE message (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
        time_created INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX message_session ON message(session_id, id);
      CREATE TABLE part (
        id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
        session_id TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX part_message ON part(message_id, id);
      CREATE INDEX part_session ON part(session_id);
      CREATE TABLE todo (
        session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      );
    `,
  },
  {
    version: 2,
    name: "session leases: which process runs a session's steps",
    sql: `
      CREATE TABLE session_lease (
        session_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        heartbeat INTEGER NOT NULL,
        time_acquired INTEGER NOT NULL
      );
      CREATE INDEX session_lease_holder ON session_lease(holder);
    `,
  },
  {
    version: 3,
    name: "a tool part's output in its own column, so a session loads without cleared outputs",
    // `data` keeps the part with `state.output` set to null (its place in the key order);
    // `compacted` comes before `output` so reading it never walks the output's overflow pages.
    sql: `
      ALTER TABLE part ADD COLUMN compacted INTEGER;
      ALTER TABLE part ADD COLUMN output TEXT;
      UPDATE part SET
        compacted = json_extract(data, '$.state.time.compacted'),
        output = json_extract(data, '$.state.output'),
        data = json_set(data, '$.state.output', json('null'))
      WHERE json_extract(data, '$.type') = 'tool' AND json_type(data, '$.state.output') = 'text';
    `,
  },
  {
    version: 4,
    name: "a session's inbox: prompts sent while it was busy, until the process running it delivers them",
    // Delivered rows stay (time_delivered set) so an edit after delivery is told so (409), not 404.
    sql: `
      CREATE TABLE inbox (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
        delivery TEXT NOT NULL,
        data TEXT NOT NULL,
        time_created INTEGER NOT NULL,
        time_delivered INTEGER,
        message_id TEXT
      );
      CREATE INDEX inbox_pending ON inbox(session_id, id) WHERE time_delivered IS NULL;
    `,
  },
  {
    version: 5,
    name: "crashed sessions: how many times in a row a session's holder died while it worked, and whether a resume is due",
    // A row exists only between a crash and the next turn that finishes normally.
    sql: `
      CREATE TABLE session_crash (
        session_id TEXT PRIMARY KEY,
        count INTEGER NOT NULL,
        pending INTEGER NOT NULL,
        time_crashed INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: "the replayable event log: every session event with a global sequence number",
    // `seq` is the event's id on the SSE streams (AUTOINCREMENT: never reused after a trim).
    // A row of `n` > 1 holds consecutive text deltas of one part: its seqs are seq-n+1..seq
    // and `cuts` lists each delta's length in the joined text (see storage/event-log.ts).
    // `event_trim` remembers the newest seq dropped per session, so a client asking for
    // events before it is told to reload instead of silently missing them.
    sql: `
      CREATE TABLE event (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        directory TEXT NOT NULL,
        n INTEGER NOT NULL DEFAULT 1,
        cuts TEXT,
        data TEXT NOT NULL
      );
      CREATE INDEX event_session ON event(session_id, seq);
      CREATE INDEX event_directory ON event(directory, seq);
      CREATE TABLE event_trim (
        session_id TEXT PRIMARY KEY,
        directory TEXT NOT NULL,
        seq INTEGER NOT NULL
      );
    `,
  },
]

export const LATEST_VERSION = migrations[migrations.length - 1]!.version
