import { randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { SessionId } from '../../session/ids.js'
import type { SessionStreams, StreamedChunk } from '../../session/store/persistence-port.js'
import { isAlive, processStartTime } from '../session-lock.js'
import type { StorePaths } from '../store-paths.js'

const NAME = /^([A-Za-z0-9_-]{1,128})\.stream\.([0-9]{1,10})\.ndjson$/
/** A turn's streamed text past this is not followed further (its events still come). */
const MAX_BYTES = 64 * 1024 * 1024
const ownStart = processStartTime(process.pid)
/** A header line (`{pid, start, token}`) is shorter than this. */
const HEADER_BYTES = 256

/** The session id of a stream file's name, else undefined. */
export function streamSessionOf(name: string): SessionId | undefined {
  return NAME.exec(name)?.[1]
}

/** The pid of the process that wrote a stream file, by its name, else undefined. */
export function streamWriterOf(name: string): number | undefined {
  const pid = NAME.exec(name)?.[2]
  return pid === undefined ? undefined : Number(pid)
}

interface Writing {
  readonly fd: number
  bytes: number
}

interface Reading {
  /** The token of the file's first line: a new file (a new turn) has another. */
  readonly token: string
  offset: number
  /** A line whose end was not written yet when it was read. */
  partial: string
}

/**
 * {@link SessionStreams} in files beside the session files: `<id>.stream.<pid>.ndjson`, written by
 * process `pid` while its turn of session `id` streams (a first line `{pid, start}` naming the
 * process and the turn by a random token, then one `{seq, n, update}` per chunk), removed when
 * the turn ends. A reader reads the
 * files of the processes it is told of, each followed by its token and offset (a new file is a new
 * turn, whatever inode it has), taking only whole lines; a file whose process is gone (dead, or its pid reused) is
 * removed, as is any at start-up (`tidyStore`). Appends are not synced: a chunk is worth
 * nothing after a crash, the log's events are what stays.
 */
export class SessionStreamFiles implements SessionStreams {
  private readonly writing = new Map<SessionId, Writing>()
  private readonly reading = new Map<string, Reading>()

  constructor(
    private readonly paths: StorePaths,
    private readonly warn: (message: string) => void,
  ) {}

  publish(id: SessionId, chunk: StreamedChunk): void {
    let file = this.writing.get(id)
    try {
      if (!file) {
        const fd = openSync(this.path(id, process.pid), 'w', 0o600)
        file = { fd, bytes: 0 }
        this.writing.set(id, file)
        this.append(file, { pid: process.pid, start: ownStart, token: randomBytes(8).toString('hex') })
      }
      if (file.bytes < MAX_BYTES) this.append(file, chunk)
    } catch (error) {
      this.warn(`could not stream session ${id} to other processes: ${(error as Error).message}`)
      this.end(id)
    }
  }

  end(id: SessionId): void {
    const file = this.writing.get(id)
    if (!file) return
    this.writing.delete(id)
    removeQuietly(this.path(id, process.pid))
    try {
      closeSync(file.fd)
    } catch {
      // Closed already.
    }
  }

  /** `writers` are pids, as the JSONL board names the processes of its notes. */
  read(id: SessionId, writers: readonly string[]): StreamedChunk[] {
    const chunks: StreamedChunk[] = []
    for (const writer of writers) {
      const pid = /^[1-9][0-9]{0,9}$/.test(writer) ? Number(writer) : undefined
      if (pid !== undefined && pid !== process.pid) chunks.push(...this.readFile(this.path(id, pid), pid))
    }
    return chunks
  }

  forget(id: SessionId): void {
    for (const path of this.reading.keys()) {
      if (streamSessionOf(basename(path)) === id) this.reading.delete(path)
    }
  }

  /** Ends every stream of this process (the backend stops). */
  close(): void {
    for (const id of [...this.writing.keys()]) this.end(id)
  }

  private append(file: Writing, value: unknown): void {
    const line = Buffer.from(`${JSON.stringify(value)}\n`)
    writeSync(file.fd, line)
    file.bytes += line.length
  }

  private readFile(path: string, pid: number): StreamedChunk[] {
    let fd: number
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    } catch {
      this.reading.delete(path)
      return []
    }
    try {
      const stats = fstatSync(fd)
      const header = stats.isFile() ? headerOf(fd) : undefined
      if (!header) return []
      let state = this.reading.get(path)
      if (state?.token !== header.token) {
        // A new turn's file: its writer is checked once, not at each chunk.
        if (!this.alive(header, pid)) {
          removeQuietly(path)
          this.reading.delete(path)
          return []
        }
        state = { token: header.token, offset: header.bytes, partial: '' }
        this.reading.set(path, state)
      }
      const size = stats.size
      if (size <= state.offset || size > MAX_BYTES) return []
      const buffer = Buffer.alloc(size - state.offset)
      const length = readSync(fd, buffer, 0, buffer.length, state.offset)
      state.offset += length
      const text = state.partial + buffer.toString('utf8', 0, length)
      const lines = text.split('\n')
      state.partial = lines.pop() ?? ''
      return lines.map(parse).filter(isChunk)
    } catch {
      return []
    } finally {
      closeSync(fd)
    }
  }

  /** Whether the process a header names is the one that wrote it (not gone, its pid not reused). */
  private alive(header: Header, pid: number): boolean {
    return (
      header.pid === pid &&
      isAlive(pid) &&
      (header.start === undefined || processStartTime(pid) === header.start)
    )
  }

  private path(id: SessionId, pid: number): string {
    const name = `${id}.stream.${pid}.ndjson`
    if (!NAME.test(name)) throw new Error(`not a stream name: ${name}`)
    return join(this.paths.dir, name)
  }
}

interface Header {
  readonly pid: unknown
  readonly start: string | undefined
  readonly token: string
  /** Its length, line end included. */
  readonly bytes: number
}

/** The first line of a stream file, when it is whole and one of ours. */
function headerOf(fd: number): Header | undefined {
  const buffer = Buffer.alloc(HEADER_BYTES)
  const length = readSync(fd, buffer, 0, HEADER_BYTES, 0)
  const end = buffer.subarray(0, length).indexOf(0x0a)
  if (end < 0) return undefined
  const value = parse(buffer.toString('utf8', 0, end))
  if (!value || typeof value !== 'object') return undefined
  const { pid, start, token } = value as { pid?: unknown; start?: unknown; token?: unknown }
  if (typeof token !== 'string') return undefined
  return { pid, start: typeof start === 'string' ? start : undefined, token, bytes: end + 1 }
}

function isChunk(value: unknown): value is StreamedChunk {
  if (!value || typeof value !== 'object') return false
  const { seq, n } = value as { seq?: unknown; n?: unknown }
  return Number.isInteger(seq) && Number.isInteger(n) && 'update' in value
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Gone already.
  }
}
