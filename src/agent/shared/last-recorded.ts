import type { Session, SessionEvent } from '../../session/index.js'

interface Scan<T> {
  seen: number
  found: T | undefined
}

/**
 * A reader of the last value a session's log records of one kind: `pick` turns an event into a
 * value, or undefined for an event that records none. Each live session's log is scanned once,
 * from where the last read stopped (anew after the log got shorter: a rewind).
 */
export function lastRecorded<T>(
  pick: (event: SessionEvent) => T | undefined,
): (session: Session) => T | undefined {
  const scans = new WeakMap<Session, Scan<T>>()
  return (session) => {
    let scan = scans.get(session)
    if (!scan || scan.seen > session.lastSeq) {
      scan = { seen: 0, found: undefined }
      scans.set(session, scan)
    }
    if (scan.seen < session.lastSeq) {
      for (const event of session.eventsAfter(scan.seen)) {
        const value = pick(event)
        if (value !== undefined) scan.found = value
      }
      scan.seen = session.lastSeq
    }
    return scan.found
  }
}
