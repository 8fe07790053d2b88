import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, openSync, writeSync } from 'node:fs'
import type { Writable } from 'node:stream'
import type { WireDirection } from '../jsonrpc/connection.js'
import { isObject } from '../lib/is.js'
import { redactMcpSecrets } from './transcript-redaction.js'

/**
 * One transcript line (`schemas/transcript.schema.json`): the direction, optionally the time
 * offset in milliseconds since recording started (`ms`), and either the parsed message (`msg`)
 * or, for a line that is not JSON, the line itself (`raw`, or `rawBase64` when it was not UTF-8).
 * Transcripts written before `raw` existed kept such lines as `msg: {raw}`; `parseTranscriptLine`
 * reads those as raw lines too.
 */
export type TranscriptEntry =
  | { readonly dir: WireDirection; readonly ms?: number; readonly msg: unknown }
  | { readonly dir: WireDirection; readonly ms?: number; readonly raw: string }
  | { readonly dir: WireDirection; readonly ms?: number; readonly rawBase64: string }

export interface TranscriptRecorderOptions {
  /** `'a'` (default) appends to the file, `'w'` truncates it. */
  readonly flags?: 'a' | 'w'
  /** Milliseconds since recording started; when given, every entry carries it as `ms`. */
  readonly elapsed?: () => number
  /**
   * Called once when writing the file fails (a full disk, an I/O error): recording stops there,
   * and whatever records to it (a server, `record`'s proxy) goes on.
   */
  readonly onStopped?: (error: Error) => void
}

/** The transcript file cannot be opened: a symbolic link, a directory, no permission. */
export class TranscriptOpenError extends Error {
  override name = 'TranscriptOpenError'
}

/**
 * Opens `path` for recording without following a symbolic link at it (another user's link in a
 * shared directory must not redirect a transcript full of prompts). A file it creates is 0600; an
 * existing regular file readable by others is made 0600. A device (`/dev/stderr`'s target,
 * `/dev/full`) is written as it is.
 */
function openTranscript(path: string, flags: 'a' | 'w'): number {
  const mode = flags === 'a' ? constants.O_APPEND : constants.O_TRUNC
  let fd: number
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | mode, 0o600)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason =
      code === 'ELOOP'
        ? 'it is a symbolic link (give the file itself)'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (error as Error).message
    throw new TranscriptOpenError(`cannot record to ${path}: ${reason}`)
  }
  const stats = fstatSync(fd)
  if (stats.isFile() && (stats.mode & 0o077) !== 0) fchmodSync(fd, 0o600)
  return fd
}

/**
 * Records wire lines as JSONL, one entry per line, in the order they are recorded.
 * Pass `record` as (or from) the connection's `onWireLine` tap.
 *
 * Durability: with a file path, each entry is one `fs.writeSync` on an fd opened for appending
 * (`flags` default `'a'`; pass `'w'` to truncate), so a crash of this process loses at most the
 * entry being written; `close()` fsyncs and closes the file. A failed write (ENOSPC, EIO) never
 * throws: recording stops and `onStopped` is told once. With a `Writable`, entries go through
 * its buffer in order and `close()` ends it and waits for `'finish'`.
 *
 * Messages are re-serialized from the parsed value (one JSON value, no raw newline); a line that
 * is not JSON (or too deeply nested to serialize again) is kept verbatim as `raw`. After `close()`, `record` does nothing.
 */
export class TranscriptRecorder {
  private fd: number | undefined
  private stream: Writable | undefined
  private closed = false
  private readonly elapsed: (() => number) | undefined
  private readonly onStopped: ((error: Error) => void) | undefined

  /** Throws {@link TranscriptOpenError} when the file cannot be opened. */
  constructor(target: string | Writable, options: TranscriptRecorderOptions = {}) {
    if (typeof target === 'string') this.fd = openTranscript(target, options.flags ?? 'a')
    else this.stream = target
    this.elapsed = options.elapsed
    this.onStopped = options.onStopped
  }

  /**
   * Records one wire line (bound, so it can be passed around as a callback), with the secrets of
   * the `mcpServers` it carries replaced by `***` (`redactMcpSecrets`).
   */
  readonly record = (dir: WireDirection, wireLine: string): void => {
    if (this.closed) return
    const line = redactMcpSecrets(wireLine)
    const entry = transcriptEntry(dir, line, this.elapsed?.())
    let text: string
    try {
      text = formatTranscriptEntry(entry)
    } catch {
      // A message too deeply nested to serialize again is kept verbatim, like one that did not parse.
      const ms = entry.ms
      text = formatTranscriptEntry({ dir, ...(ms !== undefined && { ms }), raw: line })
    }
    this.write(`${text}\n`)
  }

