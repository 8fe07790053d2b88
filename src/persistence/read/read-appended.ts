import type { SessionEvent } from '../../session/log/events.js'
import { corruptLine } from '../file-format.js'
import type { OpenFile } from '../fs/file-system.js'

const CHUNK = 1 << 20
const NEWLINE = 0x0a

/** What another process appended after a view of a session file, as {@link readAppended} found it. */
export interface AppendedLines {
  /** The events of the complete lines that parsed, in order (parsed, not checked). */
  readonly events: SessionEvent[]
  /** `ends[i]`: the offset just after the line of `events[i]`. */
  readonly ends: number[]
  /**
   * Where the bytes after the last good line start, when there are any: a line without its
   * newline, or a last complete line that does not parse (a writer that died mid-line).
   */
  readonly tornAt?: number
  /** The offset the read reached (the file's end then). */
  readonly end: number
}

/**
 * Reads the lines of `file` from `from` (the end of a view: a line start) to its end,
 * synchronously in 1 MiB reads, expecting events with seq `firstSeq`, `firstSeq + 1`, ... A
 * complete line that does not parse is a torn tail when nothing but a line without newline follows
 * it; with a good line after it, or a seq out of order, the file is corrupt (`CORRUPT_SESSION`
 * naming `path` and the seq). Synchronous because the store takes a pen inside an append: the
 * event loop waits about 7 ms per MB appended elsewhere.
 */
export function readAppended(
  file: Pick<OpenFile, 'readSync'>,
  path: string,
  from: number,
  firstSeq: number,
): AppendedLines {
  const events: SessionEvent[] = []
  const ends: number[] = []
  let bad: { offset: number; message: string } | undefined
  let position = from
  let lineStart = from
  let carry: Buffer[] = []
  const chunk = Buffer.allocUnsafe(CHUNK)
  for (;;) {
    const read = file.readSync(chunk, 0, CHUNK, position)
    if (read === 0) break
    let at = 0
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, at)
      if (nl === -1 || nl >= read) break
      const piece = chunk.subarray(at, nl)
      const line = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece
      carry = []
      const end = position + nl + 1
      const seq = firstSeq + events.length
      if (bad) throw corruptLine(path, seq, `not a JSON event: ${bad.message}`)
      try {
        const event = JSON.parse(line.toString('utf8')) as SessionEvent
        if (typeof event !== 'object' || event === null || event.seq !== seq) {
          throw corruptLine(
            path,
            seq + 1,
            `expected an event with seq ${seq}, got ${JSON.stringify(event?.seq)}`,
          )
        }
        events.push(event)
        ends.push(end)
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error
        bad = { offset: lineStart, message: error.message }
      }
      lineStart = end
      at = nl + 1
    }
    if (at < read) carry.push(Buffer.from(chunk.subarray(at, read)))
    position += read
  }
  const tornAt = bad?.offset ?? (lineStart < position ? lineStart : undefined)
  return { events, ends, end: position, ...(tornAt !== undefined && { tornAt }) }
}
