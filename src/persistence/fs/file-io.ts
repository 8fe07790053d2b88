import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import { NotRegularFileError, type OpenFile } from './file-system.js'

/** What a positional read needs of a file: an open file, or bytes already read. */
export type FileReader = Pick<OpenFile, 'read'>

/** Reads `length` bytes at `position` (fewer at the end of the file) into a new buffer. */
export async function readAt(file: FileReader, position: number, length: number): Promise<Buffer> {
  return readInto(Buffer.allocUnsafe(Math.max(0, length)), file, position, length)
}

/** Reads `length` bytes at `position` (fewer at the end of the file) into the start of `buffer`. */
export async function readInto(
  buffer: Buffer,
  file: FileReader,
  position: number,
  length: number,
): Promise<Buffer> {
  let done = 0
  while (done < length) {
    const read = await file.read(buffer, done, length - done, position + done)
    if (read === 0) break
    done += read
  }
  return buffer.subarray(0, done)
}

/** Writes all of `bytes` at `position`, continuing after short writes; a write of 0 bytes throws. */
export async function writeFully(file: OpenFile, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0
  while (done < bytes.length) {
    const wrote = await file.write(bytes, done, bytes.length - done, position + done)
    if (wrote <= 0) throw shortWrite(bytes.length - done, position + done)
    done += wrote
  }
}

/**
 * Writes all of `pieces`, one after another, from `position`: one `pwritev` (no copy joining them),
 * continuing after short writes; a write of 0 bytes throws. A crash can only cut the bytes short, as
 * with {@link writeFully}: the kernel writes the pieces in order.
 */
export async function writeAllFully(
  file: OpenFile,
  pieces: readonly Uint8Array[],
  position: number,
): Promise<void> {
  if (pieces.length === 1) return writeFully(file, pieces[0] as Uint8Array, position)
  let rest = pieces
  let at = position
  let missing = pieces.reduce((sum, piece) => sum + piece.length, 0)
  while (missing > 0) {
    const wrote = await file.writev(rest, at)
    if (wrote <= 0) throw shortWrite(missing, at)
    at += wrote
    missing -= wrote
    if (missing > 0) rest = after(rest, wrote)
  }
}

/** The bytes of `pieces` after their first `count`. */
function after(pieces: readonly Uint8Array[], count: number): Uint8Array[] {
  let skip = count
  let i = 0
  while (skip >= (pieces[i] as Uint8Array).length) skip -= (pieces[i++] as Uint8Array).length
  return [(pieces[i] as Uint8Array).subarray(skip), ...pieces.slice(i + 1)]
}

/** {@link writeFully} with synchronous writes. */
export function writeFullySync(file: OpenFile, bytes: Uint8Array, position: number): void {
  let done = 0
  while (done < bytes.length) {
    const wrote = file.writeSync(bytes, done, bytes.length - done, position + done)
    if (wrote <= 0) throw shortWrite(bytes.length - done, position + done)
    done += wrote
  }
}

function shortWrite(missing: number, position: number): Error {
  return Object.assign(new Error(`short write: 0 of ${missing} bytes at ${position}`), { code: 'EIO' })
}

/**
 * `PERSISTENCE_FAILED` saying which operation on which path failed, with its errno; a session file
 * that is not a regular file (a symlink, directory, FIFO, device) is `CORRUPT_SESSION` instead.
 */
export function persistenceError(id: SessionId, op: string, path: string, error: unknown): SessionError {
  if (error instanceof SessionError) return error
  if (error instanceof NotRegularFileError) {
    return new SessionError(
      SessionErrorCode.CORRUPT_SESSION,
      `session ${id}: ${error.path} is ${error.kind}, not a regular file: refused`,
      { sessionId: id, file: error.path },
      { cause: error },
    )
  }
  const errno = (error as NodeJS.ErrnoException)?.code
  const reason = (error as Error)?.message ?? String(error)
  return new SessionError(
    SessionErrorCode.PERSISTENCE_FAILED,
    `session ${id}: ${op} ${path} failed: ${reason}`,
    { sessionId: id, op, path, ...(errno !== undefined && { errno }) },
    { cause: error },
  )
}

/** `code` of an errno error, else undefined. */
export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}
