import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { SessionId } from '../../../session/ids.js'
import type { BoardAnswer, BoardNote, SessionBoard } from '../../../session/store/persistence-port.js'
import type { PostgresPool } from '../pool.js'
import { signal } from './notices.js'

/** How long an answer the asker took is kept, so that a late offer still finds the question taken. */
const TAKEN_KEPT = "interval '10 minutes'"
/** How long an answer nobody took is kept once no note of its session is left. */
const UNTAKEN_KEPT = "interval '1 hour'"

/** What the board needs of the backend. */
export interface PgBoardEnv {
  readonly db: PostgresPool
  /** Resolves once the schema is migrated. */
  readonly ready: Promise<void>
  /** Whether this host's presence is held (its LISTEN connection up): notes are written only then. */
  readonly listening: () => boolean
  readonly warn: (message: string) => void
}

/**
 * The notice board between hosts on one database (see `SessionBoard` and migration 5,
 * `schema-board.ts`). This host's notes are rows keyed by (session, host), where `host` is a
 * random id of this process; they count while the host's presence lock is held on its LISTEN
 * connection, so a host killed or cut off drops out as soon as the database sees its connection
 * end. A note is written only while that lock is held, and every note is written again each time
 * it is (re)taken: a note read as dead (and removed) during a reconnect comes back. Every change
 * is signalled (`pg_notify`) in its transaction, so the hosts watching the session look at once.
 */
export class PgBoard implements SessionBoard {
  /** This host's id on the board. */
  readonly host = randomUUID()
  /** What this host says, by session: the rows follow it. */
  private readonly mine = new Map<SessionId, BoardNote>()
  /** The write of each session's row: one at a time, each writing the latest note. */
  private readonly writing = new Map<SessionId, Promise<void>>()
  private readonly due = new Set<SessionId>()
  /** The backend is stopping: nothing more is written (its presence goes with its connection). */
  private ended = false

  constructor(private readonly env: PgBoardEnv) {}

  post(id: SessionId, note: BoardNote | undefined): void {
    if (note === undefined) this.mine.delete(id)
    else this.mine.set(id, note)
    this.sync(id)
  }

  /**
   * Writes nothing more, and takes this host's notes down (the others are signalled); were that
   * to fail, they drop out with its LISTEN connection anyway.
   */
  async end(): Promise<void> {
    this.ended = true
    if (this.mine.size === 0) return
    this.mine.clear()
    await Promise.allSettled(this.writing.values())
    await this.env.db
      .transaction(async (client) => {
        const { rows } = await client.query<{ session_id: SessionId }>(
          'DELETE FROM dsh_board_notes WHERE host = $1 RETURNING session_id',
          [this.host],
        )
        for (const { session_id } of rows) await signal(client, session_id)
      })
      .catch((error) => this.env.warn(`postgres: could not take this host's notes down: ${error.message}`))
  }

  /** The presence lock was (re)taken: every note of this host is written again. */
  held(): void {
    for (const id of this.mine.keys()) this.sync(id)
  }

  async read(id: SessionId): Promise<{ from: string; note: BoardNote }[]> {
    await this.env.ready
    const { rows } = await this.env.db
      .query<{ host: string; note: BoardNote }>(
        `WITH gone AS (
           DELETE FROM dsh_board_notes WHERE session_id = $1 AND NOT dsh_host_alive(host_key)
         )
         SELECT host, note FROM dsh_board_notes
         WHERE session_id = $1 AND host <> $2 AND dsh_host_alive(host_key) ORDER BY host`,
        [id, this.host],
      )
      .catch((error) => this.failed(`read the board of session ${id}`, error))
    return rows.map(({ host, note }) => ({ from: host, note }))
  }

  async offer(id: SessionId, question: string, answer: BoardAnswer): Promise<boolean> {
    await this.env.ready
    return this.env.db
      .transaction(async (client) => {
        const { rowCount } = await client.query(
          `INSERT INTO dsh_board_answers (session_id, question, answer) VALUES ($1, $2, $3::json)
           ON CONFLICT DO NOTHING`,
          [id, question, JSON.stringify(answer)],
        )
        if (rowCount === 1) await signal(client, id)
        return rowCount === 1
      })
      .catch((error) => this.failed(`answer question ${question} of session ${id}`, error))
  }

  async answers(
    id: SessionId,
    questions: readonly string[],
  ): Promise<{ question: string; answer: BoardAnswer }[]> {
    if (questions.length === 0) return []
    await this.env.ready
    const { rows } = await this.env.db
      .query<{ question: string; answer: BoardAnswer }>(
        `UPDATE dsh_board_answers SET taken_at = now()
         WHERE session_id = $1 AND question = ANY($2) AND taken_at IS NULL
         RETURNING question, answer`,
        [id, questions],
      )
      .catch((error) => this.failed(`take the answers of session ${id}`, error))
    return rows.map(({ question, answer }) => ({ question, answer }))
  }

  /** Writes the latest note of `id` after the write under way, once (posts meanwhile coalesce). */
  private sync(id: SessionId): void {
    if (this.due.has(id)) return
    this.due.add(id)
    const previous = this.writing.get(id) ?? Promise.resolve()
    const next = previous.then(() => {
      this.due.delete(id)
      return this.write(id).catch((error) =>
        this.env.warn(`postgres: could not post a note on session ${id}: ${(error as Error).message}`),
      )
    })
    this.writing.set(id, next)
    void next.then(() => {
      if (this.writing.get(id) === next) this.writing.delete(id)
    })
  }

  /** The row of `id` made what `mine` says (a note waits for the presence lock: `held` writes it). */
  private async write(id: SessionId): Promise<void> {
    await this.env.ready
    const note = this.mine.get(id)
    if (this.ended || (note !== undefined && !this.env.listening())) return
    await this.env.db.transaction(async (client) => {
      if (note === undefined) await this.takeDown(client, id)
      else
        await client.query(
          `INSERT INTO dsh_board_notes (session_id, host, host_key, note)
           VALUES ($1, $2, dsh_host_key($2), $3::json)
           ON CONFLICT (session_id, host) DO UPDATE SET note = EXCLUDED.note, posted_at = now()`,
          [id, this.host, JSON.stringify(note)],
        )
      await client.query(
        `DELETE FROM dsh_board_answers WHERE session_id = $1 AND taken_at < now() - ${TAKEN_KEPT}`,
        [id],
      )
      await signal(client, id)
    })
  }

  /** Removes this host's note; the answers nobody took go with the session's last note. */
  private async takeDown(client: pg.ClientBase, id: SessionId): Promise<void> {
    await client.query('DELETE FROM dsh_board_notes WHERE session_id = $1 AND host = $2', [id, this.host])
    await client.query(
      `DELETE FROM dsh_board_answers a WHERE a.session_id = $1 AND a.offered_at < now() - ${UNTAKEN_KEPT}
       AND NOT EXISTS (SELECT 1 FROM dsh_board_notes n WHERE n.session_id = $1 AND dsh_host_alive(n.host_key))`,
      [id],
    )
  }

  private failed(what: string, error: unknown): never {
    this.env.warn(`postgres: could not ${what}: ${(error as Error).message}`)
    throw error
  }
}
