/**
 * Migration 2: file checkpoints' content as content-addressed rows (`dsh_blobs`), and which event
 * rows name which blob (`dsh_blob_refs`), kept by a trigger on `dsh_events` so every path that
 * writes, moves (a rewind's branch's rows joining its stream), copies or deletes event rows keeps it
 * right without knowing of blobs. An event names a blob when it is a `checkpoint:file` whose
 * `before` is `sha256:<64 hex>` and that has no inline `beforeText` (what the agent puts in the
 * blob store instead). A blob none names is collected (`collectBlobs`, blobs.ts).
 */
export const BLOBS_MIGRATION = {
  version: 2,
  name: 'checkpoint blobs',
  sql: `
    CREATE TABLE dsh_blobs (
      -- The 64 hex digits of the bytes' SHA-256 (the blob's name without 'sha256:').
      hash text COLLATE "C" PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
      bytes bytea NOT NULL,
      -- Last put: a blob is put before the event naming it is appended, so a young one is spared.
      touched_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE dsh_blob_refs (
      session_id text COLLATE "C" NOT NULL,
      seq integer NOT NULL,
      hash text COLLATE "C" NOT NULL,
      PRIMARY KEY (session_id, seq)
    );
    CREATE INDEX dsh_blob_refs_hash ON dsh_blob_refs (hash);
    CREATE FUNCTION dsh_blob_of(body json) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT substr(body->'data'->>'before', 8)
      WHERE body->>'type' = 'checkpoint:file'
        AND body->'data'->'beforeText' IS NULL
        AND body->'data'->>'before' ~ '^sha256:[0-9a-f]{64}$'
    $$;
    CREATE FUNCTION dsh_events_blob_refs() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM dsh_blob_refs WHERE session_id = OLD.session_id AND seq = OLD.seq;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND dsh_blob_of(NEW.body) IS NOT NULL THEN
        INSERT INTO dsh_blob_refs (session_id, seq, hash)
          VALUES (NEW.session_id, NEW.seq, dsh_blob_of(NEW.body))
          ON CONFLICT (session_id, seq) DO UPDATE SET hash = EXCLUDED.hash;
      END IF;
      RETURN NULL;
    END
    $$;
    -- The WHEN clauses keep the function (and a parse of the body) off every row that cannot name
    -- a blob: a rewind moving thousands of rows to its branch pays one substring test per row.
    CREATE TRIGGER dsh_events_blob_refs_insert AFTER INSERT ON dsh_events FOR EACH ROW
      WHEN (strpos(NEW.body::text, '"checkpoint:file"') > 0) EXECUTE FUNCTION dsh_events_blob_refs();
    CREATE TRIGGER dsh_events_blob_refs_update AFTER UPDATE OF session_id, seq, body ON dsh_events FOR EACH ROW
      WHEN (strpos(OLD.body::text, '"checkpoint:file"') > 0 OR strpos(NEW.body::text, '"checkpoint:file"') > 0)
      EXECUTE FUNCTION dsh_events_blob_refs();
    CREATE TRIGGER dsh_events_blob_refs_delete AFTER DELETE ON dsh_events FOR EACH ROW
      WHEN (strpos(OLD.body::text, '"checkpoint:file"') > 0) EXECUTE FUNCTION dsh_events_blob_refs();
    INSERT INTO dsh_blob_refs (session_id, seq, hash)
      SELECT session_id, seq, dsh_blob_of(body) FROM dsh_events WHERE dsh_blob_of(body) IS NOT NULL;
  `,
} as const

/**
 * Migration 3: how a JSONL store held a session whose file does not start with its own header (a
 * rewind branch made by a link: its file's first line names the session it was, its own header is
 * in `<id>.branch.json`). Written only by `dsh-acp store copy` from a JSONL directory, so a copy
 * back gives the same files, byte for byte; the row goes with its session.
 */
export const FILE_FORMS_MIGRATION = {
  version: 3,
  name: 'jsonl file forms',
  sql: `
    CREATE TABLE dsh_file_forms (
      session_id text COLLATE "C" PRIMARY KEY REFERENCES dsh_sessions (id) ON DELETE CASCADE,
      -- The file's first line (without its newline) and the record file's whole text.
      first_line text NOT NULL,
      record text NOT NULL
    );
  `,
} as const
