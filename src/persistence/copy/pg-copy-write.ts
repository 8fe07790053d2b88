import type pg from 'pg'
import type { SessionId } from '../../session/ids.js'
import { STREAM_OF_1 } from '../postgres/rows.js'
import type { ScannedSession } from './copy-store.js'

/** Rows inserted per statement. */
const BATCH = 1000

/**
 * Writes a copied session into the database in the caller's transaction: its row (the header as
 * its text was stored, the listing columns the scan computed), its event rows, and its JSONL file
 * form. Where its header names a parent the database holds, the first events it shares with that
 * parent byte for byte (at most `seedLength`: a fork child's seed, or the kept prefix of a rewind
 * branch) are a reference to the parent's rows, as the backend itself makes them, not copies.
 * Resolves true, writing nothing, when the id is taken.
 */
export async function insertCopied(
  client: pg.ClientBase,
  scanned: ScannedSession,
  lines: AsyncIterable<Buffer>,
  parentLines: (parent: SessionId, limit: number) => AsyncGenerator<Buffer>,
): Promise<boolean> {
  const { head, lastSeq, projection } = scanned
  const { header } = head
  const { rowCount } = await client.query(
    `INSERT INTO dsh_sessions (id, header, cwd, created_at, updated_at, title, archived, cost, last_seq)
     VALUES ($1, $2::json, $3, $4, $5, $6, $7, $8::json, $9) ON CONFLICT (id) DO NOTHING`,
    [
      head.id,
      head.headerText,
      header.cwd,
      header.createdAt,
      projection.updatedAt,
      projection.title,
      projection.archived,
      projection.cost,
      lastSeq,
    ],
  )
  if (rowCount === 0) return true
  const parent = header.parentSession
  const cap = Math.min(header.seedLength ?? 0, lastSeq)
  const shared = parent !== undefined && cap > 0 ? parentLines(parent, cap) : undefined
  const base = await insertOwnRows(client, { id: head.id, lastSeq }, lines, shared)
  if (base > 0) {
    await client.query('UPDATE dsh_sessions SET base_session = $2, base_length = $3 WHERE id = $1', [
      head.id,
      parent,
      base,
    ])
  }
  if (head.fileForm) {
    await client.query('INSERT INTO dsh_file_forms (session_id, first_line, record) VALUES ($1, $2, $3)', [
      head.id,
      head.fileForm.firstLine,
      head.fileForm.record,
    ])
  }
  return false
}

/**
 * Inserts `lastSeq` lines as rows of `id`, except the first ones equal to what `shared` yields
 * (the parent's first events): resolves how many those were, the length of the reference.
 */
async function insertOwnRows(
  client: pg.ClientBase,
  session: { readonly id: SessionId; readonly lastSeq: number },
  lines: AsyncIterable<Buffer>,
  shared: AsyncGenerator<Buffer> | undefined,
): Promise<number> {
  const { id, lastSeq } = session
  let base = 0
  let matching = shared !== undefined
  let seq = 0
  let batch: { seq: number; body: string }[] = []
  for await (const line of lines) {
    if (seq === lastSeq) break
    seq++
    if (matching) {
      const theirs = await shared?.next()
      if (theirs && !theirs.done && theirs.value.equals(line)) {
        base = seq
        continue
      }
      matching = false
      await shared?.return(undefined)
    }
    batch.push({ seq, body: line.toString('utf8') })
    if (batch.length === BATCH) batch = await insertRows(client, id, batch)
  }
  if (matching) await shared?.return(undefined)
  await insertRows(client, id, batch)
  if (seq !== lastSeq)
    throw new Error(`the source holds ${seq} events now, not ${lastSeq}: it changed while copied`)
  return base
}

async function insertRows(
  client: pg.ClientBase,
  id: SessionId,
  rows: readonly { seq: number; body: string }[],
): Promise<{ seq: number; body: string }[]> {
  if (rows.length === 0) return []
  await client.query(
    `INSERT INTO dsh_events (session_id, seq, body) SELECT ${STREAM_OF_1}, s, b::json FROM unnest($2::int[], $3::text[]) AS t(s, b)`,
    [id, rows.map((r) => r.seq), rows.map((r) => r.body)],
  )
  return []
}
