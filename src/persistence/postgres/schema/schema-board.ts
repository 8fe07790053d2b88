/**
 * Migration 5: the notice board between hosts (`live/board.ts`). `dsh_board_notes`: what one host
 * says about one session, kept as posted (`json`: fields this build does not know are kept). A
 * note counts while its host lives: the host holds a session-level advisory lock on `host_key`
 * on its LISTEN connection, which the database lets go when that connection ends (the host
 * stopped, was killed, or lost it); `dsh_host_alive` looks the lock up in `pg_locks` (visible to
 * every role, and never confused by a reused backend pid). `dsh_board_answers`: the answer
 * offered to a question, one per question (the key: the first offered wins); `taken_at` once the
 * asking host took it, kept a while so that a late offer still finds it taken.
 */
export const BOARD_MIGRATION = {
  version: 5,
  name: 'notice board',
  sql: `
    CREATE TABLE dsh_board_notes (
      session_id text COLLATE "C" NOT NULL,
      host text COLLATE "C" NOT NULL,
      host_key bigint NOT NULL,
      note json NOT NULL,
      posted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (session_id, host)
    );
    CREATE TABLE dsh_board_answers (
      session_id text COLLATE "C" NOT NULL,
      question text COLLATE "C" NOT NULL,
      answer json NOT NULL,
      offered_at timestamptz NOT NULL DEFAULT now(),
      taken_at timestamptz,
      PRIMARY KEY (session_id, question)
    );
    CREATE FUNCTION dsh_host_key(host text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
      SELECT hashtextextended('dsh-acp host ' || host, 0)
    $$;
    CREATE FUNCTION dsh_host_alive(key bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT EXISTS (
        SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid::bigint = (key >> 32) & 4294967295
          AND l.objid::bigint = key & 4294967295
      )
    $$;
  `,
} as const
