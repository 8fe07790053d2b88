import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { withStoredLine } from '../../session/log/stored-event.js'
import type { StoredEventListener } from '../../session/store/persistence-port.js'
import { sessionHeaderOf } from '../branch-record.js'
import { corruptLine } from '../file-format.js'
import type { OpenFile } from '../fs/file-system.js'
import { scanLines } from './line-scanner.js'

/** Stands in for an event line read from `offset` (`length` bytes without the `\n`), or declines. */
export type StandIn = (event: SessionEvent, offset: number, length: number) => SessionEvent | undefined

/** A torn tail as a read found it: the file is to end at `cut` (a line start); it ended at `end`. */
export interface TornTail {
  readonly cut: number
  readonly end: number
  /** The seq an event line starting at `cut` would have. */
  readonly nextSeq: number
  /** What is torn, for the warning. */
  readonly what: string
}

/**
 * Cuts a torn tail away, or leaves it when another process may be writing those bytes, or wrote
 * there since it was read. Default: cut, durably.
 */
export type TailRepair = (file: OpenFile, torn: TornTail) => Promise<void>

/** A session file as read: parsed header and events, and where each line ends. */
export interface SessionFileContents {
  readonly header: SessionHeader
  /**
   * Parsed, not yet frozen or checked against the log invariants (the store does that); where
   * `standIn` gave one, its stand-in instead (`onEvent` heard the parsed event).
   */
  readonly events: SessionEvent[]
  /** Offset just after the header line. */
  readonly headerEnd: number
  /** `ends[i]`: offset just after the line of the event with seq i + 1. */
  readonly ends: number[]
  /** The file's length after any repair: the end of the last event. */
  readonly size: number
}

/** How {@link readSessionFile} reports, lends and repairs. */
export interface ReadSessionOptions {
  /** Warns of a torn tail it cuts (without `repair`). */
  readonly warn: (message: string) => void
  readonly onEvent?: StoredEventListener | undefined
  readonly standIn?: StandIn | undefined
  readonly repair?: TailRepair | undefined
}

/**
 * Reads a session file whole, streaming it line by line; `onEvent` hears each event as soon as
 * its line parsed, with the line lent to it (`storedLineOf`; the line after it is not read yet, so
 * a later bad line still fails the read). A torn tail (bytes after the last
 * newline, or a last line that does not parse) is truncated away (and the truncation made
 * durable) with a warning, before anything can be appended. Any other bad line, a bad header, a
 * `seq` out of order or a `seedLength` beyond the log throws `CORRUPT_SESSION` naming the file and
 * line. Unless `repair` says otherwise, the caller must hold the session's lock. `standIn` may replace a parsed event in the
 * result by an event that reads its data back later (so the result does not hold every body).
 */
export async function readSessionFile(
  file: OpenFile,
  path: string,
  id: SessionId,
  options: ReadSessionOptions,
): Promise<SessionFileContents> {
  const { warn, onEvent, standIn, repair } = options
  let header: SessionHeader | undefined
  let headerEnd = 0
  const events: SessionEvent[] = []
  const ends: number[] = []
  let unparsed: { line: number; offset: number; message: string } | undefined
  let lineNo = 0
  const scan = await scanLines(file, 0, (bytes, offset) => {
    lineNo++
    const end = offset + bytes.length + 1
    if (header === undefined) {
      header = sessionHeaderOf(bytes.toString('utf8'), path, id)
      headerEnd = end
      return
    }
    if (unparsed) throw corruptLine(path, unparsed.line, `not a JSON event: ${unparsed.message}`)
    let event: unknown
    try {
      event = JSON.parse(bytes.toString('utf8'))
    } catch (error) {
      unparsed = { line: lineNo, offset, message: (error as Error).message }
      return
    }
    const seq = (event as { seq?: unknown } | null)?.seq
    if (typeof event !== 'object' || event === null || seq !== events.length + 1) {
      throw corruptLine(
        path,
        lineNo,
        `expected an event with seq ${events.length + 1}, got ${JSON.stringify(seq)}`,
      )
    }
    const parsed = event as SessionEvent
    events.push(standIn?.(parsed, offset, bytes.length) ?? parsed)
    ends.push(end)
    if (!onEvent) return
    const read = header
    // The line is the scanner's (reused for the next chunk): lent for the call only.
    return withStoredLine(parsed, bytes, () => onEvent(parsed, read))
  })
  if (header === undefined) throw corruptLine(path, 1, 'no complete header line')
  const cut = unparsed?.offset ?? scan.completeEnd
  if (cut < scan.end) {
    const what = unparsed ? `unparsable last line ${unparsed.line}` : 'a last line without newline'
    if (repair) await repair(file, { cut, end: scan.end, nextSeq: events.length + 1, what })
    else {
      warn(`${path}: torn tail (${what}), truncating ${scan.end - cut} bytes at offset ${cut}`)
      await file.truncate(cut)
      await file.datasync()
    }
  }
  const h: SessionHeader = header
  if (h.seedLength !== undefined && h.seedLength > events.length) {
    throw corruptLine(path, 1, `header says ${h.seedLength} seed events but the log holds ${events.length}`)
  }
  return { header: h, events, headerEnd, ends, size: cut }
}
