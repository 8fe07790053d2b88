import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { Projection } from '../postgres/rows.js'

/** A blob's name: `sha256:` and the 64 hex digits of its bytes. */
export type BlobName = `sha256:${string}`

/**
 * How a store holds one session, apart from its events: its own header's text (a JSONL file's
 * first line, a row's `header`), and, for a rewind branch a JSONL store made by a link, the form of
 * its file (whose first line names the session it was) and its record `<id>.branch.json`.
 */
export interface StoredHead {
  readonly id: SessionId
  readonly header: SessionHeader
  /** The header as stored, without a newline. */
  readonly headerText: string
  readonly fileForm?: FileForm
}

/** A JSONL rewind branch's file form: its file's first line (no newline) and its record's whole text. */
export interface FileForm {
  readonly firstLine: string
  readonly record: string
}

/** What a first read of a session found: what the copy writes, and checks the target against. */
export interface ScannedSession {
  readonly head: StoredHead
  /** The SHA-256 of the session as a JSONL store holds it (see `sessionDigest`). */
  readonly digest: string
  /** Its events (`seq` 1..lastSeq, checked contiguous). */
  readonly lastSeq: number
  /** The blobs its `checkpoint:file` events name. */
  readonly blobs: ReadonlySet<BlobName>
  /** The listing columns a database keeps for it. */
  readonly projection: Projection
  /** Bytes after the last line end that were not copied (a torn tail), 0 when none. */
  readonly tornBytes: number
}

/**
 * One side of `dsh-acp store copy`: a JSONL directory or a PostgreSQL database, read and written
 * as stored text, never parsed and serialized again (so a copy back is byte-identical).
 */
export interface CopyStore {
  /** How reports name it: the directory, or host:port/database. */
  readonly name: string
  /** Every stored session's id (archived sessions, forks and rewind branches included). */
  ids(): Promise<SessionId[]>
  /** The session's head, or undefined when it is not stored. */
  head(id: SessionId): Promise<StoredHead | undefined>
  /** Its event lines in seq order, without line ends (complete lines only). */
  lines(id: SessionId): AsyncIterable<Buffer>
  /** Bytes after the last complete line (a JSONL file's torn tail); 0 for a database. */
  tornBytes(id: SessionId): Promise<number>
  getBlob(name: BlobName): Promise<Buffer | undefined>
  putBlob(bytes: Buffer): Promise<BlobName>
  /**
   * Writes a session whole or not at all: `lines` (exactly `scanned.lastSeq` of them) after its
   * head. Throws {@link SessionTaken} when the store holds a session with that id already.
   */
  write(scanned: ScannedSession, lines: AsyncIterable<Buffer>): Promise<void>
  close(): Promise<void>
}

/** The target already holds a session with this id (the caller compares the two). */
export class SessionTaken extends Error {
  constructor(readonly id: SessionId) {
    super(`the target already holds session ${id}`)
  }
}
