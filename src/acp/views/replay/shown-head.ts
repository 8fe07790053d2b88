import { createHash, type Hash } from 'node:crypto'
import type { WireId } from '../../../jsonrpc/index.js'
import type { SessionEvent, SessionHeader } from '../../../session/index.js'
import { ErrorCode, ProtocolError } from '../../errors.js'

/**
 * The head of a `session/load` replay a new process sent before its server was built
 * (process/early-start/early-load.ts): the updates of every event through `sentThrough` (each
 * event whose updates were sent is, in log order, and no event after it), and a digest of the
 * header and those events as read then. The load's own replay then sends only what follows, and
 * checks it read the same head (else the session's file changed in between: -32015).
 */
export interface ShownHead {
  readonly sentThrough: number
  readonly digest: string
}

/** A {@link ShownHead} of request `requestId`'s load of `sessionId`, handed to the server. */
export interface EarlyReplay {
  readonly requestId: WireId
  readonly sessionId: string
  readonly head: ShownHead
}

/** The digest of a {@link ShownHead}: the header, then each event in order, as parsed from the file. */
export class HeadDigest {
  private readonly hash: Hash = createHash('sha256')

  constructor(header: SessionHeader) {
    this.hash.update(JSON.stringify(header))
  }

  add(event: SessionEvent): void {
    this.hash.update('\n')
    this.hash.update(JSON.stringify(event))
  }

  digest(): string {
    return this.hash.digest('hex')
  }
}

/**
 * Checks, as the load's replay reads the session, that it reads the head the early load sent: the
 * same header and events through `sentThrough`. Otherwise the client was shown another file's
 * head (another process rewound or replaced the session in between): the load fails with -32015,
 * and the client loads it again.
 */
export class ShownHeadCheck {
  private digest: HeadDigest | undefined

  constructor(
    private readonly shown: ShownHead,
    private readonly method: string,
    private readonly sessionId: string,
  ) {}

  /** Hears each event the replay reads, in order; throws at the head's end if it differs. */
  event(event: SessionEvent, header: SessionHeader): void {
    if (event.seq > this.shown.sentThrough) return
    this.digest ??= new HeadDigest(header)
    this.digest.add(event)
    if (event.seq === this.shown.sentThrough && this.digest.digest() !== this.shown.digest)
      throw this.changed()
  }

  /** After the replay: a log that ended before the head's end changed too. */
  finish(lastSeq: number): void {
    if (lastSeq < this.shown.sentThrough) throw this.changed()
  }

  private changed(): ProtocolError {
    return new ProtocolError(
      ErrorCode.SessionChanged,
      `${this.method}: session ${this.sessionId} changed while it was being loaded (another process rewound or replaced it): load it again`,
      { sessionId: this.sessionId },
    )
  }
}
