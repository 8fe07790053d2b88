import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import type { Writable } from 'node:stream'
import type { WireDirection } from './connection.js'

/** One transcript line: the direction and the parsed message, or `{ raw }` when it did not parse. */
export interface TranscriptEntry {
  readonly dir: WireDirection
  readonly msg: unknown
}

/**
 * Records wire lines as JSONL, one `{"dir","msg"}` per line, in the order they are recorded.
 * Pass `record` as (or from) the connection's `onWireLine` tap.
 *
 * Durability: with a file path, each entry is one `fs.writeSync` on an fd opened for appending
 * (`flags` default `'a'`; pass `'w'` to truncate), so a crash of this process loses at most the
 * entry being written; `close()` fsyncs and closes the file. With a `Writable`, entries go through
 * its buffer in order and `close()` ends it and waits for `'finish'`.
 *
 * Lines are re-serialized from the parsed value (one JSON value, no raw newline); a line that
 * is not JSON (or too deeply nested to serialize again) is kept verbatim as `{"raw": line}`. After `close()`, `record` does nothing.
 */
export class TranscriptRecorder {
  private fd: number | undefined
  private stream: Writable | undefined
  private closed = false

  constructor(target: string | Writable, options: { flags?: 'a' | 'w' } = {}) {
    if (typeof target === 'string') this.fd = openSync(target, options.flags ?? 'a', 0o600)
    else this.stream = target
  }

  /** Records one raw wire line (bound, so it can be passed around as a callback). */
  readonly record = (dir: WireDirection, line: string): void => {
    if (this.closed) return
    const text = `${entryText(dir, line)}\n`
    if (this.fd !== undefined) writeAll(this.fd, text)
    else this.stream?.write(text)
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

/** The entry as JSON; a line too deep to re-serialize is kept verbatim, like one that did not parse. */
function entryText(dir: WireDirection, line: string): string {
  try {
    return JSON.stringify({ dir, msg: parseOrRaw(line) } satisfies TranscriptEntry)
  } catch {
    return JSON.stringify({ dir, msg: { raw: line } } satisfies TranscriptEntry)
  }
}

function parseOrRaw(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return { raw: line }
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  let offset = 0
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
}

/** Parses a transcript file's text into entries (for tests and tools). */
export function parseTranscript(text: string): TranscriptEntry[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as TranscriptEntry)
}