  /** Records one line that was not valid UTF-8, as base64 of its bytes. */
  readonly recordBytes = (dir: WireDirection, bytes: Buffer): void => {
    if (this.closed) return
    const ms = this.elapsed?.()
    const entry: TranscriptEntry = {
      dir,
      ...(ms !== undefined && { ms }),
      rawBase64: bytes.toString('base64'),
    }
    this.write(`${formatTranscriptEntry(entry)}\n`)
  }

  private write(text: string): void {
    if (this.fd === undefined) {
      this.stream?.write(text)
      return
    }
    try {
      writeAll(this.fd, text)
    } catch (error) {
      this.stop(error as Error)
    }
  }

  /** Stops recording after a failed write: the file keeps the whole entries written before it. */
  private stop(error: Error): void {
    this.closed = true
    const fd = this.fd
    this.fd = undefined
    if (fd !== undefined) {
      try {
        closeSync(fd)
      } catch {
        // The descriptor is released even when close reports the earlier write's error.
      }
    }
    this.onStopped?.(error)
  }

  /** Flushes and releases the target. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.fd !== undefined) {
      const fd = this.fd
      this.fd = undefined
      try {
        fsyncSync(fd)
      } catch (error) {
        // A device (`/dev/stderr`) cannot be synced; a disk that fails here fails like a write.
        const code = (error as NodeJS.ErrnoException).code
        if (code !== 'EINVAL' && code !== 'ENOTSUP') this.onStopped?.(error as Error)
      } finally {
        closeSync(fd)
      }
      return
    }
    const stream = this.stream
    if (!stream || stream.writableFinished) return
    await new Promise<void>((resolve) => {
      stream.once('error', () => resolve())
      stream.end(() => resolve())
    })
  }
}

/** The entry for one wire line: its parsed message, or the line as `raw` when it is not JSON. */
export function transcriptEntry(dir: WireDirection, line: string, ms?: number): TranscriptEntry {
  const time = ms !== undefined ? { ms: Math.round(ms * 1000) / 1000 } : {}
  try {
    return { dir, ...time, msg: JSON.parse(line) as unknown }
  } catch {
    return { dir, ...time, raw: line }
  }
}

/** One entry as one line of JSON (without the `\n`), keys in the order `dir`, `ms`, `msg`/`raw`. */
export function formatTranscriptEntry(entry: TranscriptEntry): string {
  return JSON.stringify(entry)
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  let offset = 0
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
}

/** A transcript line that is not an entry; `line` is 1-based. */
export class TranscriptFormatError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`transcript line ${line}: ${reason}`)
    this.name = 'TranscriptFormatError'
  }
}

const ENTRY_KEYS = ['dir', 'ms', 'msg', 'raw', 'rawBase64']

/**
 * Reads one transcript line (1-based `lineNumber`, for errors). Accepts the old `msg: {raw}` form
 * of unparsable lines and returns it as `raw`. Throws {@link TranscriptFormatError}.
 */
export function parseTranscriptLine(text: string, lineNumber: number): TranscriptEntry {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new TranscriptFormatError(lineNumber, 'not JSON')
  }
  if (!isObject(value)) throw new TranscriptFormatError(lineNumber, 'not a JSON object')
  const { dir, ms } = value
  if (dir !== 'in' && dir !== 'out') throw new TranscriptFormatError(lineNumber, 'dir must be "in" or "out"')
  if (ms !== undefined && (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)) {
    throw new TranscriptFormatError(lineNumber, 'ms must be a number of milliseconds, at least 0')
  }
  const unknown = Object.keys(value).find((key) => !ENTRY_KEYS.includes(key))
  if (unknown !== undefined)
    throw new TranscriptFormatError(lineNumber, `unknown field ${JSON.stringify(unknown)}`)
  const time = ms !== undefined ? { ms } : {}
  const forms = ['msg', 'raw', 'rawBase64'].filter((key) => Object.hasOwn(value, key))
  if (forms.length !== 1)
    throw new TranscriptFormatError(lineNumber, 'needs exactly one of msg, raw, rawBase64')
  if (Object.hasOwn(value, 'msg')) {
    const msg = value.msg
    const keys = isObject(msg) ? Object.keys(msg) : []
    if (isObject(msg) && keys.length === 1 && typeof msg.raw === 'string')
      return { dir, ...time, raw: msg.raw }
    return { dir, ...time, msg }
  }
  if (typeof value.raw === 'string') return { dir, ...time, raw: value.raw }
  if (typeof value.rawBase64 === 'string') return { dir, ...time, rawBase64: value.rawBase64 }
  throw new TranscriptFormatError(lineNumber, 'raw and rawBase64 must be strings')
}

/** Parses a transcript file's text into entries, skipping blank lines. Throws {@link TranscriptFormatError}. */
export function parseTranscript(text: string): TranscriptEntry[] {
  return text
    .split('\n')
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.trim().length > 0)
    .map(({ line, index }) => parseTranscriptLine(line, index + 1))
}
