import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import type { StoredEventVisitor } from '../../session/store/persistence-port.js'
import { sessionHeaderOf } from '../branch-record.js'
import { corruptLine } from '../file-format.js'
import type { OpenFile } from '../fs/file-system.js'

const CHUNK = 64 * 1024
const NEWLINE = 0x0a

/** The session file a visit reads: open for reading, its path and its session's id (for errors). */
interface VisitedFile {
  readonly file: OpenFile
  readonly path: string
  readonly id: SessionId
}

/**
 * Goes through a session file read-only: parses the header, then hands `visit` each event with
 * `seq >= from`, in order, until `visit` answers `false` or the complete lines end (bytes after
 * the last newline, a torn tail, are not read; nothing is repaired). Lines before `from` are
 * counted, never decoded. Each promise `visit` returns is awaited before the next line. A bad
 * header, an event out of order or an unparsable line that is not the last throws
 * `CORRUPT_SESSION` naming the file and line; an unparsable last line (a torn tail) ends the
 * events. Resolves the header.
 */
export async function visitSessionFile(
  source: VisitedFile,
  from: number,
  visit: StoredEventVisitor,
): Promise<SessionHeader> {
  const { file, path, id } = source
  let header: SessionHeader | undefined
  let lineNo = 0
  let carry: Buffer[] = []
  let unparsed: { line: number; message: string } | undefined
  const chunk = Buffer.allocUnsafe(CHUNK)
  let position = 0
  for (;;) {
    const read = await file.read(chunk, 0, CHUNK, position)
    if (read === 0) break
    position += read
    let start = 0
    for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1 && nl < read; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl)
      start = nl + 1
      lineNo++
      // line 1 is the header, line n + 1 the event with seq n
      if (lineNo > 1 && lineNo <= from) {
        carry = []
        continue
      }
      const line = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece
      carry = []
      if (header === undefined) {
        header = sessionHeaderOf(line.toString('utf8'), path, id)
        continue
      }
      if (unparsed) throw corruptLine(path, unparsed.line, `not a JSON event: ${unparsed.message}`)
      let event: SessionEvent
      try {
        event = JSON.parse(line.toString('utf8')) as SessionEvent
      } catch (error) {
        unparsed = { line: lineNo, message: (error as Error).message }
        continue
      }
      const seq = (event as { seq?: unknown } | null)?.seq
      if (typeof event !== 'object' || event === null || seq !== lineNo - 1) {
        throw corruptLine(
          path,
          lineNo,
          `expected an event with seq ${lineNo - 1}, got ${JSON.stringify(seq)}`,
        )
      }
      let more = visit(event, header)
      if (typeof more !== 'boolean') more = await more
      if (!more) return header
    }
    // The rest of this chunk is part of a line that goes on (only kept when it will be decoded).
    if (start < read && (lineNo === 0 || lineNo + 1 > from))
      carry.push(Buffer.from(chunk.subarray(start, read)))
  }
  if (header === undefined) throw corruptLine(path, 1, 'no complete header line')
  return header
}
