import { createHash, type Hash } from 'node:crypto'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import type { BlobName, CopyStore, ScannedSession, StoredHead } from './copy-store.js'
import { ListingFold } from './listing-fold.js'

const BLOB = /^sha256:[0-9a-f]{64}$/
const NEWLINE = Buffer.from('\n')

/**
 * The digest of a session as a JSONL store holds it: the SHA-256 of its file's bytes (its first
 * line, a line end, each event line and a line end), then, for a rewind branch a link made, of a
 * zero byte and its record's text. Both sides of a copy compute it the same way from what they
 * store, so equal digests mean a copy back gives the same bytes.
 */
export class SessionDigest {
  private readonly hash: Hash = createHash('sha256')

  constructor(private readonly head: StoredHead) {
    this.hash.update(head.fileForm?.firstLine ?? head.headerText).update(NEWLINE)
  }

  line(bytes: Buffer): void {
    this.hash.update(bytes).update(NEWLINE)
  }

  finish(): string {
    const record = this.head.fileForm?.record
    if (record !== undefined) this.hash.update(Buffer.of(0)).update(record)
    return this.hash.digest('hex')
  }
}

/** The digest of the session `id` as `store` holds it now, or undefined when it holds none. */
export async function digestOf(store: CopyStore, id: SessionId): Promise<string | undefined> {
  const head = await store.head(id)
  if (!head) return undefined
  const digest = new SessionDigest(head)
  for await (const line of store.lines(id)) digest.line(line)
  return digest.finish()
}

/**
 * Reads the session `id` of `store` once, whole: every line must be an event object whose `seq`
 * follows the one before from 1 (else an error naming the store, session and line). Resolves what
 * the copy needs: its digest, length, the blobs it names, its listing columns.
 */
export async function scanSession(store: CopyStore, head: StoredHead): Promise<ScannedSession> {
  const digest = new SessionDigest(head)
  const fold = new ListingFold(head.header)
  const blobs = new Set<BlobName>()
  let seq = 0
  for await (const line of store.lines(head.id)) {
    seq++
    const event = parseLine(store, head.id, seq, line)
    digest.line(line)
    fold.add(event)
    const named = blobNamed(event)
    if (named) blobs.add(named)
  }
  return {
    head,
    digest: digest.finish(),
    lastSeq: seq,
    blobs,
    projection: fold.projection(),
    tornBytes: await store.tornBytes(head.id),
  }
}

function parseLine(store: CopyStore, id: SessionId, seq: number, line: Buffer): SessionEvent {
  let event: unknown
  try {
    event = JSON.parse(line.toString('utf8'))
  } catch (error) {
    throw new Error(`${store.name}: session ${id}, event ${seq}: not JSON (${(error as Error).message})`)
  }
  const e = event as { seq?: unknown; type?: unknown; time?: unknown; data?: unknown } | null
  if (typeof e !== 'object' || e === null || e.seq !== seq || typeof e.type !== 'string')
    throw new Error(`${store.name}: session ${id}, event ${seq}: not an event with seq ${seq}`)
  if (typeof e.time !== 'string' || typeof e.data !== 'object' || e.data === null)
    throw new Error(`${store.name}: session ${id}, event ${seq}: an event needs a time and a data object`)
  return event as SessionEvent
}

/** The blob a `checkpoint:file` event names: its `before`, when that content is not inline. */
export function blobNamed(event: SessionEvent): BlobName | undefined {
  if (event.type !== 'checkpoint:file') return undefined
  const data = event.data as { before?: unknown; beforeText?: unknown }
  if (data.beforeText !== undefined || typeof data.before !== 'string' || !BLOB.test(data.before))
    return undefined
  return data.before as BlobName
}
