/**
 * Migration 4: rewind as metadata. A session's own event rows are keyed by its stream
 * (`COALESCE(stream, id)`: its id until a rewind gives it another), not by its id, so a rewind
 * moves no row: its archived branch takes over the session's stream (every row past the session's
 * base, the removed ones included) and the session gets a new, empty one, referencing the branch
 * for the prefix it keeps (`cut.ts`). A fresh stream is `~<n>`, outside the ids' alphabet. A
 * session deleted while its id is another's stream (a branch took it over) leaves its id in
 * `dsh_retired_streams` (`remove.ts`), and a session created with that id again gets a fresh
 * stream (trigger: a look-up in that small table, never in the sessions a bulk insert is
 * growing). `dsh_events.session_id` is the stream from now
 * on: its reference to `dsh_sessions (id)` goes; the unique key index keeps two sessions off one
 * stream. Existing rows keep their meaning (stream NULL: keyed by the id, as before).
 */
export const STREAMS_MIGRATION = {
  version: 4,
  name: 'event streams',
  sql: `
    ALTER TABLE dsh_events DROP CONSTRAINT IF EXISTS dsh_events_session_id_fkey;
    ALTER TABLE dsh_sessions ADD COLUMN stream text COLLATE "C";
    CREATE UNIQUE INDEX dsh_sessions_stream ON dsh_sessions ((COALESCE(stream, id)));
    CREATE INDEX dsh_sessions_streams ON dsh_sessions (stream) WHERE stream IS NOT NULL;
    CREATE SEQUENCE dsh_stream_keys;
    CREATE TABLE dsh_retired_streams (id text COLLATE "C" PRIMARY KEY);
    CREATE FUNCTION dsh_sessions_stream() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.stream IS NULL AND EXISTS (SELECT 1 FROM dsh_retired_streams WHERE id = NEW.id) THEN
        NEW.stream := '~' || nextval('dsh_stream_keys');
      END IF;
      RETURN NEW;
    END
    $$;
    CREATE TRIGGER dsh_sessions_stream BEFORE INSERT ON dsh_sessions FOR EACH ROW
      EXECUTE FUNCTION dsh_sessions_stream();
  `,
} as const
