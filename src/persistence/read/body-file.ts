import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import type { JsonObject, SessionEvent } from '../../session/log/events.js'
import { keptDataFrom, storedEvent } from '../../session/log/stored-event.js'
import { persistenceError } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'

/** Event lines at least this long are not kept in memory after a load; their data is read back. */
export const KEEP_OUT_BYTES = 4096

/**
 * A session file opened for reading back the data of events a load did not keep in memory (see
 * {@link storedEvent}). It stays open while a live session holds such events: the session it was
 * read for, and fork children that share its events. The bytes of complete lines never change
 * while the session is held (files are append-only, and only a torn tail is ever cut), so a line
 * read back is the line that was checked at load.
 */
export class BodyFile {
  private holders = new Set<SessionId>()
  private closed = false

  constructor(
    private readonly id: SessionId,
    private readonly path: string,
    private readonly file: OpenFile,
  ) {}

  /** An event standing in for the line `[offset, offset + length)` (without its `\n`). */
  standIn(event: SessionEvent, offset: number, length: number): SessionEvent {
    // Only the numbers are captured: the parsed event (with its data) must not stay reachable.
    const seq = event.seq
    const read = () => this.readData(seq, offset, length)
    return storedEvent({ seq, type: event.type, time: event.time }, read, keptDataFrom(event))
  }

  hold(holder: SessionId): void {
    this.holders.add(holder)
  }

  /** Lets go for `holder`; closes the file when nobody holds it. */
  async release(holder: SessionId): Promise<void> {
    this.holders.delete(holder)
    if (this.holders.size > 0 || this.closed) return
    this.closed = true
    await this.file.close()
  }

  private readData(seq: number, offset: number, length: number): JsonObject {
    if (this.closed) {
      throw new SessionError(
        SessionErrorCode.SESSION_NOT_LIVE,
        `the data of event ${seq} of session ${this.id} is read back from its file, and no live session holds it any more`,
        { sessionId: this.id, seq },
      )
    }
    const bytes = Buffer.allocUnsafe(length)
    let event: { seq?: unknown; data?: unknown }
    try {
      let done = 0
      while (done < length) {
        const read = this.file.readSync(bytes, done, length - done, offset + done)
        if (read === 0) throw new Error(`the file ended at ${offset + done}, inside the line of event ${seq}`)
        done += read
      }
      event = JSON.parse(bytes.toString('utf8')) as typeof event
    } catch (error) {
      throw persistenceError(this.id, `read back event ${seq} of`, this.path, error)
    }
    if (event?.seq !== seq || typeof event.data !== 'object' || event.data === null) {
      throw new SessionError(
        SessionErrorCode.CORRUPT_SESSION,
        `${this.path}: the line of event ${seq} at offset ${offset} changed since it was read`,
        { sessionId: this.id, file: this.path, seq },
      )
    }
    return event.data as JsonObject
  }
}
